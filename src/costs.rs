//! What building the tables of each piece count costs, as measured on two
//! cores (docs/MEASUREMENTS.md, "Building"; the six-piece peak that of
//! binary 7377240, 2026-12-03): the one place the command
//! line quotes them from. README.md's table of costs shows the same
//! figures, and `tests/docs_examples.rs` holds the two together.

use std::path::Path;

use probe::RuleSet;

/// The measured cost of `dtb gen --pieces N` from an empty folder.
pub struct BuildCost {
    /// Every material up to this many pieces.
    pub pieces: u32,
    /// Wall time on two cores.
    pub time: &'static str,
    /// Peak resident memory.
    pub memory: &'static str,
    /// The tables on disk.
    pub disk: &'static str,
}

/// The default build of each piece count, fmjd (the other rule sets cost
/// the same within a few per cent).
pub const BUILD_COSTS: [BuildCost; 3] = [
    BuildCost {
        pieces: 4,
        time: "about 5 s",
        memory: "45 MiB",
        disk: "1.5 MB",
    },
    BuildCost {
        pieces: 5,
        time: "about 4 min",
        memory: "0.2 GiB",
        disk: "38 MB",
    },
    BuildCost {
        pieces: 6,
        time: "about 2.5 hours",
        memory: "2.1 GiB",
        disk: "1.1 GB",
    },
];

/// The cost of building up to `pieces` pieces, in words.
pub fn cost_in_words(pieces: u32) -> String {
    match BUILD_COSTS.iter().find(|c| c.pieces >= pieces) {
        Some(c) => format!(
            "{} on two cores, {} of memory, {} on disk",
            c.time, c.memory, c.disk
        ),
        None => "more than six pieces: see docs/building.md".into(),
    }
}

/// The `dtb gen` command that builds every table up to `pieces` pieces
/// of `rule_set` into `dir` (left out when it is the default, `data`).
pub fn gen_command(pieces: u32, rule_set: RuleSet, dir: Option<&Path>) -> String {
    let mut command = format!("dtb gen --pieces {}", pieces.max(2));
    if let Some(dir) = dir.filter(|d| *d != Path::new("data")) {
        command += " --dir ";
        command += &crate::shell::quote_if_needed(&dir.display().to_string());
    }
    if rule_set != RuleSet::Fmjd {
        command += &format!(" --rules {rule_set}");
    }
    command
}

/// How to build the missing tables of up to `pieces` pieces, with what
/// that costs.
pub fn build_hint(pieces: u32, rule_set: RuleSet, dir: Option<&Path>) -> String {
    format!(
        "build the tables with `{}` ({})",
        gen_command(pieces, rule_set, dir),
        cost_in_words(pieces)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_keeps_the_folder_and_the_rules() {
        assert_eq!(
            gen_command(5, RuleSet::Pure, Some(Path::new("/t/my tables"))),
            "dtb gen --pieces 5 --dir '/t/my tables' --rules pure"
        );
        assert_eq!(
            gen_command(3, RuleSet::Fmjd, Some(Path::new("data"))),
            "dtb gen --pieces 3"
        );
    }

    #[test]
    fn costs_cover_every_piece_count_up_to_six() {
        for pieces in 2..=6 {
            assert!(cost_in_words(pieces).contains("on two cores"));
        }
        assert!(cost_in_words(7).contains("docs/building.md"));
    }
}
