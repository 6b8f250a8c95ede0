//! The message of the last failed call, one per thread, that
//! `dtb_last_error` returns and both interfaces set.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `msg` as this thread's last error (a NUL in it becomes a
/// space).
pub(crate) fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    // During thread teardown the thread-local may be gone: drop the
    // message rather than abort.
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = c);
}

/// This thread's last error ("" if none, or while the thread ends),
/// valid until the next call that sets one on this thread.
pub(crate) fn message() -> *const c_char {
    const NONE: &CStr = c"";
    LAST_ERROR
        .try_with(|e| e.borrow().as_ptr())
        .unwrap_or(NONE.as_ptr())
}
