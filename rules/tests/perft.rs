//! Perft against published counts (`tests/data/perft_public.tsv`, sources
//! in its header). The normal run checks every depth whose count is at most
//! `QUICK_LIMIT` leaves (the initial position to depth 9); the ignored test
//! checks every published depth.

use rules::{perft, perft_divide, perft_parallel, Position};

const QUICK_LIMIT: u64 = 60_000_000;

struct Case {
    fen: String,
    name: String,
    counts: Vec<u64>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/perft_public.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 3, "bad line {l}");
            Case {
                fen: cols[0].to_string(),
                name: cols[1].to_string(),
                counts: cols[2].split(',').map(|c| c.parse().unwrap()).collect(),
            }
        })
        .collect()
}

fn check(limit: u64) {
    for case in cases() {
        let pos: Position = case
            .fen
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for (i, &expected) in case.counts.iter().enumerate() {
            if expected > limit {
                break;
            }
            let depth = i as u32 + 1;
            assert_eq!(perft(&pos, depth), expected, "{} depth {depth}", case.name);
        }
    }
}

#[test]
fn published_counts_quick() {
    check(QUICK_LIMIT);
}

#[test]
fn initial_position_to_depth_nine() {
    let c = &cases()[0];
    assert_eq!(c.name, "initial");
    assert!(
        c.counts[8] <= QUICK_LIMIT,
        "depth 9 must be in the quick run"
    );
}

#[test]
#[ignore = "minutes: every published depth"]
fn published_counts_full() {
    check(u64::MAX);
}

#[test]
fn capture_geometry_positions_exactly() {
    let expected_routes: [(&str, &[&str]); 4] = [
        ("W:WK2:B7,8,17,18", &["2x2"]),
        ("W:WK4:B13,32,37,20", &[]),
        ("W:WK47:B9,19,29,28,38", &["47x4"]),
        ("W:WK1,K50:BK5,K46,23,24", &["1x15", "1x20"]),
    ];
    for (fen, texts) in expected_routes {
        let pos: Position = fen.parse().unwrap();
        let moves = pos.legal_moves();
        let mut printed: Vec<String> = moves.iter().map(|m| pos.move_to_pdn(m)).collect();
        printed.sort();
        if !texts.is_empty() {
            assert_eq!(printed, texts, "{fen}");
        }
        for m in &moves {
            assert_eq!(pos.parse_move(&pos.move_to_pdn(m)).unwrap(), *m);
        }
    }
    let windmill: Position = "W:WK2:B7,8,17,18".parse().unwrap();
    let m = windmill.legal_moves()[0];
    assert_eq!(m.capture_count(), 4);
    assert_eq!(m.from(), m.to());
    let after = windmill.play(&m);
    assert_eq!(after.to_string(), "B:WK2:B");

    let long: Position = "W:WK47:B9,19,29,28,38".parse().unwrap();
    let m = long.legal_moves()[0];
    let taken: Vec<u8> = m.captured().iter().map(|s| s.number()).collect();
    assert_eq!(taken, vec![9, 19, 29, 38]);

    let pair: Position = "W:WK1,K50:BK5,K46,23,24".parse().unwrap();
    for m in pair.legal_moves() {
        let taken: Vec<u8> = m.captured().iter().map(|s| s.number()).collect();
        assert_eq!(taken, vec![23, 24]);
    }
}

#[test]
fn divide_and_parallel_agree_with_perft() {
    for case in cases().iter().take(6) {
        let pos: Position = case.fen.parse().unwrap();
        let depth = case.counts.iter().take_while(|&&c| c < 2_000_000).count() as u32;
        let total: u64 = perft_divide(&pos, depth).iter().map(|(_, n)| n).sum();
        assert_eq!(total, case.counts[depth as usize - 1], "{}", case.name);
        assert_eq!(perft_parallel(&pos, depth), total, "{}", case.name);
    }
}
