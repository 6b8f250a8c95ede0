//! Handles that are numbers, not pointers: both interfaces of the library
//! (`dtb.h`'s tablebases and the Kingsrow-style drivers of
//! `dtb_egdb.h`) give C a registry number disguised as a pointer, look it
//! up at every call and never dereference it, so a closed or made-up
//! handle is an error, not a crash.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::thread::LocalKey;

/// The next handle number of every registry (starting at 1: a handle is
/// never NULL). Numbers are never reused, and one counter serves all
/// registries, so a handle of one kind passed where another kind is
/// expected is unknown there too.
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(1);

/// The handle a thread used last, with what it stood for and the
/// registry's close count when it was looked up.
pub type RecentHandle<T> = Option<(usize, u64, Arc<T>)>;

/// The open objects of one kind by handle number.
pub struct Registry<T: 'static> {
    handles: RwLock<BTreeMap<usize, Arc<T>>>,
    /// Bumped by every close, after the handle left the registry: a
    /// thread's cached handle is trusted only while this has not moved.
    closes: AtomicU64,
    /// Probes from one thread nearly always use one handle: keeping it
    /// per thread spares the registry's lock and a reference count change
    /// per call, both written by every thread. A closed object stays
    /// allocated until the threads that cached it call again or exit.
    recent: &'static LocalKey<RefCell<RecentHandle<T>>>,
}

impl<T: 'static> Registry<T> {
    /// An empty registry whose per-thread cache is `recent`.
    pub const fn new(recent: &'static LocalKey<RefCell<RecentHandle<T>>>) -> Registry<T> {
        Registry {
            handles: RwLock::new(BTreeMap::new()),
            closes: AtomicU64::new(0),
            recent,
        }
    }

    /// Registers `object` under a fresh handle number.
    pub fn register(&self, object: T) -> usize {
        let id = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        self.handles
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, Arc::new(object));
        id
    }

    /// Runs `f` on the object of handle number `id`; `None` when no open
    /// handle has that number.
    pub fn with<R>(&self, id: usize, f: impl FnOnce(&T) -> R) -> Option<R> {
        let closes = self.closes.load(Ordering::Acquire);
        let mut f = Some(f);
        // The hit runs `f` on the cached object without touching its count.
        let hit = self
            .recent
            .try_with(|r| match &*r.borrow() {
                Some((h, seen, t)) if *h == id && *seen == closes => f.take().map(|f| f(t)),
                _ => None,
            })
            .ok()
            .flatten();
        if hit.is_some() {
            return hit;
        }
        let object = self.lookup(id)?;
        let _ = self
            .recent
            .try_with(|r| *r.borrow_mut() = Some((id, closes, Arc::clone(&object))));
        f.take().map(|f| f(&object))
    }

    fn lookup(&self, id: usize) -> Option<Arc<T>> {
        self.handles
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .cloned()
    }

    /// Removes a handle; its object is freed when no running call and no
    /// thread's cached handle holds it any more. `None` for a handle that
    /// is not open.
    pub fn unregister(&self, id: usize) -> Option<Arc<T>> {
        let removed = self
            .handles
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        // Every thread's cached handle is checked again at its next call;
        // this thread's is dropped now.
        self.closes.fetch_add(1, Ordering::AcqRel);
        let _ = self.recent.try_with(|r| r.borrow_mut().take());
        removed
    }
}
