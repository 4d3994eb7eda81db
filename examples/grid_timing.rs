//! Scratch timing of the grid engine on DP-SGD (not shipped): q sigma2 h steps delta
use std::sync::Arc;
use std::time::Instant;
use tightdp::Direction;
use tightdp::Gaussian;
use tightdp::PoissonSampled;
use tightdp::{grid_lower as lower, grid_upper as upper};
use tightdp::{FourierGridTails, GridProfile};
fn main() {
    let q = |s: &str| tightdp::parse_rational(s).unwrap();
    let a: Vec<String> = std::env::args().collect();
    let m = PoissonSampled::new(Arc::new(Gaussian::new(q(&a[2]), q("1")).unwrap()), q(&a[1])).unwrap();
    let h = q(&a[3]);
    let n: u64 = a[4].parse().unwrap();
    let d = q(&a[5]);
    let prec: u32 = a.get(6).map(|x| x.parse().unwrap()).unwrap_or(64);
    for dir in [Direction::Remove, Direction::Add] {
        let t = Instant::now();
        let u = upper(&m, dir, &h, 70, prec).unwrap();
        let l = lower(&m, dir, &h, 70, prec).unwrap();
        let td = t.elapsed();
        let t = Instant::now();
        let pu = GridProfile::new(Box::new(FourierGridTails::new(&[(u.clone(), n)], 40).unwrap()), prec);
        let pl = GridProfile::new(Box::new(FourierGridTails::new(&[(l.clone(), n)], 40).unwrap()), prec);
        let eu = pu.epsilon(&d).unwrap();
        let el = pl.epsilon(&d).unwrap();
        eprintln!(
            "{dir:?}: eps in [{:.8}, {:.8}] (discretise {:?}, {} / {} pts; invert {:?})",
            el.lo().to_f64(),
            eu.hi().to_f64(),
            td,
            u.len(),
            l.len(),
            t.elapsed()
        );
    }
}
