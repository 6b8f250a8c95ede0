//! Flags shared by the subcommands that read or write tables.

use std::path::{Path, PathBuf};

use format::RuleSet;

use crate::exit::CliError;

/// The heading of the options that choose how tables are stored.
pub const LAYOUT: &str = "Layout";
/// The heading of the options that run a build or a check on a cluster.
pub const CLUSTER: &str = "Cluster (docs/building.md)";
/// The heading of the options only a cluster operator or a build of
/// seven pieces and more needs: memory budgets and split thresholds.
pub const EXPERT: &str = "Expert options (docs/cli.md)";

/// `--dir` and `--rules`.
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// Table directory (tables of each rule set live in a folder of it).
    #[arg(long, default_value = "data")]
    pub dir: PathBuf,
    /// Rule set: fmjd (16- and 5-move limits), fmjd-diagonal (plus the
    /// long-diagonal cap) or pure (no move limits).
    #[arg(long = "rules", default_value = "fmjd", value_parser = parse_rule_set)]
    pub rule_set: RuleSet,
}

fn parse_rule_set(s: &str) -> Result<RuleSet, String> {
    s.parse::<RuleSet>().map_err(|e| e.to_string())
}

/// Reads a PDN position, `start` for the initial one; the error quotes the
/// input (cut short when long).
pub fn parse_position(text: &str) -> Result<rules::Position, CliError> {
    parse_fen(text).map_err(|e| CliError::bad_input(format!("bad FEN {}: {e}", echo(text.trim()))))
}

/// Reads a PDN position, `start` for the initial one; the error does not
/// repeat the input (for lines that show it already).
pub fn parse_fen(text: &str) -> Result<rules::Position, rules::FenError> {
    if text.trim().eq_ignore_ascii_case("start") {
        return Ok(rules::Position::initial());
    }
    text.parse()
}

/// User input quoted in a message, cut short when long (an error line must
/// not repeat a megabyte of input).
pub fn echo(text: &str) -> String {
    match shortened(text) {
        (head, true) => format!("{head:?}... ({} bytes)", text.len()),
        (head, false) => format!("{head:?}"),
    }
}

/// The first 60 characters of `text`, and whether it was longer.
pub fn shortened(text: &str) -> (&str, bool) {
    const MAX_CHARS: usize = 60;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => (&text[..cut], true),
        None => (text, false),
    }
}

/// `--threads` and `--quiet`, for the commands that do long work.
#[derive(clap::Args, Clone, Debug)]
pub struct WorkArgs {
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("--threads must be a number of at least 1".into()),
    }
}

/// A material name on the command line, e.g. `KKM-K`.
pub fn parse_material(s: &str) -> Result<format::Material, String> {
    s.parse::<format::Material>().map_err(|e| e.to_string())
}

/// What a build covers and how it runs: the flags `dtb gen` and `dtb plan`
/// share (the plan lists the units of the build the same flags run).
#[derive(clap::Args, Clone, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    pub tables: TableArgs,
    /// Every material with up to this many pieces.
    #[arg(long, default_value_t = 4)]
    pub pieces: u32,
    /// Also write the distances to conversion (`.dtc` files).
    ///
    /// A `.dtc` file beside each table: `dtb probe` then shows the
    /// distances and `--line` plays the winning line. Adds a byte per
    /// position in memory while a pair is solved. Tables already built get
    /// their DTC files added.
    #[arg(long)]
    pub dtc: bool,
    #[command(flatten)]
    pub work: WorkArgs,
    /// MiB for the counted endings' lists of positions by level.
    ///
    /// Levels that do not fit are found by sweeps instead (slower, the
    /// same tables); it counts in those units' memory.
    #[arg(long, value_name = "MIB", default_value_t = 2048, help_heading = EXPERT)]
    pub queue_memory: u64,
    /// MiB of smaller tables a unit may decode whole into memory.
    ///
    /// The others are read block by block (slower, the same tables); it
    /// counts in each unit's memory.
    #[arg(long, value_name = "MIB", default_value_t = 2048, help_heading = EXPERT)]
    pub preload_memory: u64,
    /// Split slice groups of more positions than this into parts.
    ///
    /// A group weighs its positions, each placement of the men 43 more
    /// for its key; each part is a unit that reads a few parts of the next
    /// group: less memory a unit, many more units, the same tables. The
    /// default splits no pair up to seven pieces and keeps every
    /// eight-piece unit within 16 GiB.
    #[arg(long, value_name = "POSITIONS", default_value_t = plan::DEFAULT_SPLIT_GROUPS_ABOVE,
          help_heading = EXPERT)]
    pub split_groups_above: u64,
    /// Solve slices of more positions than this in 2 bits a position.
    ///
    /// Instead of 3.5 bytes a position (both sides to move): slower, the
    /// same tables; it counts in each unit's memory. A material without
    /// men, one slice, above 8 times this. Only one-man pairs of six kings
    /// or more (seven and eight pieces) and pairs without men from
    /// `KKK-KKK` on pass the default.
    #[arg(long, value_name = "POSITIONS", default_value_t = plan::DEFAULT_BITSET_SLICES_ABOVE,
          help_heading = EXPERT)]
    pub bitset_slices_above: u64,
    /// Write the tables compacted (format version 2; see docs/building.md).
    ///
    /// As `dtb compact` writes them, without its checks: the solver proves
    /// them. Each pair is compacted once the build's last reader of it is
    /// built (`--unit`: at once). A pair whose longest distance to
    /// conversion reaches the 25-move rule's limit stays version 1 (`dtb
    /// compact` checks it). A stopped build compacts what it wrote when run
    /// again.
    #[arg(long, help_heading = LAYOUT)]
    pub compact: bool,
    /// With `--compact`, keep one table of a pair where a search answers
    /// the other.
    ///
    /// The table left out is answered by a one-ply search over its mirror
    /// (see `dtb compact --one-side`).
    #[arg(long, requires = "compact", help_heading = LAYOUT)]
    pub one_side: bool,
    /// With `--one-side`, leave a side out only where that saves at least
    /// this many bits a position.
    ///
    /// Bits a position of the table left out, against keeping both sides
    /// as version 2 (see `dtb compact`).
    #[arg(long, value_name = "BITS", default_value_t = 0.0, requires = "one_side",
          value_parser = parse_saving, help_heading = LAYOUT)]
    pub min_saving: f64,
    /// These materials (and what they depend on) instead, e.g. KKM-K.
    #[arg(value_parser = parse_material)]
    pub materials: Vec<format::Material>,
}

impl BuildArgs {
    /// The build the flags describe (bad input when the sizes are out of
    /// range).
    pub fn options(&self) -> Result<plan::GenOptions, CliError> {
        let most = probe::MAX_TABLE_PIECES;
        if !(2..=most).contains(&self.pieces) {
            return Err(CliError::bad_input(format!(
                "--pieces must be between 2 and {most}"
            )));
        }
        if let Some(m) = self.materials.iter().find(|m| m.pieces() > most) {
            return Err(CliError::bad_input(format!(
                "{m} has {} pieces; at most {most} are supported",
                m.pieces()
            )));
        }
        let mut options =
            plan::GenOptions::new(self.tables.dir.clone(), self.tables.rule_set, self.pieces);
        options.materials = self.materials.clone();
        options.threads = self.work.threads;
        options.quiet = self.work.quiet;
        options.preload_bytes = self.preload_memory.saturating_mul(1 << 20);
        options.queue_bytes = self.queue_memory.saturating_mul(1 << 20);
        options.dtc = self.dtc;
        options.split_groups_above = Some(self.split_groups_above);
        options.bitset_slices_above = self.bitset_slices_above;
        options.compact = self.compact.then_some(match self.one_side {
            true => plan::Sides::One {
                min_saving: self.min_saving,
            },
            false => plan::Sides::Both,
        });
        Ok(options)
    }
}

/// A number of bits a position, at least 0.
pub fn parse_saving(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(bits) if bits.is_finite() && bits >= 0.0 => Ok(bits),
        _ => Err(format!("{text:?} is not a number of bits at least 0")),
    }
}

/// The folder of `rule_set`'s tables under `dir`, or the one-line error
/// (exit 3, a missing table) where there is none.
pub fn existing_table_folder(dir: &Path, rule_set: RuleSet) -> Result<PathBuf, CliError> {
    let folder = format::table_dir(dir, rule_set);
    if folder.is_dir() {
        return Ok(folder);
    }
    Err(CliError::new(
        crate::exit::MISSING_TABLE,
        format!(
            "{}: no tables here; {}",
            folder.display(),
            crate::costs::build_hint(4, rule_set, Some(dir))
        ),
    ))
}
