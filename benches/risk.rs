//! Benchmarks of the disclosure-risk module (Kazan–Reiter); not timed tests.
//! Targets (issue 9): each table ≤ 1 s; the Figure 5/6 sweeps ≤ 60 s.

mod common;
use common::time;
use tightdp::DEFAULT_PREC;
use tightdp::{paper, risk_figures as figures, Prior2};

fn main() {
    let filter = common::filter();
    let want = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
    println!("{:<40} {:>12} {:>12} {:>10}", "case", "median_ms", "min_ms", "target_ms");
    let p = DEFAULT_PREC;
    let rho1 = paper::rho_block();
    let cases: Vec<(&str, usize, f64, Box<dyn Fn()>)> = vec![
        (
            "risk/table2+epsilon",
            5,
            1000.0,
            Box::new(move || {
                std::hint::black_box((paper::table2(p), paper::epsilon_record(p)));
            }),
        ),
        ("risk/table4", 5, 1000.0, {
            let r = rho1.clone();
            Box::new(move || {
                std::hint::black_box(paper::table4(&r, p).unwrap());
            })
        }),
        ("risk/table5+decisions", 5, 1000.0, {
            let r = rho1.clone();
            Box::new(move || {
                std::hint::black_box(paper::table5(&r, p).unwrap());
            })
        }),
        (
            "risk/tables7-8 (incl. 2x1e4 MC)",
            5,
            1000.0,
            Box::new(move || {
                std::hint::black_box(paper::tables78(p, 1, 10000).unwrap());
            }),
        ),
        (
            "risk/figure1",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure1().unwrap());
            }),
        ),
        (
            "risk/figure2-3",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure2_and_3().unwrap());
            }),
        ),
        (
            "risk/figure4",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure4(Prior2::Unbounded).unwrap());
            }),
        ),
        (
            "risk/figure5 sweep",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure5().unwrap());
            }),
        ),
        (
            "risk/figure6 sweep",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure6().unwrap());
            }),
        ),
        (
            "risk/figure7",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure7().unwrap());
            }),
        ),
        (
            "risk/figure12",
            1,
            60000.0,
            Box::new(|| {
                std::hint::black_box(figures::figure12().unwrap());
            }),
        ),
    ];
    for (name, reps, target, f) in cases {
        if !want(name) {
            continue;
        }
        let (med, min) = time(reps, f);
        println!("{:<40} {:>12.1} {:>12.1} {:>10}", name, med * 1e3, min * 1e3, target);
    }
}
