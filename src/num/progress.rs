//! Progress of long computations, for whoever shows it.
//!
//! An engine (or the accountant, which knows its cost estimates) wraps work that may run for seconds in
//! [`begin`], naming it and giving its estimated duration; the returned [`Guard`] ends it when dropped.
//! A front end that can show progress [`install`]s a [`Sink`] once (the command line's bar on stderr,
//! which appears only after about 2 s); without one, nothing is shown and `begin` costs a lock. Nested
//! `begin`s on one thread (a calibration evaluating many profiles) report only the outermost one.

use std::cell::Cell;
use std::sync::{Arc, RwLock};

/// Shows progress: `begin` when the outermost piece of work starts, `end` when it ends.
pub trait Sink: Send + Sync {
    fn begin(&self, what: &str, estimate_secs: f64);
    fn end(&self);
}

static SINK: RwLock<Option<Arc<dyn Sink>>> = RwLock::new(None);
thread_local! {
    /// Pieces of work open on this thread (the accountant's callers each run on their own thread).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Install the process's progress display (replacing any earlier one).
pub fn install(sink: Arc<dyn Sink>) {
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = Some(sink);
}

/// Ends the piece of work when dropped.
pub struct Guard {
    outer: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        if self.outer {
            if let Some(s) = SINK.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
                s.end();
            }
        }
    }
}

/// Start a piece of work that may take `estimate_secs` seconds.
pub fn begin(what: &str, estimate_secs: f64) -> Guard {
    let outer = DEPTH.with(|d| {
        let o = d.get() == 0;
        d.set(d.get() + 1);
        o
    });
    if outer {
        if let Some(s) = SINK.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
            s.begin(what, estimate_secs);
        }
    }
    Guard { outer }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Log(Mutex<Vec<String>>);

    impl Sink for Log {
        fn begin(&self, what: &str, est: f64) {
            self.0.lock().unwrap().push(format!("begin {what} {est}"));
        }
        fn end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    /// Only the outermost piece of work reaches the sink, and it ends when its guard drops.
    #[test]
    fn nested_work_reports_the_outermost_only() {
        let log = Arc::new(Log(Mutex::new(Vec::new())));
        install(log.clone());
        {
            let _a = begin("calibration", 30.0);
            let _b = begin("lattice", 2.0);
        }
        let got = log.0.lock().unwrap().clone();
        // other tests may report work of their own threads meanwhile: ours is a begin followed by an end
        let i = got.iter().position(|s| s == "begin calibration 30").expect("outer begin reported");
        assert!(got[i + 1..].iter().any(|s| s == "end"), "{got:?}");
        assert!(!got.iter().any(|s| s.starts_with("begin lattice")), "{got:?}");
        *SINK.write().unwrap() = None;
    }
}
