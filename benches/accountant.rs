//! Benchmarks of the accountant (run by scripts/bench.sh; not timed tests).
//! Prints one line per case: name, median and min wall time over repetitions, and the target.

use std::time::Instant;
use tightdp::census::Allocation;
use tightdp::num::{parse_rational, DEFAULT_PREC};
use tightdp::pld::compose_groups;

fn time<F: FnMut()>(reps: usize, mut f: F) -> (f64, f64) {
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0])
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let alloc = Allocation::from_path(&root.join("data/allocations/dhc-2022-08-25.toml")).unwrap();
    println!("{:<58} {:>12} {:>12} {:>10}", "case", "median_ms", "min_ms", "target_ms");
    let want = |name: &str| filter.as_ref().map_or(true, |f| name.contains(f.as_str()));
    for level in &alloc.levels {
        for d in ["1e-11", "1e-5"] {
            let name = format!("level-epsilon/{}/delta={d}/prec={DEFAULT_PREC}", level.name.replace(' ', "_"));
            if !want(&name) {
                continue;
            }
            let delta = parse_rational(d).unwrap();
            let groups = alloc.level_mechanisms(level);
            let (med, min) = time(15, || {
                let prof = compose_groups(&groups, DEFAULT_PREC).unwrap();
                let e = prof.epsilon(&delta).unwrap();
                std::hint::black_box(e);
            });
            println!("{:<58} {:>12.3} {:>12.3} {:>10}", name, med * 1e3, min * 1e3, 20);
        }
    }
}
