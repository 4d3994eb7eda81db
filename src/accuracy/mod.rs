//! Accuracy of census releases under the Bureau's noise and the reduced noise of Table 1, on real data
//! read by `crate::data` ([SSW24, §3.2] Figure 6, §3.4.1 Figure 8, §3.4.2
//! Figure 9): exact expectations next to Monte Carlo with standard errors.
//!
//! * `noise`: the discrete Gaussian tabulated, exact per-count error expectations, a fast exact-law
//!   sampler (integer alias table; the CKS sampler on request).
//! * `counts`: Figures 6 and 8 — MSE/MAE of released counts per level and per race, with and without
//!   max(0, ·).
//! * `regression`: Figure 9 — the slope of median earnings on the share with a bachelor's degree or
//!   higher, from true and noisy ACS counts; MAE over K trials.
//! * `published`: the paper's printed percentages of Figures 6 and 9 as `verify` quantities.

use crate::error::Fallible;
use crate::{err, fallible};

pub mod counts;
pub mod noise;
pub mod published;
pub mod regression;

// The items this module takes from modules that move in the planned restructure (src/dist → src/noise,
// MechGroup → src/model); one place to update.
pub(crate) use crate::census::Allocation;
pub(crate) use crate::noise::DiscreteGaussian;

use crate::budget::zcdp;
use crate::calibrate::calibrate_factor;
use rug::Rational;

/// The Bureau's σ² of an allocation level and the reduced σ² of Table 1 ([SSW24]
/// §3.2: the exact ε at δ equals the Bureau's ρ + 2√(ρ log 1/δ); δ = 1e-11 in the paper). The same rule
/// as `tightdp accuracy --counts` and `calibrate` (the lower end of the certified factor, whose bracket is
/// ~1e-12 wide), rounded to 12 significant digits so that the exact sampler can use it as a small
/// fraction (a relative change below 5e-13; the exact values and the simulation use the same σ²).
pub fn table1_sigma2(alloc: &Allocation, level: &str, delta: &Rational) -> Fallible<(Rational, Rational)> {
    let prec = 256;
    let lv = alloc.level(level)?.clone();
    let groups = alloc.level_mechanisms(&lv);
    if groups.len() != 1 {
        return fallible!(Input, "level '{}' has heterogeneous variances; the accuracy study needs one σ²", lv.name);
    }
    let target = zcdp::eps_bs(&lv.rho, delta, prec).mid();
    let br = calibrate_factor(&groups, delta, &target, 128, prec, 1e-12)?;
    let red = rug::Float::with_val(prec, Rational::from(&groups[0].sigma2 * &br.lo));
    let red = crate::num::parse_rational(&crate::num::format::fmt_nearest(&red, 12))?;
    Ok((groups[0].sigma2.clone(), red))
}

/// `LEVEL=ALLOCATION LEVEL` overrides of the default level mapping (repeatable CLI option).
pub fn parse_map(items: &[String]) -> Fallible<Vec<(String, String)>> {
    items
        .iter()
        .map(|s| {
            let (a, b) = s.split_once('=').ok_or_else(|| err!(Input, "--map expects LEVEL=ALLOCATION_LEVEL, got '{s}'"))?;
            Ok((a.trim().to_string(), b.trim().to_string()))
        })
        .collect()
}

/// Mean and standard error of replicate statistics (trials are i.i.d. replicates of the whole study).
pub fn mean_se(v: &[f64]) -> (f64, Option<f64>) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    if v.len() < 2 {
        return (m, None);
    }
    let s2 = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, Some((s2 / n).sqrt()))
}
