//! Reading a memory-mapped table file without dying when someone else cuts
//! it short.
//!
//! A read from a mapped page past the end of a truncated file raises
//! SIGBUS, whose default action kills the process. The prober checks the
//! file's stamp before every read of a mapping (`Table::unchanged`), which
//! catches a file rewritten between probes; this module closes the
//! remaining window (a truncation in the middle of a read): reads of a
//! mapping run inside [`guarded`], and a SIGBUS raised inside it replaces
//! the faulting page with a page of zeros, so the read finishes (and fails
//! its checksum) and the caller learns that the file changed.
//!
//! The handler is process-wide, so the library never installs it by
//! itself: a host asks for it with [`install_sigbus_guard`] (the `dtb`
//! binary does). Without it a read of a truncated page ends the process
//! with SIGBUS, as with any mapped file. Once installed, a SIGBUS outside
//! a guarded read is passed on to the handler that was installed before
//! (or to the default action, which ends the process as before).

/// The address range of a mapping (kept as numbers: the mapping may move
/// into its owner while being read).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MappedRange {
    start: usize,
    len: usize,
}

impl MappedRange {
    /// The range of `map`.
    pub(crate) fn of(map: &[u8]) -> MappedRange {
        MappedRange {
            start: map.as_ptr() as usize,
            len: map.len(),
        }
    }
}

/// Runs `read`, which reads from the mapping at `map`, and tells whether a
/// SIGBUS from a page of that mapping interrupted it: `Err(Truncated)`
/// then, and whatever `read` returned must be thrown away.
pub(crate) fn guarded<T>(map: MappedRange, read: impl FnOnce() -> T) -> Result<T, Truncated> {
    imp::guarded(map, read)
}

/// A mapped file was cut short while it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Truncated;

/// Installs the prober's SIGBUS guard: a process-wide handler for
/// SIGBUS, so that a table file cut short by another process in the middle
/// of a read gives an error (`ProbeError::Corrupted`: the file was cut
/// short while it was read) instead of ending the process.
///
/// The library never calls this by itself; a host that maps tables others
/// may rewrite asks for it once, early (the `dtb` binary does). What it
/// does to the process: it replaces the SIGBUS disposition with its own
/// handler (`sigaction` with `SA_SIGINFO | SA_ONSTACK`). A SIGBUS raised by a
/// read of a table inside the prober is absorbed (the faulting page is
/// replaced by zeros and the read fails its checksum); any other SIGBUS is
/// handed to the handler that was installed before, or to the default
/// action (the end of the process). Install it before any handler of your
/// own that should see those signals first, or not at all if your runtime
/// (a sanitizer, a JVM) owns SIGBUS. Later calls do nothing. Only Linux
/// has the guard; elsewhere this does nothing.
///
/// Without the guard, a table rewritten in place between probes is still
/// noticed (its stamp is checked before every read) and reopened; only a
/// truncation in the middle of a read ends the process, as with any mapped
/// file. Tables that nobody rewrites (draughts-tb never rewrites a finished
/// table) need no guard.
pub fn install_sigbus_guard() {
    imp::install();
}

/// Whether [`install_sigbus_guard`] has installed the handler in this
/// process (it may have been replaced since: a host's own `sigaction`
/// for SIGBUS is not seen here).
pub fn sigbus_guard_installed() -> bool {
    imp::installed()
}

#[cfg(target_os = "linux")]
mod imp {
    use std::cell::Cell;
    use std::sync::atomic::{compiler_fence, AtomicUsize, Ordering};
    use std::sync::Once;

    use super::{MappedRange, Truncated};

    thread_local! {
        // Const-initialised and without destructors: plain thread-local
        // storage, safe to touch from a signal handler on this thread.
        // The mapping being read inside `guarded` (start, length; 0: none).
        static GUARDED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
        static FAULTED: Cell<bool> = const { Cell::new(false) };
    }

    static INSTALL: Once = Once::new();
    /// The handler that was installed before ours (`libc::sigaction` as
    /// raw bytes behind a pointer leaked once), 0 until installed.
    static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
    /// The page size, read at installation (`sysconf` is not safe in a
    /// signal handler).
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// Restores the outer guard when `guarded` ends, panic or not.
    struct Restore((usize, usize));

    impl Drop for Restore {
        fn drop(&mut self) {
            compiler_fence(Ordering::SeqCst);
            GUARDED.with(|g| g.set(self.0));
        }
    }

    pub(super) fn guarded<T>(map: MappedRange, read: impl FnOnce() -> T) -> Result<T, Truncated> {
        let outer = GUARDED.with(|g| g.replace((map.start, map.len)));
        let restore = Restore(outer);
        // The handler reads GUARDED: keep the reads of the mapping after
        // the store (and before the restore).
        compiler_fence(Ordering::SeqCst);
        let value = read();
        drop(restore);
        if FAULTED.with(|f| f.replace(false)) {
            return Err(Truncated);
        }
        Ok(value)
    }

    pub(super) fn installed() -> bool {
        PREVIOUS.load(Ordering::Acquire) != 0
    }

    pub(super) fn install() {
        INSTALL.call_once(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 && (page as usize).is_power_of_two() {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: `sigaction` is called with a zeroed, then filled
            // struct and a valid pointer for the previous action; the
            // handler below only touches thread-locals without
            // destructors, atomics and the `mmap`/`sigaction`/`raise`
            // system calls.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let previous: &'static mut libc::sigaction =
                    Box::leak(Box::new(std::mem::zeroed()));
                if libc::sigaction(libc::SIGBUS, &action, previous) == 0 {
                    PREVIOUS.store(previous as *mut libc::sigaction as usize, Ordering::Release);
                }
            }
        });
    }

    /// The SIGBUS handler: a fault on a page of the mapping this thread is
    /// reading inside `guarded` (a read past the end of a file cut short,
    /// `BUS_ADRERR`) gets a page of zeros; anything else is passed on.
    extern "C" fn on_sigbus(
        sig: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        let (start, len) = GUARDED.with(|g| g.get());
        // SAFETY: `info` is the kernel's description of this signal.
        let (code, address) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        let ours = len > 0 && code == libc::BUS_ADRERR && address.wrapping_sub(start) < len;
        if ours && zero_page_at(address) {
            FAULTED.with(|f| f.set(true));
            return; // the faulting read runs again and reads zeros
        }
        pass_on(sig, info, context);
    }

    /// Maps a page of zeros over the page holding `address`.
    fn zero_page_at(address: usize) -> bool {
        let page = PAGE.load(Ordering::Relaxed);
        let start = address & !(page - 1);
        // SAFETY: the page lies in a table mapping that this thread is
        // reading inside `guarded` (the only place a SIGBUS is expected
        // from); replacing it with anonymous zeros keeps the address range
        // mapped and readable until the mapping itself is dropped, and the
        // caller then throws away both the bytes read and the table.
        let mapped = unsafe {
            libc::mmap(
                start as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        mapped != libc::MAP_FAILED
    }

    /// Hands a SIGBUS that is not ours to the handler installed before.
    fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let previous = PREVIOUS.load(Ordering::Acquire) as *const libc::sigaction;
        // SAFETY: `previous` was leaked at installation and is never freed.
        let Some(previous) = (unsafe { previous.as_ref() }) else {
            return;
        };
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // Restore it: a faulting instruction runs again and the
            // default action ends the process, as without us; a signal
            // sent by a process (si_code <= 0) is raised again.
            // SAFETY: `previous` is a valid action read back from the
            // kernel at installation; `info` is the kernel's.
            unsafe {
                libc::sigaction(sig, previous, std::ptr::null_mut());
                if (*info).si_code <= 0 {
                    libc::raise(sig);
                }
            }
        } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous handler was installed with SA_SIGINFO,
            // so it has this signature.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            f(sig, info, context);
        } else {
            // SAFETY: a plain handler takes the signal number only.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            f(sig);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{MappedRange, Truncated};

    pub(super) fn guarded<T>(_map: MappedRange, read: impl FnOnce() -> T) -> Result<T, Truncated> {
        Ok(read())
    }

    pub(super) fn install() {}

    pub(super) fn installed() -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A file cut short under its mapping: reading the lost pages inside
    /// `guarded` reports the truncation instead of killing the process.
    #[test]
    fn a_truncated_mapping_is_reported_not_fatal() {
        install_sigbus_guard();
        assert!(sigbus_guard_installed());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table");
        std::fs::write(&path, vec![7u8; 1 << 16]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the test truncates the file on purpose; reads of the
        // lost pages happen only inside `guarded`.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        assert_eq!(guarded(MappedRange::of(&map), || map[40_000]), Ok(7));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        let sum = guarded(MappedRange::of(&map), || {
            map.iter().map(|&b| b as u64).sum::<u64>()
        });
        assert_eq!(sum, Err(Truncated));
        // The first page is still the file's.
        assert_eq!(guarded(MappedRange::of(&map), || map[10]), Ok(7));
    }
}
