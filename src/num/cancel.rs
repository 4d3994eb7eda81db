//! Cooperative cancellation of long computations (Ctrl-C in the Python bindings).
//!
//! A caller that can be interrupted runs its computation inside a [`Session`] ([`enter`]); on an
//! interrupt it calls [`request`]. The engines' hot loops poll [`requested`] (one atomic load) and stop
//! early: a loop that returns `Result` returns [`check`]'s error ("cancelled"), a parallel loop whose
//! items cannot fail returns a placeholder at once — its output is then meaningless, and is never
//! reported: the request stays set until the last session has ended, and a session's result is valid
//! only if [`requested`] is still false when its computation has returned (the bindings discard it
//! otherwise and raise KeyboardInterrupt).
//!
//! The flag is process-wide (rayon's worker threads serve every caller and know nothing of who called):
//! an interrupt cancels every session running at that moment. Outside a session (the command line, the
//! library called directly) nothing ever requests cancellation and the polls are a load of `false`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The state: a request flag and the number of live sessions. The request is cleared when the count
/// drops to zero (under the lock, so a session never starts between the last one ending and the flag
/// being cleared).
pub struct Flag {
    requested: AtomicBool,
    sessions: Mutex<usize>,
}

/// The process-wide flag the engines poll.
static GLOBAL: Flag = Flag::new();

/// The error of a cancelled computation.
pub const CANCELLED: &str = "cancelled";

/// True once cancellation has been requested (until every session has ended).
#[inline]
pub fn requested() -> bool {
    GLOBAL.requested()
}

/// An [`Interrupted`](crate::error::ErrorKind::Interrupted) error ("cancelled") once cancellation has
/// been requested.
#[inline]
pub fn check() -> crate::error::Fallible<()> {
    if requested() {
        crate::fallible!(Interrupted, "{CANCELLED}")
    } else {
        Ok(())
    }
}

/// Ask every running session to stop (nothing happens when none runs).
pub fn request() {
    GLOBAL.request()
}

/// Start a session, or None while a cancelled session is still winding down (wait and retry: a new
/// computation would be cancelled at once).
pub fn enter() -> Option<Session<'static>> {
    GLOBAL.enter()
}

/// A running cancellable computation; dropping it ends the session.
pub struct Session<'a>(&'a Flag);

impl Flag {
    const fn new() -> Flag {
        Flag { requested: AtomicBool::new(false), sessions: Mutex::new(0) }
    }

    #[inline]
    fn requested(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
    }

    fn request(&self) {
        let n = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if *n > 0 {
            self.requested.store(true, Ordering::Relaxed);
        }
    }

    fn enter(&self) -> Option<Session<'_>> {
        let mut n = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if self.requested() {
            return None;
        }
        *n += 1;
        Some(Session(self))
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let mut n = self.0.sessions.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        if *n == 0 {
            self.0.requested.store(false, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_lasts_until_the_last_session_ends() {
        // no session: a request is ignored (nothing to cancel, nothing left set for the next caller)
        // (a flag of its own: the global one is polled by the engines' tests running beside this one)
        let f = Flag::new();
        f.request();
        assert!(!f.requested());
        let a = f.enter().expect("no pending request");
        let b = f.enter().expect("no pending request");
        f.request();
        assert!(f.requested());
        assert!(f.enter().is_none(), "a new session must wait while a cancelled one winds down");
        drop(a);
        assert!(f.requested(), "cleared while a cancelled session still runs");
        drop(b);
        assert!(!f.requested());
        assert!(f.enter().is_some());
        assert!(check().is_ok(), "the global flag is untouched");
    }
}
