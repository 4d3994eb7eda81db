//! Test support for the moment generating functions' tests (`mgf_tests.rs`, `mgf_replace_tests.rs`,
//! `mgf_laplace_sub_tests.rs`, `mgf_wor_tests.rs`): the checks every law's line (against a reference) and
//! decay bound must pass.

use crate::noise::direction::Direction;
use crate::noise::mgf::{Decay, Mgf};
use crate::num::{parse_rational, Interval};
use rug::Float;

/// sup_{t ≥ t*} |M(c + it)| stays below the decay bound at each t* on every later point of the line
/// M(c + ikh), k ≤ k_max, in direction `dir` (at 128 bits), and the bound falls below M(c) there (it is useful).
/// Returns the decay bound, for further checks.
pub(super) fn decay_bounds_the_line(m: &Mgf, dir: Direction, c: f64, h: f64, k_max: usize, t_stars: &[f64]) -> Decay {
    let p = 128;
    let (cf, hf) = (Float::with_val(p, c), Float::with_val(p, h));
    let v = m.line(dir, &cf, &hf, k_max, 1e-30, p);
    let m_c = v[0].re().hi().clone();
    let d = m.decay(dir, &cf, &m_c, p);
    for &t_star in t_stars {
        let b = d.ln_upper(t_star).to_f64();
        assert!(b < m_c.to_f64().ln(), "{m:?} {dir:?} c = {c}: no decay at t* = {t_star}");
        for (k, z) in v.iter().enumerate().filter(|(k, _)| *k as f64 * h >= t_star) {
            assert!(z.abs_hi().to_f64().ln() <= b, "{m:?} {dir:?} c = {c}: |M(c + i{})| above the bound at t* = {t_star}", k as f64 * h);
        }
    }
    d
}

/// Every shifted contour's bound (`noise::mgf_strip`), not only the smallest of the decay bounds, holds every
/// later point of the line M(c + ikh), k ≤ 150, h = 4, at each t* of 10, 100 and 400 (at 128 bits), and there
/// are five (every shift's angle at most π/2). Returns the line and the decay's bounds (the layer cake first),
/// for further checks.
pub(super) fn every_strip_bounds_the_line(m: &Mgf, dir: Direction, c: f64) -> (Vec<crate::num::cinterval::CInterval>, Vec<Decay>) {
    let (p, h) = (128, 4.0);
    let (cf, hf) = (Float::with_val(p, c), Float::with_val(p, h));
    let v = m.line(dir, &cf, &hf, 150, 1e-30, p);
    let m_c = v[0].re().hi().clone();
    let Decay::Min(bounds) = m.decay(dir, &cf, &m_c, p) else { panic!("{m:?}: the decay is the smallest of several bounds") };
    let strips: Vec<&crate::noise::mgf_strip::Strip> =
        bounds.iter().filter_map(|b| if let Decay::Strip(s) = b { Some(s) } else { None }).collect();
    assert_eq!(strips.len(), 5, "{m:?} {dir:?}: every shift's angle is at most π/2");
    for s in &strips {
        holds_every_later_point(&|t| s.ln_upper(t).to_f64(), &v, h, &format!("{m:?} {dir:?} c = {c}: a shift's bound"));
    }
    (v, bounds)
}

/// A bound of ln sup_{t ≥ t*} |M(c + it)| holds every point of the line `v` (spacing `h`) at or after t*, for
/// t* = 10, 100 and 400.
pub(super) fn holds_every_later_point(bound: &dyn Fn(f64) -> f64, v: &[crate::num::cinterval::CInterval], h: f64, what: &str) {
    for t_star in [10.0, 100.0, 400.0] {
        let b = bound(t_star);
        for (k, z) in v.iter().enumerate().filter(|(k, _)| *k as f64 * h >= t_star) {
            let at = z.abs_hi().to_f64().ln();
            assert!(at <= b, "{what}: |M(c + i{})| = e^{at} above the bound e^{b} at t* = {t_star}", k as f64 * h);
        }
    }
}

/// dp_accounting's truncated Poisson pair at q = 1/10, σ = 1, 100 records and batches of 15 as a
/// branch-revealing mixture (`noise::truncated`): t = 0.0677 and the cut branch's q′ = 0.0884 (σ/2, η = 2)
/// rounded up to 1/1000.
pub(super) fn truncated_pair() -> Mgf {
    let q = |s: &str| crate::num::parse_rational(s).unwrap();
    Mgf::Branches {
        t_lo: q("68/1000"),
        t_hi: q("68/1000"),
        cut: Box::new(Mgf::PoissonReplace { q: q("89/1000"), eta: rug::Rational::from(2) }),
        plain: Box::new(Mgf::PoissonGaussian { q: q("1/10"), eta: q("1/2") }),
    }
}

/// The smallest of the shifted contours' bounds at t*.
pub(super) fn best_strip(bounds: &[Decay], t_star: f64) -> f64 {
    bounds.iter().filter(|b| matches!(b, Decay::Strip(_))).map(|b| b.ln_upper(t_star).to_f64()).fold(f64::INFINITY, f64::min)
}

/// The reference `want` (~32 digits) lies in the enclosure widened by 1e-25 relative.
pub(super) fn holds(z: &Interval, want: &str) -> bool {
    let p = z.prec();
    let w = Float::with_val(p, Float::parse(want).expect("a reference value is a decimal"));
    let tol = Float::with_val(p, 1e-25 * w.to_f64().abs().max(1e-3));
    z.widen(&tol).contains(&w)
}

/// One point of a reference line (mpmath's quadrature over the data): M(c + it) in each of `dirs`, at 160
/// bits, is 1e-28 wide or less and holds the reference (re, im) to 25 digits. The line is taken with h = t/4
/// to its fifth value (at t = 0, its first: M(c)).
pub(super) fn line_point_holds(m: &Mgf, dirs: &[Direction], c: &str, t: &str, re: &str, im: &str) {
    let p = 160;
    let c = Float::with_val(p, &parse_rational(c).expect("a reference tilt is a fraction"));
    let t: u32 = t.parse().expect("a reference t is a whole number");
    let h = Float::with_val(p, t.max(1)) / 4u32;
    let k = if t == 0 { 0 } else { 4 };
    for &dir in dirs {
        let v = m.line(dir, &c, &h, 4, 1e-32, p);
        let z = &v[k];
        assert!(holds(z.re(), re) && holds(z.im(), im), "{m:?} {dir:?} c = {c} t = {t}: {z:?}");
        assert!(z.re().width().to_f64() < 1e-28 && z.im().width().to_f64() < 1e-28, "{m:?} c = {c} t = {t}: {z:?} too wide");
    }
}

/// At t = 0 (the reference `re` is M(c)): the planning value of ln M(c) in direction `plan_dir` lies within
/// `plan_tol` of it, and the certified upper bound in `up_dir` lies above it by less than 1e-12.
pub(super) fn real_point_holds(m: &Mgf, plan_dir: Direction, up_dir: Direction, c: &str, re: &str, plan_tol: f64) {
    let p = 160;
    let c = Float::with_val(p, &parse_rational(c).expect("a reference tilt is a fraction"));
    let want = re.parse::<f64>().expect("a reference value is a decimal").ln();
    assert!((m.ln_real_f64(plan_dir, c.to_f64()) - want).abs() < plan_tol, "{m:?} c = {c}: planning value");
    let up = m.ln_real_upper(up_dir, &c, p).to_f64();
    assert!(up >= want - 1e-15 && up < want + 1e-12, "{m:?} c = {c}: upper bound {up} vs {want}");
}
