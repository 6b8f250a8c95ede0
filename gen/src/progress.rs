//! Progress bars for long work (indicatif), silent when asked or when
//! stderr is not a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Progress of one material pair, and of the whole run it belongs to.
pub struct Progress {
    bar: ProgressBar,
    set: Option<ProgressBar>,
}

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
        Progress { bar, set: None }
    }

    /// A silent progress (for tests and library use).
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
            set: None,
        }
    }

    /// `n` more positions passed the initial pass.
    pub fn advance(&self, n: u64) {
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
        self.bar.finish_and_clear();
    }
}
