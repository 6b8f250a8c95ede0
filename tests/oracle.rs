//! The 164 positions of the Kingsrow driver's example (pure game-theoretic
//! values) against our `pure` tables; positions of up to 4 pieces in the
//! normal run, all of them behind `--ignored`. For up to 4 pieces the FMJD
//! limits never change the value of a freshly entered ending (RULES.md),
//! so the `fmjd` tables must give the same answers.

mod common;

use format::{Material, RuleSet};
use gen::{generate, GenOptions};
use probe::Tablebase;
use rules::Position;

fn check(tb: &Tablebase, max_pieces: u32) -> usize {
    let mut checked = 0;
    for case in common::oracle()
        .into_iter()
        .filter(|c| c.pieces <= max_pieces)
    {
        let pos: Position = case.fen.parse().expect("oracle FEN");
        let got = tb
            .probe_wdl(&pos, None)
            .unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(
            got.as_str(),
            case.value,
            "{} under {}",
            case.fen,
            tb.rule_set()
        );
        checked += 1;
    }
    checked
}

#[test]
fn oracle_up_to_four_pieces_pure() {
    let tb = Tablebase::open(common::tables(RuleSet::Pure), RuleSet::Pure).unwrap();
    assert_eq!(check(&tb, 4), 46);
}

#[test]
fn oracle_up_to_four_pieces_fmjd() {
    let tb = Tablebase::open(common::tables(RuleSet::Fmjd), RuleSet::Fmjd).unwrap();
    assert_eq!(check(&tb, 4), 46);
}

/// Builds what the 5- and 6-piece positions need (hours for 6 pieces on
/// two cores). Set `DTB_ORACLE_DIR` to keep and reuse the tables.
#[test]
#[ignore = "hours: builds the 5- and 6-piece materials of the oracle"]
fn oracle_all_pieces_pure() {
    let kept = std::env::var_os("DTB_ORACLE_DIR").map(std::path::PathBuf::from);
    let temp = tempfile::tempdir().unwrap();
    let dir = kept.unwrap_or_else(|| temp.path().to_path_buf());
    let mut materials: Vec<Material> = Vec::new();
    for case in common::oracle() {
        let pos: Position = case.fen.parse().unwrap();
        let m = Material::of(&pos);
        if !materials.contains(&m) {
            materials.push(m);
        }
    }
    let mut options = GenOptions::new(&dir, RuleSet::Pure, 6);
    options.materials = materials;
    options.quiet = false;
    generate(&options).unwrap();
    let tb = Tablebase::open(&dir, RuleSet::Pure).unwrap();
    assert_eq!(check(&tb, 6), 164);
}

/// Every oracle position (2 to 6 pieces) against an `fmjd` set built
/// beforehand, e.g. `dtb gen --pieces 6 --dir DIR`, named by
/// `DTB_ORACLE_FMJD_DIR`: outside the counted endings, and for any counted
/// ending freshly entered, the FMJD limits do not change a value
/// (RULES.md), so the pure oracle values must hold there too.
#[test]
#[ignore = "needs a six-piece fmjd set in DTB_ORACLE_FMJD_DIR"]
fn oracle_all_pieces_fmjd_from_a_built_set() {
    let dir = std::env::var_os("DTB_ORACLE_FMJD_DIR").expect("DTB_ORACLE_FMJD_DIR");
    let tb = Tablebase::open(dir, RuleSet::Fmjd).unwrap();
    assert_eq!(check(&tb, 6), 164);
}
