use std::time::Instant;
use tightdp::model::Group;
use tightdp::pld::compose::{lattice_profile, LatticeOpts};
fn main() {
    let q = |s: &str| tightdp::num::parse_rational(s).unwrap();
    for (s2, n, d, prec, depth) in [
        ("5", 1600u64, "1e-5", 128u32, 500u32),
        ("5", 1600, "1e-5", 53, 450),
        ("5", 4000, "1e-5", 128, 900),
        ("37.7", 1000, "1e-10", 128, 250),
        ("37.7", 1000, "1e-10", 53, 250),
        ("5", 10, "1e-300", 128, 1200),
    ] {
        let t = Instant::now();
        let p = lattice_profile(&[Group::gaussian(q(s2), n, 1)], &LatticeOpts { prec, depth }).unwrap();
        let t1 = t.elapsed();
        let e = p.epsilon(&q(d));
        println!(
            "σ²={s2} n={n} δ={d} prec={prec} depth={depth}: build {:?} → {}",
            t1,
            e.map(|i| format!("{} w {:.2e}", i, i.width().to_f64())).unwrap_or_else(|e| e)
        );
    }
}
