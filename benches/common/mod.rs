//! Shared by the benchmark binaries: timing and the name filter.

use std::time::Instant;

/// Median and minimum wall time (seconds) of `reps` runs of `f`.
pub fn time<F: FnMut()>(reps: usize, mut f: F) -> (f64, f64) {
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0])
}

/// The first non-flag command-line argument: only cases whose name contains it are run.
pub fn filter() -> Option<String> {
    std::env::args().skip(1).find(|a| !a.starts_with('-'))
}
