//! Distance to conversion (DTC): the files `dtb gen --dtc` writes, checked
//! against an independent computation, and played out.
//!
//! * A forward fixed point (no retrograde moves, no slices) recomputes the
//!   DTC of every position of every material up to 3 pieces and of a few
//!   4-piece pairs, in every rule set, from the rules' move generator and
//!   the tables' results only, and must agree with `probe_dtc` exactly.
//! * Games from random decided positions: the winner plays `best_move`, the
//!   loser random moves or `best_move`; every game must end in a win for
//!   the right side, and outside the counted endings the DTC must fall by
//!   one with each winning move, and by at least one with each losing move
//!   that converts nothing: the bound the tables give. A table holding any
//!   other distance (say the distance to leaving the material, which man
//!   moves do not end) fails this.
//! * The 25-move rule: a result with DTC d holds with 50 - d king-only
//!   plies played, not with 51 - d; every move passes the count on; a line
//!   played from 50 - d keeps the result; the command line, the explorer
//!   and the prober say the same.

mod common;
mod serve_support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use format::{table_position, Material, MaterialIndex, RuleSet, Wdl};
use gen::{generate, GenOptions};
use probe::{DrawCounts, Tablebase};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Position;

/// Tables with DTC files up to 4 pieces, built once per rule set, plus a
/// five-piece pair under `fmjd`. The rule sets differ in the counted
/// endings, which are all within 4 pieces; outside them a value or a DTC
/// differs only through an exit into one, and the ignored
/// `best_moves_win_every_game_in_a_built_set` plays every rule set's full
/// five-piece set.
fn dtc_tables(rule_set: RuleSet) -> &'static Path {
    static DIRS: [OnceLock<tempfile::TempDir>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let k = RuleSet::ALL.iter().position(|&r| r == rule_set).unwrap();
    DIRS[k]
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let mut options = GenOptions::new(dir.path(), rule_set, 4);
            options.dtc = true;
            generate(&options).expect("generation up to 4 pieces");
            if rule_set != RuleSet::Fmjd {
                return dir;
            }
            options.materials = FIVE_PIECES.iter().map(|m| m.parse().unwrap()).collect();
            generate(&options).expect("generation of 5-piece pairs");
            dir
        })
        .path()
}

/// 5-piece pairs built for the games (with what they depend on: `KKK-KK`):
/// kings that can wander, a man that converts, exits into the counted
/// endings.
const FIVE_PIECES: [&str; 1] = ["KKK-KM"];

/// The result of `pos` with a freshly entered count (what a DTC keeps).
fn fresh(tb: &Tablebase, pos: &Position) -> Wdl {
    let class = Material::of(pos).counted_ending();
    tb.probe(pos).unwrap().wdl_with(tb.rule_set(), class, None)
}

/// One position of a pair, for the fixed point.
struct Node {
    wdl: Wdl,
    /// Settled from the start: 0 (no move) or 1 (a capture position).
    fixed: Option<u32>,
    /// Whether some conversion keeps the result for the side to move (for
    /// a winner: a conversion to a position lost for the opponent; for a
    /// loser: any conversion).
    converts: bool,
    /// King moves that capture nothing: the nodes they reach.
    king_moves: Vec<usize>,
}

/// The DTC of every position of `material`'s pair by a forward fixed
/// point: start from "unknown" and apply the definition until nothing
/// changes. Independent of the generator: no retrograde moves, no
/// slices, no levels. Returns each decided position with its DTC.
fn fixed_point_dtc(tb: &Tablebase, material: Material) -> Vec<(Position, u32)> {
    let mut materials = vec![material];
    if !material.is_symmetric() {
        materials.push(material.mirrored());
    }
    // Node ids: the positions of each material in index order, one
    // material after the other.
    let mut first: HashMap<Material, (usize, MaterialIndex)> = HashMap::new();
    let mut positions = Vec::new();
    for &m in &materials {
        let index = MaterialIndex::new(m);
        positions.extend((0..index.count()).map(|i| index.unrank(i)));
        first.insert(m, (positions.len() - index.count() as usize, index));
    }
    let nodes: Vec<Node> = positions.iter().map(|p| node(tb, p, &first)).collect();
    const UNKNOWN: u32 = u32::MAX;
    let mut dtc: Vec<u32> = nodes.iter().map(|n| n.fixed.unwrap_or(UNKNOWN)).collect();
    loop {
        let mut changed = false;
        for (i, n) in nodes.iter().enumerate() {
            if n.fixed.is_some() || n.wdl == Wdl::Draw {
                continue;
            }
            let through = |c: &usize| dtc[*c].saturating_add(1);
            let value = if n.wdl == Wdl::Win {
                let by_king = n
                    .king_moves
                    .iter()
                    .filter(|&&c| nodes[c].wdl == Wdl::Loss)
                    .map(through)
                    .min();
                if n.converts {
                    1
                } else {
                    by_king.unwrap_or(UNKNOWN)
                }
            } else {
                let by_king = n.king_moves.iter().map(through).max().unwrap_or(0);
                by_king.max(u32::from(n.converts))
            };
            if value != dtc[i] {
                dtc[i] = value;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    positions
        .into_iter()
        .zip(nodes.iter().zip(dtc))
        .filter(|(_, (n, _))| n.wdl != Wdl::Draw)
        .map(|(p, (_, d))| (p, d))
        .collect()
}

fn node(tb: &Tablebase, pos: &Position, first: &HashMap<Material, (usize, MaterialIndex)>) -> Node {
    let wdl = fresh(tb, pos);
    let moves = pos.legal_moves();
    let mut n = Node {
        wdl,
        fixed: None,
        converts: false,
        king_moves: Vec::new(),
    };
    if moves.is_empty() {
        n.fixed = Some(0);
        return n;
    }
    if pos.has_capture() {
        n.fixed = Some(1);
        return n;
    }
    for mv in &moves {
        let child = pos.play(mv);
        if pos.is_conversion(mv) {
            let child_wdl = if child.pieces(child.side_to_move()).is_empty() {
                Wdl::Loss
            } else {
                fresh(tb, &child)
            };
            n.converts |= wdl == Wdl::Loss || child_wdl == Wdl::Loss;
        } else {
            let (m, normal) = table_position(&child);
            let (start, index) = &first[&m];
            n.king_moves.push(start + index.rank(&normal) as usize);
        }
    }
    n
}

fn check_materials(rule_set: RuleSet, names: &[&str]) {
    let tb = Tablebase::open(dtc_tables(rule_set), rule_set).unwrap();
    for name in names {
        let material: Material = name.parse().unwrap();
        let mut checked = 0;
        for (pos, expected) in fixed_point_dtc(&tb, material) {
            assert_ne!(expected, u32::MAX, "{rule_set}: {pos} never converts");
            let stored = tb.probe_dtc(&pos).unwrap();
            assert_eq!(stored, Some(expected), "{rule_set}: {pos}");
            checked += 1;
        }
        assert!(checked > 0, "{rule_set}: {name} has no decided position");
    }
}

/// Every material up to 3 pieces (with its mirror).
fn up_to_three() -> Vec<String> {
    Material::all_up_to(3)
        .into_iter()
        .filter(|m| *m <= m.mirrored())
        .map(|m| m.to_string())
        .collect()
}

/// A few 4-piece pairs: a counted ending with men, kings and men, men
/// only.
const FOUR_PIECES: [&str; 3] = ["K-KMM", "KM-MM", "K-MMM"];

#[test]
fn dtc_agrees_with_a_forward_fixed_point_up_to_three_pieces() {
    for rule_set in RuleSet::ALL {
        let names = up_to_three();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        check_materials(rule_set, &names);
    }
}

/// All three pairs under `fmjd`; under the other rule sets only the
/// counted ending, where they differ from it (elsewhere the same solve
/// runs, and CI time is short).
#[test]
fn dtc_agrees_with_a_forward_fixed_point_on_four_piece_pairs() {
    for rule_set in RuleSet::ALL {
        let pairs = if rule_set == RuleSet::Fmjd {
            &FOUR_PIECES[..]
        } else {
            &FOUR_PIECES[..1]
        };
        check_materials(rule_set, pairs);
    }
}

/// Where a DTC file stores no values (the larger of its pair's), the
/// prober's one-ply search over the other side gives what the solver
/// stored in a build that keeps every value: compared at every 23rd
/// position of every such material up to 4 pieces, in every rule set; the
/// compact files are smaller in all.
#[test]
fn dtc_found_from_the_mirror_is_the_value_the_solver_stored() {
    for rule_set in RuleSet::ALL {
        let compact = dtc_tables(rule_set);
        let full = tempfile::tempdir().unwrap();
        let mut options = GenOptions::new(full.path(), rule_set, 4);
        options.dtc = true;
        options.compact_dtc = false;
        generate(&options).unwrap();
        let (a, b) = (
            Tablebase::open(compact, rule_set).unwrap(),
            Tablebase::open(full.path(), rule_set).unwrap(),
        );
        let dtc_path = |dir: &Path, m: Material| format::dtc_path(&dir.join(rule_set.name()), m);
        let bytes = |dir: &Path, m: Material| std::fs::metadata(dtc_path(dir, m)).unwrap().len();
        let (mut derived, mut compact_bytes, mut full_bytes) = (0, 0, 0);
        for m in Material::all_up_to(4) {
            compact_bytes += bytes(compact, m);
            full_bytes += bytes(full.path(), m);
            if !format::read_header(&dtc_path(compact, m))
                .unwrap()
                .from_mirror
            {
                continue;
            }
            derived += 1;
            assert!(format::may_come_from_mirror(m), "{rule_set}: {m}");
            let index = MaterialIndex::new(m);
            for i in (0..index.count()).step_by(23) {
                let pos = index.unrank(i);
                let (x, y) = (a.probe_dtc(&pos).unwrap(), b.probe_dtc(&pos).unwrap());
                assert_eq!(x, y, "{rule_set}: {pos}");
            }
        }
        assert!(
            derived >= 10,
            "{rule_set}: only {derived} files store no values"
        );
        assert!(
            compact_bytes < full_bytes,
            "{rule_set}: {compact_bytes} >= {full_bytes}"
        );
    }
}

/// A DTC file that stores no values where it may not (a material that is
/// its own mirror, a counted ending), or on both sides of a pair, is a
/// corrupted table to the prober, not a wrong answer or an endless search.
#[test]
fn dtc_files_that_store_no_values_where_they_may_not_are_corrupted() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = GenOptions::new(dir.path(), RuleSet::Pure, 3);
    options.dtc = true;
    generate(&options).unwrap();
    let folder = dir.path().join("pure");
    let stores_none = |name: &str| {
        let m: Material = name.parse().unwrap();
        format::read_header(&format::dtc_path(&folder, m))
            .unwrap()
            .from_mirror
    };
    let blank = |name: &str| {
        let m: Material = name.parse().unwrap();
        let path = format::dtc_path(&folder, m);
        let stats = format::read_header(&path).unwrap().stats;
        format::write_from_mirror(&path, m, RuleSet::Pure, format::ValueKind::Dtc, stats).unwrap();
    };
    // A decided position of the material, without a capture to make.
    let decided = |name: &str| {
        let tb = Tablebase::open(dir.path(), RuleSet::Pure).unwrap();
        let index = MaterialIndex::new(name.parse().unwrap());
        (0..index.count())
            .map(|i| index.unrank(i))
            .find(|p| !p.has_capture() && !p.is_lost_by_no_moves() && fresh(&tb, p) != Wdl::Draw)
            .unwrap()
    };
    let positions: Vec<Position> = ["K-K", "KK-K", "KM-M", "M-KM"]
        .iter()
        .map(|n| decided(n))
        .collect();
    for name in ["K-K", "KK-K", "KM-M", "M-KM"] {
        if !stores_none(name) {
            blank(name);
        }
    }
    let tb = Tablebase::open(dir.path(), RuleSet::Pure).unwrap();
    for pos in positions {
        let e = tb.probe_dtc(&pos).unwrap_err();
        assert!(e.is_corrupted(), "{pos}: {e}");
    }
}

/// DTC files written in blocks of 16,384 positions (the default before
/// blocks of 65,536) answer as today's: a reader takes the block size
/// from the header.
#[test]
fn dtc_files_in_the_older_block_size_answer_alike() {
    let rule_set = RuleSet::Pure;
    let today = dtc_tables(rule_set);
    let older = tempfile::tempdir().unwrap();
    let (from, to) = (today.join("pure"), older.path().join("pure"));
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
    let mut rewritten = 0;
    for m in format::list_tables(&from).unwrap() {
        let reader =
            format::TableReader::new(std::fs::read(format::dtc_path(&from, m)).unwrap()).unwrap();
        let header = reader.header().clone();
        if header.from_mirror {
            continue;
        }
        assert_eq!(header.positions_per_block, format::DEFAULT_DTC_BLOCK);
        let spec = format::TableSpec {
            positions_per_block: 16_384,
            ..format::TableSpec::new(m, rule_set, format::ValueKind::Dtc)
        };
        let mut writer = format::TableWriter::create(&format::dtc_path(&to, m), spec).unwrap();
        for byte in reader.decode_all().unwrap() {
            writer.push(Some(byte)).unwrap();
        }
        writer.finish(header.stats).unwrap();
        rewritten += usize::from(header.position_count > 16_384);
    }
    assert!(
        rewritten > 10,
        "{rewritten} files of more than one older block"
    );
    let (a, b) = (
        Tablebase::open(today, rule_set).unwrap(),
        Tablebase::open(older.path(), rule_set).unwrap(),
    );
    let mut decided = 0u64;
    for m in format::list_tables(&from).unwrap() {
        let index = MaterialIndex::new(m);
        // Every position up to three pieces, every 31st of four.
        let stride = if m.pieces() < 4 { 1 } else { 31 };
        for i in (0..index.count()).step_by(stride) {
            let pos = index.unrank(i);
            let dtc = a.probe_dtc(&pos).unwrap();
            assert_eq!(dtc, b.probe_dtc(&pos).unwrap(), "{m} {pos}");
            decided += u64::from(dtc.is_some());
        }
    }
    assert!(decided > 100_000, "{decided} decided positions");
}

/// A random decided position of the built materials (up to 5 pieces),
/// without a capture to make (random placements are mostly captures,
/// which end the game too soon to test much).
fn random_decided(tb: &Tablebase, rng: &mut SmallRng, materials: &[Material]) -> Position {
    loop {
        let m = materials[rng.gen_range(0..materials.len())];
        let index = MaterialIndex::new(m);
        let pos = index.unrank(rng.gen_range(0..index.count()));
        let pos = if rng.gen_bool(0.5) {
            pos
        } else {
            pos.flipped()
        };
        if !pos.has_capture() && fresh(tb, &pos) != Wdl::Draw {
            return pos;
        }
    }
}

/// Plays one game from `start`; the loser plays `best_move` if
/// `best_defence`, else random moves. Returns the plies played.
fn play_out(tb: &Tablebase, start: Position, best_defence: bool, rng: &mut SmallRng) -> usize {
    let winner = match fresh(tb, &start) {
        Wdl::Win => start.side_to_move(),
        _ => start.side_to_move().opponent(),
    };
    let (mut pos, mut left): (Position, Option<u8>) = (start, None);
    for ply in 0..2000 {
        if pos.legal_moves().is_empty() {
            assert_ne!(
                pos.side_to_move(),
                winner,
                "{start}: the winner ran out of moves"
            );
            return ply;
        }
        let moves = tb.move_values(&pos, left).unwrap();
        let winning = pos.side_to_move() == winner;
        let chosen = if winning || best_defence {
            moves[0]
        } else {
            moves[rng.gen_range(0..moves.len())]
        };
        let expected = if winning { Wdl::Win } else { Wdl::Loss };
        assert_eq!(
            chosen.wdl, expected,
            "{start}: at {pos} ({left:?} plies left)"
        );
        let child = pos.play(&chosen.mv);
        if Material::of(&pos).counted_ending().is_none() {
            check_dtc_step(tb, &pos, &chosen, &child, winning);
        }
        pos = child;
        left = chosen.plies_left_after;
    }
    panic!("{start}: no end after 2000 plies");
}

/// The DTC bound on one move outside the counted endings.
fn check_dtc_step(
    tb: &Tablebase,
    pos: &Position,
    chosen: &probe::MoveValue,
    child: &Position,
    winning: bool,
) {
    let d = tb.probe_dtc(pos).unwrap().expect("decided");
    let through = chosen.dtc.expect("DTC files are there");
    if pos.is_conversion(&chosen.mv) {
        assert_eq!(through, 1, "{pos}: a conversion");
        if winning {
            assert_eq!(d, 1, "{pos}: the winner converts only at DTC 1");
        }
        return;
    }
    let after = tb.probe_dtc(child).unwrap().expect("decided");
    assert_eq!(after + 1, through, "{pos}: DTC through {:?}", chosen.mv);
    if winning {
        assert_eq!(through, d, "{pos}: the winner's best move keeps the DTC");
    } else {
        assert!(through <= d, "{pos}: the loser cannot outlast the DTC");
    }
}

fn play_games(rule_set: RuleSet, games: usize, seed: u64) {
    play_games_in(dtc_tables(rule_set), rule_set, games, seed);
}

fn play_games_in(dir: &Path, rule_set: RuleSet, games: usize, seed: u64) {
    let tb = Tablebase::open(dir, rule_set).unwrap();
    let materials = tb.materials_on_disk();
    let most = if rule_set == RuleSet::Fmjd { 5 } else { 4 };
    assert!(materials.iter().any(|m| m.pieces() == most));
    play_games_from(&tb, &materials, games, seed);
}

/// Plays `games` games from random decided positions of `materials`.
fn play_games_from(tb: &Tablebase, materials: &[Material], games: usize, seed: u64) {
    let rule_set = tb.rule_set();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut plies = 0;
    for g in 0..games {
        let start = random_decided(tb, &mut rng, materials);
        plies += play_out(tb, start, g % 2 == 0, &mut rng);
    }
    eprintln!("{rule_set}: {games} games, {plies} plies in all");
    assert!(plies > games, "{rule_set}: games of {plies} plies in all");
}

/// The games on a complete set built with `--dtc` (say all 85 five-piece
/// tables): `DTB_DTC_DIR=DIR DTB_DTC_RULES=fmjd cargo test --test dtc --
/// --ignored`. `DTB_DTC_PIECES=6` starts every game from a material of
/// six pieces, `DTB_DTC_GAMES=2000` plays that many (10,000 by default).
#[test]
#[ignore = "needs a set built with dtb gen --dtc in DTB_DTC_DIR"]
fn best_moves_win_every_game_in_a_built_set() {
    let var = |name: &str| std::env::var(name).ok();
    let dir = var("DTB_DTC_DIR").expect("DTB_DTC_DIR");
    let rules: RuleSet = var("DTB_DTC_RULES")
        .unwrap_or_else(|| "fmjd".into())
        .parse()
        .unwrap();
    let games: usize = var("DTB_DTC_GAMES").map_or(10_000, |n| n.parse().unwrap());
    let tb = Tablebase::open(Path::new(&dir), rules).unwrap();
    let mut materials = tb.materials_on_disk();
    if let Some(pieces) = var("DTB_DTC_PIECES") {
        let pieces: u32 = pieces.parse().unwrap();
        materials.retain(|m| m.pieces() == pieces);
        assert!(
            !materials.is_empty(),
            "no table of {pieces} pieces in {dir}"
        );
    }
    play_games_from(&tb, &materials, games, 4);
}

#[test]
fn best_moves_win_every_game_fmjd() {
    play_games(RuleSet::Fmjd, 3400, 1);
}

#[test]
fn best_moves_win_every_game_pure() {
    play_games(RuleSet::Pure, 3300, 2);
}

#[test]
fn best_moves_win_every_game_diagonal() {
    play_games(RuleSet::FmjdDiagonal, 3300, 3);
}

/// A capture that leaves the lone-king ending, then king against man to
/// the end: a conversion, not a win in one. Its line shows both.
#[test]
fn a_capture_into_king_against_man_is_a_conversion_not_a_win_in_one() {
    let tb = Tablebase::open(dtc_tables(RuleSet::Pure), RuleSet::Pure).unwrap();
    let pos: Position = "W:WK26:B23,K42".parse().unwrap();
    assert_eq!(tb.probe_dtc(&pos).unwrap(), Some(1));
    let out = std::process::Command::new(common::dtb())
        .args(["probe", "--rules", "pure", "--line", "--dir"])
        .arg(dtc_tables(RuleSet::Pure))
        .arg("W:WK26:B23,K42")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("win in 1"), "{text}");
    assert!(text.contains("converts in 1 ply"), "{text}");
    let line = text.lines().last().unwrap();
    assert!(line.starts_with("1. 26x48 "), "{text}");
    let plies = line
        .split_whitespace()
        .filter(|w| !w.ends_with('.'))
        .count();
    assert!(plies > 3, "{text}");
    assert!(
        text.contains(&format!("game ends in {plies} plies")),
        "{text}"
    );
    let out = std::process::Command::new(common::dtb())
        .args(["probe", "--rules", "pure", "--line", "--json", "--dir"])
        .arg(dtc_tables(RuleSet::Pure))
        .arg("W:WK26:B23,K42")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dtc"], 1);
    assert_eq!(v["game_plies"], plies);
    assert_eq!(v["line"].as_array().unwrap().len(), plies);
    assert_eq!(v["line_pdn"].as_str(), Some(line));
    assert_eq!(v["lone_king_plies"], 1);
    assert!(v["counted_threshold"].is_null() && v.get("plies").is_none());
}

/// The explorer's API answers with the line where the DTC files are there,
/// as `dtb probe --json --line` does.
#[test]
fn the_explorer_api_gives_the_line() {
    let dir = dtc_tables(RuleSet::Fmjd);
    let server = serve_support::serve(dir, &[]);
    for fen in ["W:WK46,K47,28:BK5", "W:WK1:BK50", "B:WK26,K27:B23,K42"] {
        let (status, v) = serve_support::probe_api(server.addr, fen);
        assert_eq!(status, 200, "{fen}");
        assert_eq!(v, serve_support::cli_json(dir, fen, &["--line"]), "{fen}");
        assert_eq!(v["line"].is_null(), v["result"] == "draw", "{fen}: {v}");
    }
}

/// The value of `child`, reached with these counts, for its side to move.
fn child_wdl(tb: &Tablebase, child: &Position, counts: DrawCounts) -> Wdl {
    if child.pieces(child.side_to_move()).is_empty() {
        return Wdl::Loss;
    }
    tb.probe_wdl_with(child, counts).unwrap()
}

/// One decided position under the 25-move rule: the boundary, its moves
/// and its line. Returns whether the boundary could be crossed (d >= 2).
fn check_kings_only_boundary(tb: &Tablebase, pos: &Position) -> bool {
    let wdl = fresh(tb, pos);
    let d = tb.probe_dtc(pos).unwrap().expect("decided");
    assert!(d <= 50, "{pos}: DTC {d} above 50 in a table up to 5 pieces");
    let held = DrawCounts::new(None, (50 - d) as u8);
    assert_eq!(
        tb.probe_wdl_with(pos, held).unwrap(),
        wdl,
        "{pos}: 50 - {d}"
    );
    for m in tb.move_values_with(pos, held).unwrap() {
        let after = if pos.is_conversion(&m.mv) { 0 } else { 51 - d };
        if after >= 50 {
            continue; // only at d = 1: the count has run out after this move
        }
        let counts = DrawCounts::new(m.plies_left_after, after as u8);
        let child = child_wdl(tb, &pos.play(&m.mv), counts);
        assert_eq!(m.wdl, child.flipped(), "{pos}: {:?} with {}", m.mv, 50 - d);
    }
    let line = probe::principal_line(tb, pos, held)
        .unwrap()
        .expect("decided");
    assert!(line.moves.len() >= d as usize, "{pos}: {:?}", line.moves);
    if d < 2 {
        return false;
    }
    let late = DrawCounts::new(None, (51 - d) as u8);
    assert_eq!(
        tb.probe_wdl_with(pos, late).unwrap(),
        Wdl::Draw,
        "{pos}: 51 - {d}"
    );
    assert!(probe::principal_line(tb, pos, late).unwrap().is_none());
    true
}

#[test]
fn the_25_move_rule_keeps_a_result_only_while_the_conversion_comes_in_time() {
    let tb = Tablebase::open(dtc_tables(RuleSet::Fmjd), RuleSet::Fmjd).unwrap();
    let uncounted: Vec<Material> = tb
        .materials_on_disk()
        .into_iter()
        .filter(|m| m.counted_ending().is_none())
        .collect();
    let mut rng = SmallRng::seed_from_u64(25);
    let mut crossed = 0;
    for _ in 0..400 {
        let pos = random_decided(&tb, &mut rng, &uncounted);
        crossed += usize::from(check_kings_only_boundary(&tb, &pos));
    }
    assert!(crossed > 40, "{crossed} positions with a DTC of 2 or more");
    // Out of range, and where the rule does not apply.
    let pos: Position = "W:WK46,K47,28:BK5".parse().unwrap();
    assert!(tb.probe_wdl_with(&pos, DrawCounts::new(None, 50)).is_err());
    let counted = tb.probe_wdl_with(&pos, DrawCounts::new(None, 49)).unwrap();
    assert_eq!(
        counted,
        tb.probe_wdl(&pos, None).unwrap(),
        "a 16-move ending"
    );
    let pure = Tablebase::open(dtc_tables(RuleSet::Pure), RuleSet::Pure).unwrap();
    let pos: Position = "W:WK4,33:BK18,27".parse().unwrap();
    let late = pure
        .probe_wdl_with(&pos, DrawCounts::new(None, 49))
        .unwrap();
    assert_eq!(
        late,
        pure.probe_wdl(&pos, None).unwrap(),
        "pure has no limit"
    );
}

/// A decided position outside the counted endings with a DTC of 3 or more.
fn long_decided(tb: &Tablebase) -> (Position, u32) {
    let materials: Vec<Material> = vec!["KK-KK".parse().unwrap()];
    let mut rng = SmallRng::seed_from_u64(7);
    loop {
        let pos = random_decided(tb, &mut rng, &materials);
        let d = tb.probe_dtc(&pos).unwrap().expect("decided");
        if d >= 3 {
            return (pos, d);
        }
    }
}

#[test]
fn the_command_line_and_the_explorer_apply_the_25_move_rule() {
    let dir = dtc_tables(RuleSet::Fmjd);
    let tb = Tablebase::open(dir, RuleSet::Fmjd).unwrap();
    let (pos, d) = long_decided(&tb);
    let fen = pos.to_string();
    let wdl = fresh(&tb, &pos);
    let held = (50 - d).to_string();
    let late = (51 - d).to_string();
    let v = serve_support::cli_json(dir, &fen, &["--kings-only-plies", &held]);
    assert_eq!(
        (v["result"].as_str(), v["dtc"].as_u64()),
        (Some(wdl.as_str()), Some(u64::from(d)))
    );
    assert_eq!(v["kings_only_plies"], 50 - d);
    for m in v["moves"].as_array().unwrap() {
        let after = m["kings_only_plies_after"].as_u64().unwrap();
        assert!(after == 0 || after == u64::from(51 - d), "{m}");
    }
    let v = serve_support::cli_json(dir, &fen, &["--kings-only-plies", &late]);
    assert_eq!(
        (v["result"].as_str(), v["dtc"].is_null()),
        (Some("draw"), true)
    );
    let out = std::process::Command::new(common::dtb())
        .args(["probe", "--kings-only-plies", &late, "--dir"])
        .arg(dir)
        .arg(&fen)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "{fen}\ndraw ({} played with only kings moving)",
            late_plies(&late)
        )),
        "{text}"
    );
    let server = serve_support::serve(dir, &[]);
    let query = format!(
        "/api/probe?fen={}&kings_only_plies={held}",
        serve_support::encode(&fen)
    );
    let (status, body) = serve_support::get(server.addr, &query);
    assert_eq!(status, 200, "{body}");
    let api: serde_json::Value = serde_json::from_str(&body).unwrap();
    let cli = serve_support::cli_json(dir, &fen, &["--kings-only-plies", &held, "--line"]);
    assert_eq!(api, cli);
    let out = std::process::Command::new(common::dtb())
        .args(["info", "--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for table in info.as_array().unwrap() {
        let largest = table["dtc"]["largest"]
            .as_u64()
            .expect("every table has DTC");
        assert!(largest <= 50 && table["dtc"]["above_50"] == 0, "{table}");
        // Built by this code: the header records the count, and with none
        // above 50 the largest at a fresh count is the largest stored.
        assert_eq!(table["dtc"]["largest_at_fresh_count"], largest, "{table}");
    }
    let (status, _) = serve_support::get(
        server.addr,
        &format!(
            "/api/probe?fen={}&kings_only_plies=50",
            serve_support::encode(&fen)
        ),
    );
    assert_eq!(status, 400);
}

fn late_plies(n: &str) -> String {
    format!("{n} {}", if n == "1" { "ply" } else { "plies" })
}
