//! Where a rule set's tables are, from the folder a user names: the folder
//! above the rule sets' folders (`data`, holding `data/fmjd/`, ...), or a
//! folder that holds the tables themselves, whatever its name (the rule
//! set then read from their headers), as Kingsrow's driver takes it.

use std::path::{Path, PathBuf};

use format::{read_header, table_dir, table_path, RuleSet};

use crate::error::ProbeError;

/// The rule sets looked for, in this order, when none is asked for.
const SEARCH_ORDER: [RuleSet; 3] = [RuleSet::Pure, RuleSet::Fmjd, RuleSet::FmjdDiagonal];

/// The folder holding the tables under `dir` and their rule set.
///
/// - `dir/<asked rule set>/` when it is there;
/// - else `dir` itself when it holds tables: their rule set is the one in
///   the header of its first table, which must be `asked` where given;
/// - else, with no rule set asked, the first of `pure`, `fmjd` and
///   `fmjd-diagonal` whose folder is in `dir`.
///
/// # Errors
/// [`ProbeError::RuleSetMismatch`] when `dir` holds tables of another rule
/// set than the one asked, [`ProbeError::Corrupted`] when its first table's
/// header cannot be read, [`ProbeError::MissingDirectory`] when there are
/// no tables at all.
pub fn locate_tables(dir: &Path, asked: Option<RuleSet>) -> Result<(PathBuf, RuleSet), ProbeError> {
    if let Some(rule_set) = asked {
        let folder = table_dir(dir, rule_set);
        if folder.is_dir() {
            return Ok((folder, rule_set));
        }
    }
    if let Some(found) = rule_set_of_tables_in(dir)? {
        return match asked {
            Some(expected) if expected != found.1 => Err(ProbeError::RuleSetMismatch {
                path: found.0,
                expected,
                found: found.1,
            }),
            _ => Ok((dir.to_path_buf(), found.1)),
        };
    }
    if asked.is_none() {
        if let Some(rule_set) = SEARCH_ORDER
            .into_iter()
            .find(|&r| table_dir(dir, r).is_dir())
        {
            return Ok((table_dir(dir, rule_set), rule_set));
        }
    }
    let rule_set = asked.unwrap_or(RuleSet::Pure);
    let folder = table_dir(dir, rule_set);
    let source = match std::fs::read_dir(&folder) {
        Err(e) => e,
        Ok(_) => std::io::Error::new(std::io::ErrorKind::NotFound, "no tables in it"),
    };
    Err(ProbeError::MissingDirectory {
        path: folder,
        rule_set,
        source,
    })
}

/// The first table of `dir` (in build order) and the rule set its header
/// names, if `dir` holds any table.
fn rule_set_of_tables_in(dir: &Path) -> Result<Option<(PathBuf, RuleSet)>, ProbeError> {
    let Some(first) = format::list_tables(dir)
        .ok()
        .and_then(|t| t.first().copied())
    else {
        return Ok(None);
    };
    let path = table_path(dir, first);
    match read_header(&path) {
        Ok(header) => Ok(Some((path, header.rule_set))),
        Err(source) => Err(ProbeError::Corrupted { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_tables_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let err = locate_tables(dir.path(), Some(RuleSet::Fmjd)).unwrap_err();
        assert!(
            matches!(
                err,
                ProbeError::MissingDirectory {
                    rule_set: RuleSet::Fmjd,
                    ..
                }
            ),
            "{err}"
        );
        let err = locate_tables(dir.path(), None).unwrap_err();
        assert!(
            matches!(
                err,
                ProbeError::MissingDirectory {
                    rule_set: RuleSet::Pure,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn rule_set_folders_are_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("fmjd-diagonal")).unwrap();
        std::fs::create_dir(dir.path().join("fmjd")).unwrap();
        let (folder, rule_set) = locate_tables(dir.path(), None).unwrap();
        assert_eq!((folder, rule_set), (dir.path().join("fmjd"), RuleSet::Fmjd));
        let (folder, rule_set) = locate_tables(dir.path(), Some(RuleSet::FmjdDiagonal)).unwrap();
        assert_eq!(
            (folder, rule_set),
            (dir.path().join("fmjd-diagonal"), RuleSet::FmjdDiagonal)
        );
    }

    #[test]
    fn a_damaged_first_table_is_corrupted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("K-K.dtb"), b"not a table").unwrap();
        let err = locate_tables(dir.path(), None).unwrap_err();
        assert!(err.is_corrupted(), "{err}");
    }
}
