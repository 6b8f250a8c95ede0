//! Progress bars for long work (indicatif), silent when asked or when
//! stderr is not a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Progress of one material pair.
pub struct Progress {
    bar: ProgressBar,
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
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta} {msg}",
            )
            .expect("valid template")
            .with_key(
                "rate",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.2} M positions/s", state.per_sec() / 1e6);
                },
            )
            .progress_chars("=> "),
        );
        bar.set_prefix(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress { bar }
    }

    /// A silent progress (for tests and library use).
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
        }
    }

    /// `n` more positions passed the initial pass.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
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
