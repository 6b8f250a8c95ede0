// The prober's end-to-end suite, included by `tests/probe_e2e.rs` once per
// storage mode (`STORAGE` is defined by the including module).

use format::{Material, MaterialIndex, RuleSet, Wdl};
use probe::{ProbeError, Tablebase, TablebaseOptions};

use super::common;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rules::{Color, CountedEnding, Position};

/// The tables of `rule_set` in `dir`, read as this suite's `STORAGE`
/// says.
fn open(dir: impl AsRef<std::path::Path>, rule_set: RuleSet) -> Result<Tablebase, ProbeError> {
    Tablebase::open_with(dir, rule_set, TablebaseOptions::default().with_storage(STORAGE))
}

fn fmjd() -> Tablebase {
    open(common::tables(RuleSet::Fmjd), RuleSet::Fmjd).unwrap()
}

fn pos(fen: &str) -> Position {
    fen.parse().unwrap()
}

/// Random positions of the given materials, either side to move.
fn sample(names: &[&str], n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..n {
        let m: Material = names[rng.gen_range(0..names.len())].parse().unwrap();
        let index = MaterialIndex::new(m);
        let p = index.unrank(rng.gen_range(0..index.count()));
        out.push(if rng.gen_bool(0.5) { p } else { p.flipped() });
    }
    out
}

#[test]
fn elementary_values() {
    let tb = fmjd();
    // A man against a man that must capture it: the capture wins.
    assert_eq!(tb.probe_wdl(&pos("W:W28:B33"), None).unwrap(), Wdl::Win);
    // No legal move: lost.
    assert_eq!(tb.probe_wdl(&pos("W:W46:B41,37"), None).unwrap(), Wdl::Loss);
    // King against king, nobody can force anything.
    assert_eq!(tb.probe_wdl(&pos("W:WK1:BK50"), None).unwrap(), Wdl::Draw);
    // Black to move takes the king on 28 with its king from 46... along
    // the long diagonal: win for Black.
    assert_eq!(tb.probe_wdl(&pos("B:WK28:BK46"), None).unwrap(), Wdl::Win);
}

#[test]
fn capture_positions_are_resolved() {
    let tb = fmjd();
    // Every capture position gets the value its best capture leads to,
    // found here from the positions the legal captures reach.
    let mut seen = 0;
    for p in sample(&["KM-K", "KK-KM", "MM-MM", "KMM-K", "KK-KK"], 3000, 1) {
        if !p.has_capture() {
            continue;
        }
        let v = tb.probe_wdl(&p, None).unwrap();
        let best = p
            .legal_moves()
            .iter()
            .map(|m| tb.probe_wdl(&p.play(m), None).unwrap().flipped())
            .max()
            .expect("a capture position has a move");
        assert_eq!(v, best, "{p}");
        assert_eq!(tb.move_values(&p, None).unwrap()[0].wdl, best, "{p}");
        seen += 1;
    }
    assert!(seen >= 100, "only {seen} capture positions sampled");
}

/// The value of every position agrees with the values of its moves, and
/// every move's value with the value of the position it reaches under the
/// counter the move passes on, for every state of the counter, in every
/// rule set.
#[test]
fn answers_agree_with_their_moves() {
    for rule_set in RuleSet::ALL {
        let tb = open(common::tables(rule_set), rule_set).unwrap();
        for p in sample(
            &[
                "KKM-K", "KMM-K", "KKK-K", "KM-K", "KK-K", "K-K", "KM-KM", "MM-M",
            ],
            1500,
            2,
        )
        .into_iter()
        .chain(lone_kings_on_the_long_diagonal())
        {
            let class = Material::of(&p).counted_ending();
            let plies: Vec<Option<u8>> = match class {
                Some(c) => (0..=c.plies()).map(Some).chain([None]).collect(),
                None => vec![None],
            };
            for r in plies {
                check_position_against_moves(&tb, &p, r);
            }
        }
    }
}

/// Positions of the 16-move endings whose lone king is alone on the long
/// diagonal: where `fmjd-diagonal` caps the counter.
fn lone_kings_on_the_long_diagonal() -> Vec<Position> {
    sample(&["KKM-K", "KMM-K", "KKK-K"], 3000, 3)
        .into_iter()
        .filter(rules::lone_king_alone_on_long_diagonal)
        .collect()
}

fn check_position_against_moves(tb: &Tablebase, p: &Position, r: Option<u8>) {
    let rules = tb.rule_set();
    let v = tb.probe_counted(p, r).unwrap();
    let moves = tb.move_values(p, r).unwrap();
    let best = moves.first().map(|m| m.wdl).unwrap_or(Wdl::Loss);
    let counted = Material::of(p).counted_ending().is_some();
    if r == Some(0) && !moves.is_empty() && rules.has_move_limits() {
        assert_eq!(v.wdl, Wdl::Draw, "{rules}: {p} with no plies left");
        assert!(moves.iter().all(|m| m.wdl == Wdl::Draw), "{rules}: {p}");
        return;
    }
    assert_eq!(v.wdl, best, "{rules}: {p} with {r:?} plies left");
    if let (Some(d), Some(m)) = (v.plies, moves.first()) {
        if counted && v.wdl != Wdl::Draw {
            assert_eq!(Some(d), m.plies, "{rules}: {p} with {r:?} plies left");
        }
    }
    for m in &moves {
        let child = p.play(&m.mv);
        if child.pieces(child.side_to_move()).is_empty() {
            continue;
        }
        let after = tb.probe_counted(&child, m.plies_left_after).unwrap();
        assert_eq!(
            after.wdl.flipped(),
            m.wdl,
            "{rules}: {p} with {r:?} plies left, move {}",
            p.move_to_pdn(&m.mv)
        );
    }
}

/// Under `fmjd-diagonal` a lone king alone on the long diagonal
/// caps the counter at 10 plies for the moves too, not only for the
/// position's own value.
#[test]
fn move_values_honour_the_long_diagonal_cap() {
    let tb = open(common::tables(RuleSet::FmjdDiagonal), RuleSet::FmjdDiagonal).unwrap();
    let p = pos("B:WK23:BK16,45,K49");
    assert_eq!(tb.probe_wdl(&p, Some(13)).unwrap(), Wdl::Draw);
    let moves = tb.move_values(&p, Some(13)).unwrap();
    assert!(!moves.is_empty());
    for m in &moves {
        assert_ne!(
            m.wdl,
            Wdl::Win,
            "{} with 13 plies left",
            p.move_to_pdn(&m.mv)
        );
    }
    // Under plain fmjd the same counter leaves room for the win.
    let fmjd = fmjd();
    assert_eq!(fmjd.probe_wdl(&p, Some(13)).unwrap(), Wdl::Win);
    let best = fmjd.best_move(&p, Some(13)).unwrap().unwrap();
    assert_eq!(best.wdl, Wdl::Win);
}

/// RULES.md: the longest wins are 31 and 29 plies in the 16-move class,
/// 9 and 7 in the 5-move class; some losses take exactly 32 plies.
#[test]
fn longest_counted_endings_and_the_boundary() {
    let dir = common::tables(RuleSet::Fmjd);
    let tb = fmjd();
    let longest = |name: &str| {
        let bytes = std::fs::read(dir.join("fmjd").join(format!("{name}.dtb"))).unwrap();
        let r = format::TableReader::new(&bytes[..]).unwrap();
        (r.header().stats.longest_win, r.header().stats.longest_loss)
    };
    assert_eq!(longest("KKM-K").0, Some(31));
    assert_eq!(longest("KMM-K").0, Some(29));
    assert_eq!(longest("KM-K").0, Some(9));
    assert_eq!(longest("KK-K").0, Some(7));
    assert_eq!(longest("K-KKM").1, Some(32));
    // Find positions at the extremes and check the value flips exactly at
    // the boundary.
    for (name, d) in [
        ("KKM-K", 31u8),
        ("KMM-K", 29),
        ("KM-K", 9),
        ("KK-K", 7),
        ("K-KKM", 32),
    ] {
        let m: Material = name.parse().unwrap();
        let index = MaterialIndex::new(m);
        let found = (0..index.count())
            .map(|i| index.unrank(i))
            .find(|p| tb.probe(p).unwrap().distance == Some(d))
            .unwrap_or_else(|| panic!("no {name} position at distance {d}"));
        let result = tb.probe(&found).unwrap().wdl;
        assert_ne!(result, Wdl::Draw);
        assert_eq!(tb.probe_wdl(&found, Some(d)).unwrap(), result, "{found}");
        assert_eq!(
            tb.probe_wdl(&found, Some(d - 1)).unwrap(),
            Wdl::Draw,
            "{found}"
        );
        assert_eq!(tb.probe_wdl(&found, None).unwrap(), result, "{found}");
    }
}

/// A capture from a 16-move ending into a 5-move one keeps the earlier
/// deadline: with `r` plies left, the 5-move position is reached with
/// `min(r - 1, 10)`.
#[test]
fn captures_into_the_five_move_class_keep_the_earlier_deadline() {
    let tb = fmjd();
    let mut seen = 0;
    for p in sample(&["K-KKM", "K-KKK", "KKM-K", "KKK-K"], 20_000, 3) {
        if !p.has_capture() || Material::of(&p).counted_ending() != Some(CountedEnding::SixteenMove)
        {
            continue;
        }
        let children: Vec<Position> = p.legal_moves().iter().map(|m| p.play(m)).collect();
        if !children
            .iter()
            .all(|c| Material::of(c).counted_ending() == Some(CountedEnding::FiveMove))
        {
            continue;
        }
        for r in 1..=32u8 {
            let child_r = (r - 1).min(10);
            let mut best = Wdl::Loss;
            for c in &children {
                let v = tb.probe_wdl(c, Some(child_r)).unwrap().flipped();
                best = best.max(v);
            }
            assert_eq!(
                tb.probe_wdl(&p, Some(r)).unwrap(),
                best,
                "{p} with {r} plies left"
            );
        }
        seen += 1;
    }
    assert!(seen > 50, "only {seen} positions");
}

#[test]
fn errors_are_values() {
    let tb = fmjd();
    let e = tb
        .probe_wdl(&pos("W:WK1,K2,K3:BK4,K5,K6"), None)
        .unwrap_err();
    assert!(matches!(e, ProbeError::MissingTable { .. }), "{e}");
    assert!(e.to_string().contains("KKK-KKK"), "{e}");
    let e = tb.probe_wdl(&pos("W:WK1:B"), None).unwrap_err();
    assert!(matches!(e, ProbeError::InvalidPosition(_)), "{e}");
    let e = tb.probe_wdl(&pos("W:WK1,K2:BK50"), Some(11)).unwrap_err();
    assert!(
        matches!(e, ProbeError::BadPliesLeft { got: 11, max: 10 }),
        "{e}"
    );
    let e = tb.probe_wdl(&Position::initial(), None).unwrap_err();
    assert!(
        matches!(e, ProbeError::TooManyPieces { pieces: 40, .. }),
        "{e}"
    );
    // A side to move without pieces has lost.
    assert_eq!(tb.probe_wdl(&pos("B:WK1:B"), None).unwrap(), Wdl::Loss);
    // The pure tables are not found under the fmjd name: opening says so
    // at once, as it does for a directory that is not there.
    let e = open(common::tables(RuleSet::Fmjd), RuleSet::Pure)
        .err()
        .expect("no pure folder");
    assert!(
        matches!(
            e,
            ProbeError::MissingDirectory {
                rule_set: RuleSet::Pure,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.is_missing_table());
    let e = open("/nonexistent/tables", RuleSet::Fmjd)
        .err()
        .expect("no such directory");
    assert!(e.to_string().contains("/nonexistent/tables/fmjd"), "{e}");
    // A file where the folder should be.
    let file = tempfile::NamedTempFile::new().unwrap();
    assert!(open(file.path(), RuleSet::Fmjd).is_err());
}

#[test]
fn a_file_of_another_rule_set_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::tables(RuleSet::Fmjd).join("fmjd");
    std::fs::create_dir_all(dir.path().join("pure")).unwrap();
    std::fs::copy(src.join("K-K.dtb"), dir.path().join("pure").join("K-K.dtb")).unwrap();
    let tb = open(dir.path(), RuleSet::Pure).unwrap();
    let e = tb.probe_wdl(&pos("W:WK1:BK50"), None).unwrap_err();
    assert!(matches!(e, ProbeError::RuleSetMismatch { .. }), "{e}");
    // A damaged copy is reported as corrupted, naming the file.
    let bytes = std::fs::read(src.join("KM-K.dtb")).unwrap();
    std::fs::create_dir_all(dir.path().join("fmjd")).unwrap();
    let path = dir.path().join("fmjd").join("KM-K.dtb");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let tb = open(dir.path(), RuleSet::Fmjd).unwrap();
    let e = tb.probe_wdl(&pos("W:WK1,28:BK50"), None).unwrap_err();
    assert!(e.is_corrupted(), "{e}");
    assert!(e.to_string().contains("KM-K.dtb"), "{e}");
}

#[test]
fn cached_only_probes_answer_after_a_real_probe() {
    let tb = Tablebase::open_with(
        common::tables(RuleSet::Fmjd),
        RuleSet::Fmjd,
        TablebaseOptions::with_cache_bytes(1 << 20).with_storage(STORAGE),
    )
    .unwrap();
    let p = pos("W:WK1,K2:BK50");
    assert_eq!(tb.probe_wdl_if_cached(&p, None).unwrap(), None);
    let v = tb.probe_wdl(&p, None).unwrap();
    assert_eq!(tb.probe_wdl_if_cached(&p, None).unwrap(), Some(v));
}

#[test]
fn many_threads_agree_with_one() {
    let tb = fmjd();
    let positions = sample(
        &["KKM-K", "KM-KM", "MM-MM", "K-KKK", "KMM-K", "M-M", "KM-K"],
        4000,
        4,
    );
    let single: Vec<Wdl> = positions
        .iter()
        .map(|p| tb.probe_wdl(p, None).unwrap())
        .collect();
    let fresh = Tablebase::open_with(
        common::tables(RuleSet::Fmjd),
        RuleSet::Fmjd,
        TablebaseOptions::with_cache_bytes(256 << 10).with_storage(STORAGE),
    )
    .unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let (fresh, positions, single) = (&fresh, &positions, &single);
            s.spawn(move || {
                for k in 0..positions.len() {
                    let i = (k * 7 + t * 131) % positions.len();
                    assert_eq!(fresh.probe_wdl(&positions[i], None).unwrap(), single[i]);
                }
            });
        }
    });
}

#[test]
fn black_to_move_equals_the_flipped_white_to_move() {
    let tb = fmjd();
    for p in sample(&["KKM-K", "KM-KM", "MM-M", "K-KK"], 2000, 5) {
        let a = tb.probe_counted(&p, None).unwrap();
        let b = tb.probe_counted(&p.flipped(), None).unwrap();
        assert_eq!(a, b, "{p}");
        assert!(p.side_to_move() == Color::White || p.flipped().side_to_move() == Color::White);
    }
}

/// A folder that holds the tables themselves opens whatever its name:
/// the same answers as through the folder above it. Its tables' rule set
/// must be the one asked for.
#[test]
fn a_folder_of_tables_opens_whatever_its_name() {
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("wld_v2");
    common::copy_dir::copy_dir(&common::tables(RuleSet::Fmjd).join("fmjd"), &folder);
    let own = open(&folder, RuleSet::Fmjd).unwrap();
    let tb = fmjd();
    for p in sample(&["KKM-K", "KM-KM", "MM-MM", "K-KK"], 2000, 7) {
        for r in [None, Some(1), Some(10)] {
            let want = tb.probe_wdl(&p, r).ok();
            assert_eq!(own.probe_wdl(&p, r).ok(), want, "{p} with {r:?} plies left");
        }
    }
    match open(&folder, RuleSet::Pure) {
        Err(ProbeError::RuleSetMismatch {
            expected: RuleSet::Pure,
            found: RuleSet::Fmjd,
            ..
        }) => {}
        Err(e) => panic!("pure tables asked of an fmjd folder: {e}"),
        Ok(_) => panic!("pure tables asked of an fmjd folder opened"),
    }
}
