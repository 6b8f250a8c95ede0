//! `MANIFEST.json`: one line per table of a rule set's folder (file, size,
//! SHA-256 of the whole file, positions, statistics), and per DTC file
//! (`.dtc`, after its material's table; its longest win and loss are the
//! largest DTC values), written by `gen` and checked by `verify`, so that
//! two people can compare their sets.
//!
//! Not a CRC-32: a table's header ends with its own CRC-32, so the CRC-32
//! of any valid header is one constant, and a whole-file CRC-32 cannot see
//! an edit of the header that re-seals it.

use std::path::Path;

use crate::{RuleSet, FORMAT_VERSION, OLDEST_FORMAT_VERSION};
use serde::{Deserialize, Serialize};
use sha2::Digest;

use crate::error::FormatError;

/// The manifest's file name inside a rule set's folder.
pub const MANIFEST: &str = "MANIFEST.json";
/// The longest manifest read (far more than any set needs).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// Statistics of one table (White to move).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestStats {
    /// Wins for the side to move.
    pub win: u64,
    /// Draws.
    pub draw: u64,
    /// Losses for the side to move.
    pub loss: u64,
    /// Longest win in plies (distance tables).
    pub longest_win: Option<u32>,
    /// Longest loss in plies (distance tables).
    pub longest_loss: Option<u32>,
}

/// One table in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// File name.
    pub file: String,
    /// Material name.
    pub material: String,
    /// File size in bytes.
    pub bytes: u64,
    /// SHA-256 of the whole file, 64 hex digits.
    pub sha256: String,
    /// Positions (White to move).
    pub positions: u64,
    /// Statistics (White to move).
    pub stats: ManifestStats,
}

/// The whole manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Table format version: the newest among its files (1 for a set as
    /// `dtb gen` writes it, 2 once `dtb compact` rewrote a table).
    pub format_version: u32,
    /// Rule set name.
    pub rules: String,
    /// Tables in build order.
    pub tables: Vec<ManifestEntry>,
}

fn entry(path: &Path, rule_set: RuleSet) -> Result<Option<ManifestEntry>, FormatError> {
    let h = match crate::read_header(path) {
        Ok(h) if h.rule_set == rule_set => h,
        Ok(_) => return Ok(None),
        Err(e) if e.is_corruption() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut sha = sha2::Sha256::new();
    let bytes = crate::read_chunks(path, 0, |chunk| sha.update(chunk))?;
    Ok(Some(ManifestEntry {
        file: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        material: h.material.to_string(),
        bytes,
        sha256: hex(&sha.finalize()),
        positions: h.position_count,
        stats: ManifestStats {
            win: h.stats.win,
            draw: h.stats.draw,
            loss: h.stats.loss,
            longest_win: h.stats.longest_win,
            longest_loss: h.stats.longest_loss,
        },
    }))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest of the tables now in `dir` (a rule set's folder).
pub fn scan(dir: &Path, rule_set: RuleSet) -> Result<Manifest, FormatError> {
    let mut tables = Vec::new();
    let mut format_version = OLDEST_FORMAT_VERSION;
    for m in crate::list_tables(dir)? {
        let path = dir.join(m.file_name());
        if let Some(e) = entry(&path, rule_set)? {
            if crate::read_header(&path).is_ok_and(|h| h.version() == crate::FORMAT_VERSION) {
                format_version = FORMAT_VERSION;
            }
            tables.push(e);
        }
        // The material's DTC file, if built, right after its table.
        let dtc = crate::dtc_path(dir, m);
        if dtc.exists() {
            if let Some(e) = entry(&dtc, rule_set)? {
                tables.push(e);
            }
        }
    }
    Ok(Manifest {
        format_version,
        rules: rule_set.name().to_string(),
        tables,
    })
}

/// Writes `MANIFEST.json` for the tables in `dir`, atomically.
pub fn write(dir: &Path, rule_set: RuleSet) -> Result<(), FormatError> {
    let manifest = scan(dir, rule_set)?;
    let text =
        serde_json::to_string_pretty(&manifest).map_err(|e| FormatError::Writer(e.to_string()))?;
    let path = dir.join(MANIFEST);
    let temp = dir.join(format!("{MANIFEST}.partial"));
    std::fs::write(&temp, text + "\n").map_err(|e| FormatError::io(&temp, e))?;
    std::fs::File::open(&temp)
        .and_then(|f| f.sync_all())
        .map_err(|e| FormatError::io(&temp, e))?;
    std::fs::rename(&temp, &path).map_err(|e| FormatError::io(&path, e))?;
    crate::sync_parent(&path);
    Ok(())
}

/// Compares `MANIFEST.json` with the tables in `dir`; one line per
/// difference (an empty list: they agree).
pub fn check(dir: &Path, rule_set: RuleSet) -> Result<Vec<String>, FormatError> {
    let path = dir.join(MANIFEST);
    let bytes = match crate::read_regular(&path, MAX_MANIFEST_BYTES) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => {
            return Ok(vec![format!(
                "{} is missing (dtb gen writes it)",
                path.display()
            )])
        }
        Err(e) => return Ok(vec![format!("{} cannot be read: {e}", path.display())]),
    };
    let text = String::from_utf8_lossy(&bytes);
    let listed: Manifest = match serde_json::from_str(&text) {
        Ok(m) => m,
        Err(e) => {
            return Ok(vec![format!(
                "{} is not a valid manifest: {e}",
                path.display()
            )])
        }
    };
    let mut problems = Vec::new();
    if listed.rules != rule_set.name() {
        problems.push(format!(
            "manifest is for rule set {}, not {rule_set}",
            listed.rules
        ));
    }
    let actual = scan(dir, rule_set)?;
    for e in &listed.tables {
        match actual.tables.iter().find(|a| a.file == e.file) {
            None => problems.push(format!(
                "{}: listed in the manifest but missing or unreadable",
                e.file
            )),
            Some(a) if a != e => problems.push(format!(
                "{}: differs from the manifest (size {} vs {}, sha256 {} vs {})",
                e.file, a.bytes, e.bytes, a.sha256, e.sha256
            )),
            Some(_) => {}
        }
    }
    for a in &actual.tables {
        if !listed.tables.iter().any(|e| e.file == a.file) {
            problems.push(format!("{}: not listed in the manifest", a.file));
        }
    }
    Ok(problems)
}
