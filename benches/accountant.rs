//! Benchmarks of the accountant (run by scripts/bench.sh; not timed tests).
//! Prints one line per case: name, median and min wall time over repetitions, and the target.

mod common;
use common::time;
use tightdp::compose_groups;
use tightdp::Allocation;
use tightdp::{parse_rational, DEFAULT_PREC};

fn main() {
    let filter = common::filter();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let alloc = Allocation::from_path(&root.join("data/allocations/dhc-2022-08-25.toml")).unwrap();
    println!("{:<58} {:>12} {:>12} {:>10}", "case", "median_ms", "min_ms", "target_ms");
    let want = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
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
    // Incommensurate budgets: the 2021 redistricting file, certified smoothed inversion vs grid rounding.
    let red = Allocation::from_path(&root.join("data/allocations/redistricting-persons-us-2021.toml")).unwrap();
    let groups = red.all_mechanisms();
    let d10 = parse_rational("1e-10").unwrap();
    for width in [2e-6, 1e-9] {
        let name = format!("redistricting-2021/smoothed/width={width:e}");
        if want(&name) {
            let p = tightdp::SmoothParams { width, ..Default::default() };
            let (med, min) = time(5, || {
                std::hint::black_box(tightdp::epsilon_smooth(&groups, &d10, &p).unwrap());
            });
            println!("{:<58} {:>12.3} {:>12.3} {:>10}", name, med * 1e3, min * 1e3, 30000);
        }
    }
    let name = "redistricting-2021/grid=1/20000";
    if want(name) {
        let g = parse_rational("1/20000").unwrap();
        let (med, min) = time(1, || {
            std::hint::black_box(tightdp::epsilon_by_grid(&groups, &g, &d10).unwrap());
        });
        println!("{:<58} {:>12.3} {:>12.3} {:>10}", name, med * 1e3, min * 1e3, "-");
    }
}
