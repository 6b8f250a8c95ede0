//! The perfect index: exhaustive round trips up to 4 pieces, random ones
//! for 5..=8, counts against an independent closed form, and a brute-force
//! enumeration for small materials.

use format::{binomial, table_position, Material, MaterialIndex};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rules::{Color, Position};

/// Legal placements counted another way than the index does: black men
/// first (on 1-5 or 6-45), then white men on the squares of 6-50 left,
/// then kings on what is free.
fn closed_form(m: Material) -> u64 {
    let (wm, wk, bm, bk) = (
        m.white_men as u32,
        m.white_kings as u32,
        m.black_men as u32,
        m.black_kings as u32,
    );
    let mut men = 0u64;
    for b_top in 0..=bm.min(5) {
        let b_mid = bm - b_top;
        if b_mid > 40 {
            continue;
        }
        men += binomial(5, b_top) * binomial(40, b_mid) * binomial(45 - b_mid, wm);
    }
    let free = 50 - wm - bm;
    men * binomial(free, wk) * binomial(free - wk, bk)
}

fn check_position(m: Material, pos: &Position) {
    assert_eq!(pos.side_to_move(), Color::White);
    assert_eq!(Material::of(pos), m);
    // Re-parse through FEN: the placement is legal.
    let again: Position = pos.to_string().parse().expect("legal placement");
    assert_eq!(&again, pos);
}

#[test]
fn exhaustive_round_trips_up_to_four_pieces() {
    for m in Material::all_up_to(4) {
        let index = MaterialIndex::new(m);
        for i in 0..index.count() {
            let pos = index.unrank(i);
            if i % 9973 == 0 {
                check_position(m, &pos);
            }
            assert_eq!(index.rank(&pos), i, "{m} index {i}");
        }
    }
}

#[test]
fn random_round_trips_five_to_eight_pieces() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_d7a9);
    for m in Material::all_up_to(8)
        .into_iter()
        .filter(|m| m.pieces() >= 5)
    {
        let index = MaterialIndex::new(m);
        let samples = if m.pieces() <= 6 { 200 } else { 40 };
        for _ in 0..samples {
            let i = rng.gen_range(0..index.count());
            let pos = index.unrank(i);
            check_position(m, &pos);
            assert_eq!(index.rank(&pos), i, "{m} index {i}");
        }
        for i in [0, index.count() - 1] {
            assert_eq!(index.rank(&index.unrank(i)), i, "{m} index {i}");
        }
    }
}

#[test]
fn counts_match_the_closed_form_up_to_eight_pieces() {
    let all = Material::all_up_to(8);
    assert_eq!(all.len(), 406);
    for m in all {
        assert_eq!(MaterialIndex::new(m).count(), closed_form(m), "{m}");
    }
}

#[test]
fn total_counts_match_published_orders_of_magnitude() {
    // ARCHITECTURE.md: 2-5 pieces 3.2e9 positions with both sides to move,
    // 6 pieces 9.2e10.
    let sum = |lo: u32, hi: u32| -> u64 {
        Material::all_up_to(hi)
            .into_iter()
            .filter(|m| m.pieces() >= lo)
            .map(|m| MaterialIndex::new(m).count())
            .sum::<u64>()
            * 2
    };
    let up_to_5 = sum(2, 5) as f64;
    let six = sum(6, 6) as f64;
    assert!((up_to_5 / 3.2e9 - 1.0).abs() < 0.05, "{up_to_5}");
    assert!((six / 9.2e10 - 1.0).abs() < 0.05, "{six}");
}

/// Every legal placement of a small material, by brute force.
fn enumerate(m: Material) -> Vec<Position> {
    let mut out = Vec::new();
    let squares: Vec<u8> = (1..=50).collect();
    let pieces: Vec<(Color, bool)> = [
        (Color::White, false, m.white_men),
        (Color::White, true, m.white_kings),
        (Color::Black, false, m.black_men),
        (Color::Black, true, m.black_kings),
    ]
    .iter()
    .flat_map(|&(c, k, n)| std::iter::repeat_n((c, k), n as usize))
    .collect();
    fn place(pieces: &[(Color, bool)], squares: &[u8], at: Vec<u8>, out: &mut Vec<Position>) {
        if at.len() == pieces.len() {
            let mut masks = [0u64; 3];
            for (&(c, k), &s) in pieces.iter().zip(&at) {
                let bit = 1u64 << (s - 1);
                masks[if c == Color::White { 0 } else { 1 }] |= bit;
                if k {
                    masks[2] |= bit;
                }
            }
            if let Ok(p) = Position::from_dense_masks(Color::White, masks[0], masks[1], masks[2]) {
                out.push(p);
            }
            return;
        }
        let i = at.len();
        // Pieces of the same kind are placed in increasing order.
        let min = if i > 0 && pieces[i] == pieces[i - 1] {
            at[i - 1] + 1
        } else {
            1
        };
        for &s in squares.iter().filter(|&&s| s >= min) {
            if at.contains(&s) {
                continue;
            }
            let mut next = at.clone();
            next.push(s);
            place(pieces, squares, next, out);
        }
    }
    place(&pieces, &squares, Vec::new(), &mut out);
    out
}

#[test]
fn brute_force_enumeration_is_a_bijection_up_to_three_pieces() {
    for m in Material::all_up_to(3) {
        let index = MaterialIndex::new(m);
        let all = enumerate(m);
        assert_eq!(all.len() as u64, index.count(), "{m}");
        let mut seen = vec![false; index.count() as usize];
        for p in &all {
            let i = index.try_rank(p).expect("material matches") as usize;
            assert!(!seen[i], "{m}: two positions share index {i}");
            seen[i] = true;
        }
    }
}

#[test]
fn black_to_move_is_the_flipped_mirror() {
    let p: Position = "B:W28,K40:B12".parse().unwrap();
    let (m, normal) = table_position(&p);
    assert_eq!(m.to_string(), "M-KM");
    assert_eq!(normal.side_to_move(), Color::White);
    assert_eq!(normal.to_string(), "W:W39:BK11,23");
    assert_eq!(normal.flipped(), p);
    assert!(MaterialIndex::new(m).try_rank(&normal).is_some());
    assert!(MaterialIndex::new(m).try_rank(&p).is_none());
}

#[test]
fn unrank_with_cursor_matches_unrank() {
    // Materials where Black has no king (every index a placement of the
    // men and White kings of its own) and where White has none too.
    for name in [
        "KK-KK", "KM-KM", "MM-K", "K-K", "KKM-MM", "KKMM-M", "MM-MM", "M-KK",
    ] {
        let m: Material = name.parse().unwrap();
        let index = MaterialIndex::new(m);
        let mut cursor = format::UnrankCursor::default();
        let step = (index.count() / 20_000).max(1);
        for i in (0..index.count())
            .step_by(step as usize)
            .chain(0..index.count().min(5000))
        {
            assert_eq!(
                index.unrank_with(i, &mut cursor),
                index.unrank(i),
                "{m} {i}"
            );
        }
    }
}
