//! Cost and size estimates of the lattice engines (`compose`): the composed window, the multiply-adds of
//! a build, and the part a fixed-precision build leaves to MPFR. They drive the accountant's engine
//! choice, its up-front refusals and the progress bar's estimate; none is a guarantee. The MPFR engine's
//! rates per operation are measured in `account::lattice` (docs/lattice-fourier.md).

use super::frame::{check_lattice, common_step, fixed_use_power, slope, FIXED_RESIDUE_MAX_OPS, POWER_FROM};
use crate::model::{Group, Noise};
use crate::num::Arith;
use rug::Rational;

/// An entry-count estimate for messages, with its qualifier: "about N", or, where the estimators saturate
/// at u64::MAX, the lower bound "more than 1.8e19" (was printed as "about more than 1.8e19").
pub fn describe_entries(est: u64) -> String {
    if est == u64::MAX {
        "more than 1.8e19".to_string()
    } else {
        format!("about {est:.3e}")
    }
}

/// Estimated window (entries) of the composed lattice at truncation depth `depth`, before truncation;
/// u64::MAX when it does not fit.
pub fn estimated_window_shifts(shifts: &[Group], depth: u32) -> u64 {
    let slopes: Vec<Rational> = shifts.iter().map(slope).collect();
    let (_, w) = common_step(&slopes);
    let mut total: f64 = 0.0;
    if check_lattice(shifts).is_err() {
        return u64::MAX;
    }
    for (g, wi) in shifts.iter().zip(&w) {
        let span = match &g.noise {
            Noise::Law(_) => return u64::MAX,
            Noise::Gaussian { sigma2 } => {
                let sd = (sigma2.to_f64() * g.count as f64).sqrt();
                2.0 * (sd * (2.0 * depth as f64 * std::f64::consts::LN_2).sqrt() + g.count as f64)
            }
            Noise::Laplace { .. } => g.count as f64 * g.mu as f64,
        };
        total += span * wi.to_f64();
    }
    if !total.is_finite() || total >= u64::MAX as f64 / 2.0 || w.iter().any(|x| x.to_i64().is_none()) {
        return u64::MAX;
    }
    total.ceil() as u64 + 1
}

/// Largest estimated peak memory of one lattice build (bytes) before it is refused: issue #33 asks ≤ 1 GB
/// of every query. 10 × N_Z(0, 10⁴) with 1,000 × DLap(1) (lattice weights 1 and 20,000: a window of 2·10⁷
/// entries) took 9.4 GB on the MPFR lattice before this limit.
pub const MAX_LATTICE_BYTES: f64 = 1e9;

/// Estimated peak memory (bytes) of a lattice build of `window` entries (the estimate before truncation) in
/// `arith`, with or without discrete Laplace groups (a planning figure, not a guarantee). The discrete
/// Gaussian part of the fixed-width engines (f64, double-double) is a trimmed array of plain numbers:
/// measured peaks 102 MB for a 3.4·10⁶-entry estimate (three Gaussian groups) and 454 MB for 3·10⁷ (the
/// fine part of PHSafe), taken as 64 MB + 16 bytes an entry — below 1 GB up to `MAX_WINDOW`. Discrete
/// Laplace groups are convolved in on MPFR windows (128 bits behind the fixed engines), as is everything in
/// the MPFR engine: measured ~400 bytes an entry at 106–128 bits (10 × N_Z(0, 37.7) with 1,000 × DLap(4):
/// 156 MB for 3.9·10⁵ entries) and ~470 at 132 (10 × N_Z(0, 10⁴) with 1,000 × DLap(1): 9.4 GB for 2·10⁷),
/// modelled as 3.3 arrays of two MPFR numbers an entry (32 bytes each, their limbs, 16 bytes of allocation).
pub fn estimated_bytes(window: u64, arith: Arith, laplace: bool) -> f64 {
    let mpfr = |bits: u32| 3.3 * 2.0 * (48.0 + 8.0 * bits.div_ceil(64) as f64);
    match arith {
        Arith::F64 | Arith::DoubleDouble if !laplace => 64e6 + 16.0 * window as f64,
        Arith::F64 | Arith::DoubleDouble => window as f64 * mpfr(128),
        a => window as f64 * mpfr(a.bits().max(64)),
    }
}

/// Estimated multiply-adds of `lattice_profile` (for engine choice and refusals, not a guarantee), for the
/// MPFR engine (`fixed` false) or the fixed-precision ones (`fixed` true, which square where
/// [`fixed_use_power`] says so), in two parts: the residue recursions' n²K (or binary powering ~2nK²) per
/// Gaussian group, and the rest (binary powering and one convolution per further group), which the MPFR
/// engine runs at a different rate per operation.
pub fn estimated_ops_split(shifts: &[Group], depth: u32, fixed: bool) -> (f64, f64) {
    let slopes: Vec<Rational> = shifts.iter().map(slope).collect();
    let (_, w) = common_step(&slopes);
    let mut ops = 0.0;
    let mut recursion = 0.0;
    let mut acc_half = 0.0f64;
    for (g, wi) in shifts.iter().zip(&w) {
        let wi = wi.to_f64();
        let (own, half) = match &g.noise {
            Noise::Law(_) => return (0.0, f64::INFINITY),
            Noise::Gaussian { sigma2 } => {
                let k = (2.0 * sigma2.to_f64() * depth as f64 * std::f64::consts::LN_2).sqrt().max(2.0);
                let n = g.count as f64;
                let residue = n <= POWER_FROM as f64 || n <= 2.0 * k;
                let residue = residue && !(fixed && n > POWER_FROM as f64 && n * n * k > FIXED_RESIDUE_MAX_OPS);
                if residue {
                    recursion += n * n * k;
                }
                let own = if residue { 0.0 } else { 2.0 * n * k * k };
                (own, n.sqrt() * k + n)
            }
            Noise::Laplace { .. } => {
                // sensitivity 1: the binomial closed form, one step per entry; else binary powering of
                // full windows (schoolbook convolutions: the last squaring alone is (span/2)²)
                let span = g.count as f64 * g.mu as f64;
                (if g.mu == 1 && g.count > crate::pld::lattice::DLAP_BINOMIAL_FROM { 4.0 * span } else { span * span }, span)
            }
        };
        ops += own;
        if acc_half > 0.0 {
            ops += acc_half * (2.0 * half + 1.0);
        }
        acc_half += half * wi;
    }
    (recursion, ops)
}

/// The part of a fixed-precision lattice build (f64 or double-double, `fixed_half`) that runs in MPFR: the
/// residue-class recursion (eq. A.5) of each distinct Gaussian group [`fixed_use_power`] leaves to it, n²K
/// multiply-adds at the engine's source precision, one group per thread. The blocked kernels' estimate
/// ([`estimated_ops_split`]) prices these at the kernels' rate, ~100× too cheap: 300 × N_Z(0, 10⁴) at 1e-10
/// was estimated at 0.01 s and took 2.9 s (measured 22–24 ns per n²K operation, 300 ≤ n ≤ 500).
pub fn estimated_residue_ops(shifts: &[Group], depth: u32) -> f64 {
    let mut seen: Vec<(&Rational, u64)> = Vec::new();
    let mut ops = 0.0;
    for g in shifts {
        let Noise::Gaussian { sigma2 } = &g.noise else { continue };
        if seen.iter().any(|&(s, n)| s == sigma2 && n == g.count) {
            continue;
        }
        seen.push((sigma2, g.count));
        let Ok(count) = u32::try_from(g.count) else { continue };
        if count > 1 && !fixed_use_power(sigma2, count, depth) {
            let k = crate::noise::gauss_terms::radius_for_bits(sigma2, depth) as f64;
            ops += (count as f64) * (count as f64) * k;
        }
    }
    ops
}
