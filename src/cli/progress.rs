//! The command line's progress bar (`num::progress`): work estimated or found to run longer than about
//! 2 s shows a bar on stderr with the elapsed time and the accountant's estimate. Hidden when stderr is
//! not a terminal (indicatif's default), so scripts and tests see one-line errors only.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Seconds before a bar appears.
const SHOW_AFTER: f64 = 2.0;

#[derive(Default)]
pub struct Bar {
    running: Mutex<Option<Arc<AtomicBool>>>,
}

impl crate::num::progress::Sink for Bar {
    fn begin(&self, what: &str, estimate_secs: f64) {
        let stop = Arc::new(AtomicBool::new(false));
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(stop.clone());
        let what = what.to_string();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed().as_secs_f64() < SHOW_AFTER {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let est_ms = (estimate_secs.max(SHOW_AFTER) * 1000.0) as u64;
            let pb = ProgressBar::with_draw_target(Some(est_ms), ProgressDrawTarget::stderr());
            pb.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {elapsed} of ~{prefix} estimated")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            pb.set_prefix(format!("{:.0} s", estimate_secs.max(SHOW_AFTER)));
            pb.set_message(what);
            while !stop.load(Ordering::Relaxed) {
                let ms = t0.elapsed().as_millis() as u64;
                pb.set_position(ms.min(est_ms.saturating_mul(99) / 100));
                std::thread::sleep(Duration::from_millis(200));
            }
            pb.finish_and_clear();
        });
    }

    fn end(&self) {
        if let Some(s) = self.running.lock().unwrap_or_else(|e| e.into_inner()).take() {
            s.store(true, Ordering::Relaxed);
        }
    }
}
