//! Every `dtb` command line shown in README.md, FORMAT.md and docs/*.md,
//! run against the binary, so that no example drifts from it.
//!
//! An example is a line of a code block (fenced, or indented by four
//! spaces) that runs `dtb` (or `cargo run --release --`, read as `dtb`),
//! optionally after a `$ ` prompt. An HTML comment on the line before a
//! block says how its examples are checked:
//!
//! - none: each line runs, in the order of the documents, in a folder
//!   whose `data/` holds every table up to four pieces (no DTC files until
//!   an example builds them) in each rule set the examples name, and must
//!   exit 0. In a block whose examples start with `$ `, the lines
//!   after one, up to the next `$ `, are its output, compared line by line.
//! - `<!-- example: exit N -->`: the same, exiting N.
//! - `<!-- example: parse-only -->` (larger tables, a cluster, a server):
//!   each `dtb` command runs with `--help` appended, so every flag and
//!   value before it must parse, and nothing else is done.
//! - `<!-- example: synopsis -->` (usage lines with placeholders): every
//!   `--flag` must be one the command's `--help` lists. So must those of a
//!   `dtb ...` written inline in the prose (`` `dtb gen --dtc` ``).
//!
//! README.md's table of build costs is held to the figures the missing
//! table hint quotes (`src/costs.rs`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use format::RuleSet;
use gen::{generate, GenOptions};

mod common;

/// How a block's examples are checked.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Run { exit: i32 },
    ParseOnly,
    Synopsis,
}

/// One example: where it is, the command line, how it is checked and the
/// output shown after it (a transcript's).
#[derive(Debug)]
struct Example {
    place: String,
    line: String,
    mode: Mode,
    output: Option<Vec<String>>,
}

/// The documents whose examples are checked.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md"), root.join("FORMAT.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The mode an HTML comment line asks for, if it is one of ours.
fn mode_of(comment: &str) -> Option<Mode> {
    let inner = comment
        .trim()
        .strip_prefix("<!-- example:")?
        .strip_suffix("-->")?
        .trim();
    match inner {
        "parse-only" => Some(Mode::ParseOnly),
        "synopsis" => Some(Mode::Synopsis),
        other => {
            let code = other.strip_prefix("exit ")?.trim().parse().ok()?;
            Some(Mode::Run { exit: code })
        }
    }
}

/// The code blocks of a markdown text: (first line number, mode, lines).
fn code_blocks(text: &str) -> Vec<(usize, Mode, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // The comment may stand a blank line above the block.
        let mode = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| mode_of(l))
            .unwrap_or(Mode::Run { exit: 0 });
        let blank_before =
            i == 0 || lines[i - 1].trim().is_empty() || mode_of(lines[i - 1]).is_some();
        if lines[i].trim_start().starts_with("```") {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !lines[end].trim_start().starts_with("```") {
                end += 1;
            }
            let body = lines[start..end].iter().map(|l| l.to_string()).collect();
            blocks.push((start + 1, mode, body));
            i = end + 1;
        } else if blank_before && lines[i].starts_with("    ") && !lines[i].trim().is_empty() {
            let start = i;
            let mut end = start;
            while end < lines.len()
                && (lines[end].starts_with("    ") || lines[end].trim().is_empty())
            {
                end += 1;
            }
            let body = lines[start..end]
                .iter()
                .map(|l| l.get(4..).unwrap_or("").to_string())
                .collect();
            blocks.push((start + 1, mode, body));
            i = end;
        } else {
            i += 1;
        }
    }
    blocks
}

/// `line` with `cargo run --release --` read as `dtb`, if it runs `dtb`.
fn as_dtb_line(line: &str) -> Option<String> {
    let line = line.trim().replace("cargo run --release -- ", "dtb ");
    let runs_dtb = line.starts_with("dtb ")
        || line == "dtb"
        || ["| dtb ", "&& dtb ", "; dtb "]
            .iter()
            .any(|joint| line.contains(joint));
    runs_dtb.then_some(line)
}

/// The examples of one document.
fn examples_of(path: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).expect("document");
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut examples = Vec::new();
    for (first, mode, body) in code_blocks(&text) {
        let transcript = body.iter().any(|l| l.starts_with("$ "));
        let mut current: Option<Example> = None;
        for (k, raw) in body.iter().enumerate() {
            let prompt = raw.strip_prefix("$ ");
            if transcript && prompt.is_none() {
                if let Some(output) = current.as_mut().and_then(|e| e.output.as_mut()) {
                    output.push(raw.trim_end().to_string());
                }
                continue;
            }
            examples.extend(current.take());
            let Some(line) = as_dtb_line(prompt.unwrap_or(raw)) else {
                continue;
            };
            current = Some(Example {
                place: format!("{name}:{}", first + k),
                line,
                mode,
                output: transcript.then(Vec::new),
            });
        }
        examples.extend(current);
    }
    examples.extend(inline_examples(&text, &name));
    for e in &mut examples {
        if let Some(out) = &mut e.output {
            while out.last().is_some_and(|l| l.is_empty()) {
                out.pop();
            }
        }
    }
    examples
}

/// The `dtb ...` command lines written inline in the prose, as synopses.
fn inline_examples(text: &str, name: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for (k, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence || line.starts_with("    ") {
            continue;
        }
        // Code spans are the odd pieces between backticks.
        for span in line.split('`').skip(1).step_by(2) {
            if let Some(line) = as_dtb_line(span) {
                found.push(Example {
                    place: format!("{name}:{}", k + 1),
                    line,
                    mode: Mode::Synopsis,
                    output: None,
                });
            }
        }
    }
    found
}

/// Splits a shell line into words, honouring quotes and backslashes;
/// operators (`|`, `&&`, `;`, `<`, `>`) become words of their own.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '|' | '&' | ';' | '<' | '>' if !in_word || word.is_empty() => {
                let mut op = c.to_string();
                while chars.peek().is_some_and(|n| "|&<>".contains(*n)) {
                    op.push(chars.next().unwrap());
                }
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                words.push(op);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The arguments of each `dtb` command of a line, redirections left out.
fn dtb_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut skip_target = false;
    let mut at_start = true;
    for word in shell_words(line) {
        if skip_target {
            skip_target = false;
            continue;
        }
        match word.as_str() {
            "|" | "||" | "&&" | ";" | "&" => {
                commands.extend(current.take());
                at_start = true;
            }
            "<" | ">" | ">>" | "2>" | "2>&1" => skip_target = word != "2>&1",
            "dtb" if at_start => {
                current = Some(Vec::new());
                at_start = false;
            }
            _ => {
                at_start = false;
                if let Some(args) = current.as_mut() {
                    args.push(word);
                }
            }
        }
    }
    commands.extend(current);
    commands
}

/// The rule sets a set of examples names (`fmjd` always).
fn rule_sets(examples: &[Example]) -> BTreeSet<&'static str> {
    let mut sets = BTreeSet::from(["fmjd"]);
    for e in examples {
        for set in ["pure", "fmjd-diagonal"] {
            if e.line.contains(&format!("--rules {set}"))
                || e.line.contains(&format!("--rules={set}"))
            {
                sets.insert(set);
            }
        }
    }
    sets
}

/// A folder whose `data/` holds the tables up to four pieces of each rule
/// set in `sets` (without DTC files: an example adds them as a reader
/// would, with `dtb gen --dtc`).
fn table_folder(sets: &BTreeSet<&'static str>) -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temp dir");
    for name in sets {
        let rule_set: RuleSet = name.parse().expect("rule set");
        let mut options = GenOptions::new(folder.path().join("data"), rule_set, 4);
        options.quiet = true;
        generate(&options).expect("tables up to four pieces");
    }
    folder
}

/// Runs a shell line in `folder` with this build's `dtb` first on the path.
fn run_line(line: &str, folder: &Path) -> Output {
    let bin_dir = common::dtb().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(folder)
        .env("PATH", path)
        .output()
        .expect("sh")
}

/// What is wrong with one example, if anything.
fn check(example: &Example, folder: &Path) -> Option<String> {
    match example.mode {
        Mode::Run { exit } => check_run(example, exit, folder),
        Mode::ParseOnly => dtb_commands(&example.line).iter().find_map(|args| {
            let out = Command::new(common::dtb())
                .args(args)
                .arg("--help")
                .current_dir(folder)
                .output()
                .expect("dtb");
            (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).trim().to_string())
        }),
        Mode::Synopsis => dtb_commands(&example.line)
            .iter()
            .find_map(|args| unknown_flag(args)),
    }
}

fn check_run(example: &Example, exit: i32, folder: &Path) -> Option<String> {
    let out = run_line(&example.line, folder);
    let code = out.status.code().unwrap_or(-1);
    if code != exit {
        return Some(format!(
            "exit {code}, not {exit}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let shown = example.output.as_ref()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    (got != *shown).then(|| format!("output differs:\n  shown: {shown:?}\n  got:   {got:?}"))
}

/// The help of `dtb COMMAND`, if there is such a command (asked once a
/// command).
fn help_of(command: &str) -> Option<String> {
    static HELP: OnceLock<Mutex<HashMap<String, Option<String>>>> = OnceLock::new();
    let mut cache = HELP.get_or_init(Default::default).lock().unwrap();
    cache
        .entry(command.to_string())
        .or_insert_with(|| {
            let out = Command::new(common::dtb())
                .args([command, "--help"])
                .output()
                .expect("dtb");
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).to_string())
        })
        .clone()
}

/// The first `--flag` of a usage line that its command's help does not
/// list (a placeholder for the command, `dtb COMMAND`, lists none).
fn unknown_flag(args: &[String]) -> Option<String> {
    let command = args.first().filter(|a| !a.starts_with('-'))?;
    if command.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let Some(help) = help_of(command) else {
        return Some(format!("no command {command}"));
    };
    let flags = listed_flags(&help);
    args.iter()
        .flat_map(|a| a.split(['[', ']', '|', '=']))
        .filter(|a| a.starts_with("--") && a.len() > 2)
        .find(|flag| !flags.contains(*flag))
        .map(|flag| format!("dtb {command} has no flag {flag}"))
}

/// The long flags a help text lists, each at the start of its line
/// (`--dir <DIR>`, `-h, --help`).
fn listed_flags(help: &str) -> BTreeSet<&str> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = match l.strip_prefix('-') {
                Some(rest) if !rest.starts_with('-') => rest.split_once(", ")?.1,
                _ => l,
            };
            l.starts_with("--")
                .then(|| l.split_whitespace().next().unwrap_or(l))
        })
        .collect()
}

#[test]
fn every_example_in_the_documents_runs() {
    let examples: Vec<Example> = documents().iter().flat_map(|d| examples_of(d)).collect();
    assert!(
        examples
            .iter()
            .filter(|e| matches!(e.mode, Mode::Run { .. }))
            .count()
            >= 5,
        "too few runnable examples found: {examples:?}"
    );
    let folder = table_folder(&rule_sets(&examples));
    let failures: Vec<String> = examples
        .iter()
        .filter_map(|e| {
            check(e, folder.path()).map(|why| format!("{}: `{}`: {why}", e.place, e.line))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "examples that fail:\n{}",
        failures.join("\n")
    );
}

/// The checker itself: a flag the binary lacks fails in each mode.
#[test]
fn an_unknown_flag_fails_in_every_mode() {
    let folder = tempfile::tempdir().unwrap();
    for mode in [Mode::Run { exit: 0 }, Mode::ParseOnly, Mode::Synopsis] {
        let example = Example {
            place: "test".into(),
            line: "dtb info --no-such-flag".into(),
            mode,
            output: None,
        };
        assert!(check(&example, folder.path()).is_some(), "{mode:?} passed");
    }
}

#[test]
fn examples_are_found_in_fenced_and_indented_blocks() {
    let text = "text\n\n```\n$ dtb info\nKK-K\n$ echo x | dtb probe -\n```\n\n<!-- example: parse-only -->\n\n    cargo run --release -- gen --pieces 6 && dtb perft start 3\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.md");
    std::fs::write(&path, text).unwrap();
    let found = examples_of(&path);
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0].output.as_deref(), Some(&["KK-K".to_string()][..]));
    assert_eq!(found[1].line, "echo x | dtb probe -");
    assert_eq!(found[2].mode, Mode::ParseOnly);
    assert_eq!(
        dtb_commands(&found[2].line),
        vec![
            vec!["gen".to_string(), "--pieces".into(), "6".into()],
            vec!["perft".into(), "start".into(), "3".into()],
        ]
    );
    assert_eq!(
        dtb_commands("dtb probe - < 'my file.txt' > out"),
        vec![vec!["probe".to_string(), "-".into()]]
    );
}

/// The costs table of README.md: the rows of `| N | ... |` under a header
/// that starts `| pieces |`, as (pieces, cells).
fn readme_costs() -> Vec<(u32, Vec<String>)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| pieces |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
        }
        if !in_table || line.starts_with("|--") || line.starts_with("|:") || line.starts_with("|-")
        {
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        if let Ok(pieces) = cells[0].parse() {
            rows.push((pieces, cells[1..].to_vec()));
        }
    }
    rows
}

#[test]
fn the_readme_quotes_the_costs_the_missing_table_hint_quotes() {
    let rows = readme_costs();
    assert!(rows.len() >= 3, "README.md has no costs table: {rows:?}");
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("fmjd")).unwrap();
    let positions = [
        (4, "W:WK46,K47:BK5,K6"),
        (5, "W:WK46,K47,K48:BK5,K6"),
        (6, "W:WK46,K47,K48:BK5,K6,K7"),
    ];
    for (pieces, cells) in rows {
        let (_, fen) = positions
            .iter()
            .find(|(p, _)| *p == pieces)
            .expect("a row for 4, 5 or 6 pieces");
        let out = Command::new(common::dtb())
            .args(["probe", "--dir"])
            .arg(folder.path())
            .arg(fen)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3));
        let hint = String::from_utf8_lossy(&out.stderr);
        assert!(
            hint.contains(&format!("dtb gen --pieces {pieces} --dir")),
            "{hint}"
        );
        for cell in cells.iter().filter(|c| !c.is_empty()) {
            assert!(
                hint.contains(cell.as_str()),
                "README's {pieces}-piece cost {cell:?} is not the hint's: {hint}"
            );
        }
    }
}
