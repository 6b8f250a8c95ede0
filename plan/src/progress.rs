//! Progress bars for long work (indicatif), silent when asked or when
//! stderr is not a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Progress of one material pair, and of the whole run it belongs to.
pub struct Progress {
    bar: ProgressBar,
    set: Option<ProgressBar>,
    /// Positions counted but not yet shown: a bar's update costs more
    /// than a tiny slice takes to solve.
    pending: AtomicU64,
}

/// Positions gathered before the bars are moved.
const SHOW_EVERY: u64 = 1 << 16;

/// One line for a whole run (every pair to build): positions done,
/// positions per second and the time left, with each pair's bar below it.
pub struct SetProgress {
    multi: MultiProgress,
    bar: ProgressBar,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M positions/s", state.per_sec() / 1e6);
            },
        )
        .progress_chars("=> ")
}

impl SetProgress {
    /// A line over `positions` (those still to build); hidden when `quiet`
    /// or when stderr is not a terminal.
    pub fn new(positions: u64, quiet: bool) -> SetProgress {
        let multi = if quiet || !std::io::stderr().is_terminal() {
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
        } else {
            MultiProgress::new()
        };
        let bar = multi.add(ProgressBar::new(positions));
        bar.set_style(style(
            "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta} {msg}",
        ));
        bar.set_prefix("all");
        bar.enable_steady_tick(Duration::from_millis(500));
        SetProgress { multi, bar }
    }

    /// The bar of pair `name` (`positions` of them), counted in this line
    /// too.
    pub fn pair(&self, name: &str, positions: u64) -> Progress {
        let bar = self.multi.add(ProgressBar::new(positions));
        bar.set_style(style(
            "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta} {msg}",
        ));
        bar.set_prefix(name.to_string());
        Progress {
            bar,
            set: Some(self.bar.clone()),
            pending: AtomicU64::new(0),
        }
    }

    /// Sets the message after the line (what is being done).
    pub fn message(&self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    /// Removes the line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress {
    /// A bar over `positions` for the pair `name`; hidden when `quiet` or
    /// when stderr is not a terminal.
    pub fn new(name: &str, positions: u64, quiet: bool) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::with_draw_target(Some(positions), ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(positions)
        };
        bar.set_style(style(
            "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta} {msg}",
        ));
        bar.set_prefix(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress {
            bar,
            set: None,
            pending: AtomicU64::new(0),
        }
    }

    /// A silent progress (for tests and library use).
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
            set: None,
            pending: AtomicU64::new(0),
        }
    }

    /// `n` more positions passed the initial pass.
    pub fn advance(&self, n: u64) {
        if self.pending.fetch_add(n, Ordering::Relaxed) + n >= SHOW_EVERY {
            self.show_pending();
        }
    }

    /// Moves the bars by the positions gathered so far.
    fn show_pending(&self) {
        let n = self.pending.swap(0, Ordering::Relaxed);
        self.bar.inc(n);
        if let Some(set) = &self.set {
            set.inc(n);
        }
    }

    /// Propagation reached `level`.
    pub fn level(&self, level: u32) {
        self.bar.set_message(format!("level {level}"));
    }

    /// Sets the message shown after the bar.
    pub fn message(&self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.show_pending();
        self.bar.finish_and_clear();
    }
}

/// Peak resident memory of this process (Linux).
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
