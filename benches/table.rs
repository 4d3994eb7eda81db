//! In-process timings of the side-by-side table's workloads (run by scripts/bench/table.py; not a test).
//!
//! For every workload (the rows of `scripts/bench/table.py`) and every certified configuration — the
//! default request (20 digits, automatic engine), the certified f64 lattice (`prec: 53`, ~12 digits) and
//! the smoothed inversion at widths 1e-2 … 1e-8, the cheap answers at a peer's accuracy — one JSON line: the library call `Accountant::new(..).epsilon(δ)`
//! timed from a fresh accountant (no cache), the median of repetitions, and the certified bracket. The
//! peers are timed the same way: in-process, construction + composition + query, no imports.
//!
//! `cargo bench --bench table -- --groups` prints instead each workload's composition as the unit shifts
//! a peer composes (σ², count, sensitivity), so that the peers run exactly the same inputs.
//! A further argument keeps only the workloads whose name contains it.

#[allow(dead_code)] // the shared helpers: this binary uses the filter only
mod common;
use tightdp::parse_rational;
use tightdp::Allocation;
use tightdp::{Accountant, Method, Options};
use tightdp::{Composition, Noise};

/// (name, composition, δ) of every row of the table.
fn workloads() -> Vec<(&'static str, Composition, &'static str)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations");
    let load = |f: &str| Allocation::from_path(&root.join(f)).unwrap();
    let dhc22 = load("dhc-2022-08-25.toml");
    let state = dhc22.level_composition(dhc22.level("State").unwrap()).unwrap();
    let safetab_p = tightdp::manifest_composition(&tightdp::safetab_p_production(false), 0).unwrap().0;
    vec![
        ("state", state, "1e-11"),
        ("dhc-2022-overall", dhc22.composition().unwrap(), "1e-10"),
        ("dhc-persons-2023", load("dhc-persons-us-2023.toml").composition().unwrap(), "1e-10"),
        ("dhc-units-2023", load("dhc-units-us-2023.toml").composition().unwrap(), "1e-10"),
        ("redistricting-2021", load("redistricting-persons-us-2021.toml").composition().unwrap(), "1e-10"),
        ("safetab-p", safetab_p, "1e-10"),
        ("n1000", Composition::gaussian(parse_rational("37.7").unwrap(), 1000, 1).unwrap(), "1e-10"),
    ]
}

fn main() {
    tightdp::keep_freed_memory(); // as the command does
    let filter = common::filter();
    let groups_only = std::env::args().any(|a| a == "--groups");
    for (name, comp, delta) in workloads() {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        if groups_only {
            let shifts: Vec<String> = comp
                .shifts()
                .iter()
                .map(|g| match &g.noise {
                    Noise::Gaussian { sigma2 } => format!("[\"{sigma2}\", {}, {}]", g.count, g.mu),
                    Noise::Laplace { .. } | Noise::Law(_) => unreachable!("the table's workloads are discrete Gaussian"),
                })
                .collect();
            println!("{{\"row\": \"{name}\", \"delta\": \"{delta}\", \"shifts\": [{}]}}", shifts.join(", "));
            continue;
        }
        let d = parse_rational(delta).unwrap();
        let mut configs = vec![
            ("default".to_string(), Options::default()),
            ("prec:53".to_string(), Options { arith: Some(tightdp::Arith::F64), ..Options::default() }),
        ];
        for w in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8] {
            configs.push((format!("smoothed:{w:e}"), Options { method: Method::Smoothed, width: Some(w), ..Options::default() }));
        }
        for (config, opts) in configs {
            // repetitions: at least 3, and for at least ~1 s in all (at most 50)
            let mut times = Vec::new();
            let mut last = None;
            let started = std::time::Instant::now();
            while times.len() < 3 || (times.len() < 50 && started.elapsed().as_secs_f64() < 1.0) {
                let t = std::time::Instant::now();
                let r = Accountant::new(comp.clone(), opts.clone()).and_then(|a| a.epsilon(&d));
                times.push(t.elapsed().as_secs_f64());
                if r.is_err() {
                    last = Some(r);
                    break;
                }
                last = Some(r);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            match last.unwrap() {
                Ok(c) => println!(
                    "{{\"row\": \"{name}\", \"config\": \"{config}\", \"seconds\": {:.6e}, \"reps\": {}, \"lo\": \"{}\", \"hi\": \"{}\", \"method\": \"{}\"}}",
                    times[times.len() / 2],
                    times.len(),
                    tightdp::fmt_down(c.lo(), 30),
                    tightdp::fmt_up(c.hi(), 30),
                    c.engine().as_str()
                ),
                Err(e) => println!("{{\"row\": \"{name}\", \"config\": \"{config}\", \"error\": {:?}}}", e),
            }
        }
    }
}
