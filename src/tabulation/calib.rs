//! MOE → budget calibration and the printed tables of the SafeTab papers, in exact arithmetic.
//!
//! * DG calibration ([HSM21, eq. 37] / Cor. 4; [HBC25]
//!   §6.1): per-count ρ_base = 1.96²/(2·MOE²) (the printed "1.92" is 1.9208 truncated); a level passes
//!   ρ_i/s to each of its groups and spends (1−γ) of it on Step 2, so the level total is
//!   ρ_i = s·ρ_base/(1−γ). The printed Total is round3(ρ_i) and the printed Step 2 is round3(0.9·printed
//!   Total); bounded = 2 × printed unbounded (docs/research/safetab-numbers.md §1, §4).
//! * Geometric calibration (RE eq. 38 / Cor. 2): ε_base = ln 20/(MOE+1); the printed totals are
//!   reproduced by hypothesis H1 of the research notes: b = round2((MOE+1)/ln 20), ε_base = 1/b.
//! * Suppression threshold (P eq. 12, Table 6): T = min{t ∈ ℤ : P[X ≤ t] ≥ p}, X ~ N_Z(0, σ²),
//!   σ² = s/(2(1−γ)ρ); suppress when the noisy count is ≤ T.

use crate::error::Fallible;
use crate::noise::DiscreteGaussian;
use crate::num::Interval;
use crate::{err, fallible};
use rug::{Integer, Rational};

/// 1.96 as an exact rational (the papers' two-sided 95 % normal quantile, as printed).
pub fn z95() -> Rational {
    Rational::from((196, 100))
}

/// Round a rational to `places` decimals, ties to even (exact).
pub fn round_half_even(q: &Rational, places: u32) -> Rational {
    let scale = Integer::from(Integer::u_pow_u(10, places));
    let x = Rational::from(q * &scale);
    let fl = Integer::from(x.floor_ref());
    let frac = Rational::from(&x - &fl);
    let half = Rational::from((1, 2));
    let r = if frac > half || (frac == half && fl.is_odd()) { fl + 1 } else { fl };
    Rational::from((r, scale))
}

/// Exact decimal string of a rational with a terminating expansion, to `places` decimals.
pub fn dec(q: &Rational, places: u32) -> String {
    let r = round_half_even(q, places);
    let scale = Integer::from(Integer::u_pow_u(10, places));
    let n = Integer::from(r.numer() * &scale) / r.denom();
    let neg = n < 0;
    let s = Integer::from(n.abs_ref()).to_string();
    let s = if s.len() <= places as usize { format!("{}{}", "0".repeat(places as usize + 1 - s.len()), s) } else { s };
    let (a, b) = s.split_at(s.len() - places as usize);
    let out = if places == 0 { a.to_string() } else { format!("{a}.{b}") };
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// Per-count ρ_base = 1.96²/(2·MOE²) (RE eq. 37 with 1.92 → 1.9208).
pub fn rho_base(moe: u32) -> Rational {
    let z = z95();
    Rational::from(&z * &z) / Rational::from(2 * moe as u64 * moe as u64)
}

/// Exact level total ρ_i = s·ρ_base/(1−γ).
pub fn dg_level_total(moe: u32, s: u32, gamma: &Rational) -> Rational {
    rho_base(moe) * Rational::from(s) / (Rational::from(1) - gamma.clone())
}

/// One row of the budget table (P Table 7 / RE Table 4 DG column), printed values as exact decimals.
#[derive(Clone, Debug)]
pub struct DgBudgetRow {
    pub total_exact: Rational,
    pub total_u: Rational,
    pub step2_u: Rational,
    pub total_b: Rational,
    pub step2_b: Rational,
}

/// Calibrate one MOE target with the printing rule that reproduces the papers.
pub fn dg_budget_row(moe: u32, s: u32, gamma: &Rational) -> DgBudgetRow {
    let total_exact = dg_level_total(moe, s, gamma);
    let total_u = round_half_even(&total_exact, 3);
    let step2_u = round_half_even(&(Rational::from((9, 10)) * total_u.clone()), 3);
    DgBudgetRow {
        total_exact,
        total_b: Rational::from(2) * total_u.clone(),
        step2_b: Rational::from(2) * step2_u.clone(),
        total_u,
        step2_u,
    }
}

/// ⌊1.96·√(s/(2(1−γ)ρ))⌋ in exact arithmetic: the per-count 95 % MOE implied by a level total ρ.
/// (Knife edge: ρ = 0.008 gives exactly 49; binary floating point returns 48.)
pub fn implied_moe(rho: &Rational, s: u32, gamma: &Rational) -> Integer {
    let z = z95();
    let q = Rational::from(&z * &z) * Rational::from(s) / (Rational::from(2) * (Rational::from(1) - gamma.clone()) * rho.clone());
    // ⌊√q⌋ = ⌊√⌊q⌋⌋
    Integer::from(q.floor_ref()).sqrt()
}

/// Suppression threshold of P eq. (12): T = min{t : P[X ≤ t] ≥ p}, X ~ N_Z(0, s/(2(1−γ)ρ)).
/// Each comparison is decided with certified intervals; the precision is raised if one is not.
pub fn suppression_threshold(rho: &Rational, s: u32, gamma: &Rational, p: &Rational) -> Fallible<i64> {
    if *rho <= 0 {
        return fallible!(Input, "rho must be positive");
    }
    if Rational::from(p * 2u32) <= 1 || *p >= 1 {
        return fallible!(Input, "suppression probability must lie in (1/2, 1)");
    }
    let sigma2 = Rational::from(s) / (Rational::from(2) * (Rational::from(1) - gamma.clone()) * rho.clone());
    let dg = DiscreteGaussian::new(sigma2)?;
    let one_minus_p = Rational::from(1) - p.clone();
    // P[X ≤ t] ≥ p  ⇔  P[X > t] ≤ 1 − p.
    let ok = |t: i64| -> Fallible<bool> {
        for prec in [128u32, 256, 1024, 4096] {
            let tail = dg.tail_gt(&Rational::from(t), prec);
            let thr = Interval::from_rational(&one_minus_p, prec);
            if tail.hi() <= thr.lo() {
                return Ok(true);
            }
            if tail.lo() > thr.hi() {
                return Ok(false);
            }
        }
        fallible!(Input, "cannot decide P[X > {t}] against 1 - p (exact tie?)")
    };
    let mut t = 0i64;
    while !ok(t)? {
        t += 1;
    }
    Ok(t)
}

/// Geometric calibration, hypothesis H1 of the research notes: b = round2((MOE+1)/ln 20), ε_base = 1/b.
/// The rounding of the irrational (MOE+1)/ln 20 is decided with certified intervals.
pub fn geometric_scale_h1(moe: u32) -> Fallible<Rational> {
    let prec = 256;
    let ln20 = Interval::from_i64(20, prec).ln();
    let x = Interval::from_i64(moe as i64 + 1, prec).div(&ln20);
    let lo = x.lo().to_rational().ok_or_else(|| err!(Input, "nan"))?;
    let hi = x.hi().to_rational().ok_or_else(|| err!(Input, "nan"))?;
    let (a, b) = (round_half_even(&lo, 2), round_half_even(&hi, 2));
    if a != b {
        return fallible!(Input, "cannot decide round2((MOE+1)/ln 20) for MOE = {moe}");
    }
    Ok(a)
}

/// ε_base = ln 20/(MOE+1) (RE eq. 38), certified.
pub fn geometric_eps_base(moe: u32, prec: u32) -> Interval {
    Interval::from_i64(20, prec).ln().div(&Interval::from_i64(moe as i64 + 1, prec))
}

/// Floor of a certified positive interval, raising the precision until the floor is decided.
fn certified_floor(f: &dyn Fn(u32) -> Interval, what: &str) -> Fallible<i64> {
    for prec in [128u32, 256, 1024, 4096] {
        let x = f(prec);
        let (lo, hi) = (x.lo().clone().floor(), x.hi().clone().floor());
        if lo == hi {
            return lo.to_integer().and_then(|i| i.to_i64()).ok_or_else(|| err!(Input, "{what}: out of range"));
        }
    }
    fallible!(Input, "{what}: the floor cannot be decided (value at an integer?)")
}

/// The 95 % margin of error of a two-sided geometric count of scale b (P[y] ∝ e^{−|y|/b}) *as the
/// paper prints it*: ⌊b·ln(40/(1+e^{1/b}))⌋ (RE eq. 36 and the closing paragraph of §D.3, where a
/// Step-2 cell of level i has b = s/((1−γ)ε_i) and a TotalOnly total b = s/ε_i).
pub fn geometric_moe_paper(b: &Rational) -> Fallible<i64> {
    if *b <= 0 {
        return fallible!(Input, "geometric scale must be positive");
    }
    certified_floor(
        &|p| {
            let bi = Interval::from_rational(b, p);
            let e = Interval::one(p).div(&bi).exp();
            bi.mul(&Interval::from_i64(40, p).div(&Interval::one(p).add(&e)).ln())
        },
        "geometric MOE",
    )
}

/// P[|Y| ≤ m] for the two-sided geometric of scale b: 1 − 2·r^{m+1}/(1+r), r = e^{−1/b} (RE eq. 34 is
/// an equality at integers).
pub fn geometric_coverage(b: &Rational, m: i64, prec: u32) -> Interval {
    let d = crate::noise::dlaplace::DiscreteLaplace { scale: b.clone() };
    Interval::one(prec).sub(&d.tail_ge(m.saturating_add(1), prec).mul(&Interval::from_i64(2, prec)))
}

/// Certified decision of `coverage(m) ≥ 19/20`.
fn covers95(cov: &dyn Fn(u32) -> Interval) -> Fallible<bool> {
    for prec in [128u32, 256, 1024, 4096] {
        let c = cov(prec);
        let t = Interval::from_rational(&Rational::from((19, 20)), prec);
        if c.lo() >= t.hi() {
            return Ok(true);
        }
        if c.hi() < t.lo() {
            return Ok(false);
        }
    }
    fallible!(Input, "coverage equals 95 % to 4096 bits: cannot decide")
}

/// Smallest m ≥ 0 with P[|Y| ≤ m] ≥ 95 %, searched from a start guess `g` (the search walks down
/// while m − 1 still covers, then up until m covers; every step a certified decision).
fn smallest_covering(g: i64, cov: &dyn Fn(i64, u32) -> Interval) -> Fallible<i64> {
    let mut m = g.max(0);
    while m > 0 && covers95(&|p| cov(m - 1, p))? {
        m -= 1;
    }
    while !covers95(&|p| cov(m, p))? {
        m = m.checked_add(1).ok_or_else(|| err!(Input, "MOE out of range"))?;
    }
    Ok(m)
}

/// The exact 95 % margin of error of a geometric count: the smallest integer m with P[|Y| ≤ m] ≥ 0.95,
/// from the closed-form tail (noise::dlaplace). It equals ⌈b·ln(40/(1+e^{1/b}))⌉ — the ceiling, where
/// the paper's eq. 36 prints a floor (docs/research/safetab-numbers.md §2).
pub fn geometric_moe_exact(b: &Rational) -> Fallible<i64> {
    let g = geometric_moe_paper(b)?;
    smallest_covering(g, &|m, p| geometric_coverage(b, m, p))
}

/// The 95 % margin of error of a discrete Gaussian count as the paper prints it: ⌊1.96·σ⌋ (RE §E.2,
/// Corollary 3; with σ² = s/(2(1−γ)ρ_i) for a Step-2 cell).
pub fn dg_moe_paper(sigma2: &Rational) -> Fallible<i64> {
    if *sigma2 <= 0 {
        return fallible!(Input, "sigma2 must be positive");
    }
    let z = z95();
    // ⌊1.96σ⌋ = ⌊√(1.96²σ²)⌋ = ⌊√⌊1.96²σ²⌋⌋ (exact)
    let q = Rational::from(&z * &z) * sigma2.clone();
    Integer::from(q.floor_ref()).sqrt().to_i64().ok_or_else(|| err!(Input, "MOE out of range"))
}

/// P[|X| ≤ m] for X ~ N_Z(0, σ²), certified (noise::dgauss tails).
pub fn dg_coverage(sigma2: &Rational, m: i64, prec: u32) -> Fallible<Interval> {
    let d = DiscreteGaussian::new(sigma2.clone())?;
    Ok(Interval::one(prec).sub(&d.tail_gt(&Rational::from(m), prec).mul(&Interval::from_i64(2, prec))))
}

/// The exact 95 % margin of error of a discrete Gaussian count: the smallest m with P[|X| ≤ m] ≥ 0.95.
pub fn dg_moe_exact(sigma2: &Rational) -> Fallible<i64> {
    let d = DiscreteGaussian::new(sigma2.clone())?;
    let g = dg_moe_paper(sigma2)?;
    smallest_covering(g, &|m, p| Interval::one(p).sub(&d.tail_gt(&Rational::from(m), p).mul(&Interval::from_i64(2, p))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    /// [HBC25, Table 7], every printed digit (MOE 3 / 11 / 50).
    #[test]
    fn table7_reproduced() {
        let g = q("0.1");
        for (moe, s2u, tu, s2b, tb) in
            [(3, "1.921", "2.134", "3.842", "4.268"), (11, "0.143", "0.159", "0.286", "0.318"), (50, "0.007", "0.008", "0.014", "0.016")]
        {
            let r = dg_budget_row(moe, 9, &g);
            assert_eq!(dec(&r.step2_u, 3), s2u);
            assert_eq!(dec(&r.total_u, 3), tu);
            assert_eq!(dec(&r.step2_b, 3), s2b);
            assert_eq!(dec(&r.total_b, 3), tb);
        }
        // Σ over the 11 levels: 2×MOE3, 4×MOE11, 5×MOE50 → 4.944 unbounded, 9.888 bounded (research notes §4).
        let tot: Rational = [(3, 2), (11, 4), (50, 5)]
            .iter()
            .map(|&(m, c)| dg_budget_row(m, 9, &g).total_u * Rational::from(c))
            .fold(Rational::from(0), |a, b| a + b);
        assert_eq!(tot, q("4.944"));
        assert_eq!(Rational::from(2) * tot, q("9.888"));
    }

    /// [HSM21, Table 4], DG column (MOE 6 / 11 / 50).
    #[test]
    fn re_table4_dg_reproduced() {
        let g = q("0.1");
        for (moe, s2, t) in [(6, "0.481", "0.534"), (11, "0.143", "0.159"), (50, "0.007", "0.008")] {
            let r = dg_budget_row(moe, 9, &g);
            assert_eq!(dec(&r.total_u, 3), t);
            assert_eq!(dec(&r.step2_u, 3), s2);
        }
        // exact Step 2 of MOE 6 is 0.4802 → 0.480: the printed 0.481 is round3(0.9 × 0.534) (notes §1)
        assert_eq!(dec(&(rho_base(6) * Rational::from(9u32)), 3), "0.480");
    }

    /// RE Table 4, geometric column, under H1 (research notes §2): totals 4.27 / 2.49 / 0.59.
    #[test]
    fn re_table4_geometric_h1() {
        for (moe, b, t, s2) in [(6, "2.34", "4.27", "3.84"), (11, "4.01", "2.49", "2.24"), (50, "17.02", "0.59", "0.531")] {
            let bb = geometric_scale_h1(moe).unwrap();
            assert_eq!(bb, q(b));
            let total = Rational::from(10) / bb;
            assert_eq!(dec(&total, 2), t);
            let step2 = Rational::from((9, 10)) * q(t);
            let places = s2.split('.').nth(1).unwrap().len() as u32;
            assert_eq!(dec(&step2, places), s2);
        }
        // eq. (38) unrounded gives 4.28 and 2.50 (the printed 4.27 and 2.49 do not follow from it)
        let e = geometric_eps_base(6, 128).mul(&Interval::from_i64(10, 128));
        assert!((e.to_f64() - 4.279617533649).abs() < 1e-11);
    }

    /// P Table 6: T = 93, 21, 11 for ρ = 0.008, 0.159, 0.543 at p = 0.9999.
    #[test]
    fn table6_reproduced() {
        let g = q("0.1");
        let p = q("0.9999");
        for (rho, t) in [("0.008", 93), ("0.159", 21), ("0.543", 11), ("0.534", 11)] {
            assert_eq!(suppression_threshold(&q(rho), 9, &g, &p).unwrap(), t, "ρ={rho}");
        }
    }

    #[test]
    fn implied_moes_and_knife_edge() {
        let g = q("0.1");
        assert_eq!(implied_moe(&q("2.134"), 9, &g), 3);
        assert_eq!(implied_moe(&q("0.159"), 9, &g), 10);
        assert_eq!(implied_moe(&q("0.008"), 9, &g), 49); // exactly 49 (σ = 25)
    }

    #[test]
    fn rounding_helpers() {
        assert_eq!(round_half_even(&q("0.0005"), 3), q("0"));
        assert_eq!(round_half_even(&q("0.0015"), 3), q("0.002"));
        assert_eq!(dec(&q("0.0076832"), 3), "0.008");
        assert_eq!(dec(&q("-1.25"), 1), "-1.2");
    }
}
