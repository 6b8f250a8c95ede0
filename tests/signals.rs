//! The prober takes no signal unasked: opening and probing
//! tables leaves the process's SIGBUS disposition as it was (Rust's own
//! runtime has one, for stack overflows), and the guard replaces it only
//! when the host asks. Read with `sigaction`, the kernel's own record.
#![cfg(target_os = "linux")]

use format::RuleSet;
use gen::{generate, GenOptions};
use rules::Position;

/// The SIGBUS handler of this process now (its address, or
/// `SIG_DFL`/`SIG_IGN`).
fn sigbus_handler() -> usize {
    // SAFETY: `sigaction` with a null new action only reads the current
    // one into the zeroed struct we own.
    unsafe {
        let mut now: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut now), 0);
        now.sa_sigaction
    }
}

#[test]
fn probing_installs_no_sigbus_handler_until_the_host_asks() {
    let before = sigbus_handler();
    let dir = tempfile::tempdir().unwrap();
    generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 3)).unwrap();
    let tb = probe::Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    for fen in ["W:WK46,K47:BK5", "W:W28:BK5", "B:W28,33:BK44"] {
        let pos: Position = fen.parse().unwrap();
        tb.probe_wdl(&pos, None).unwrap();
    }
    assert_eq!(
        sigbus_handler(),
        before,
        "probing changed the SIGBUS handler"
    );
    assert!(!probe::sigbus_guard_installed());

    probe::install_sigbus_guard();
    assert!(probe::sigbus_guard_installed());
    let guard = sigbus_handler();
    assert_ne!(guard, before, "the guard is not installed");
    // A second call changes nothing.
    probe::install_sigbus_guard();
    assert_eq!(sigbus_handler(), guard);
}
