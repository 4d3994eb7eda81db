//! Test support for the moment generating functions' tests (`mgf_tests.rs`, `mgf_replace_tests.rs`,
//! `mgf_laplace_sub_tests.rs`, `mgf_wor_tests.rs`): the check every law's decay bound must pass.

use crate::noise::direction::Direction;
use crate::noise::mgf::{Decay, Mgf};
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
