//! Heterogeneous composition on a common lattice.
//!
//! Groups i of n_i i.i.d. N_Z(0, σ_i²) queries with sensitivity μ_i have per-query loss slopes μ_i/σ_i².
//! When these rationals share a step h (always, for rationals: h = gcd of numerators / lcm of
//! denominators), V = Σ_i w_i S_i with w_i = μ_i/(σ_i² h) ∈ ℕ is integer-valued and the composed privacy
//! profile is read off its law (profile.rs). The law is built by exact scaled convolution of the
//! per-group laws (each from the residue construction), with certified outward rounding and the mass
//! dropped at every truncation added to the bound on the mass outside the window.

use crate::error::Fallible;
use crate::model::{GaussGroup, Group, Noise};
use crate::num::dd::DD;
use crate::num::Arith;
use crate::pld::estimate::{describe_entries, estimated_window_shifts};
use crate::pld::fixed::{Scalar, SymHalf};
use crate::pld::frame::{check_lattice, fixed_use_power, lattice_frame, use_power, LatticeOpts, MAX_WINDOW};
use crate::pld::lattice::{convolve_scaled, scale_law, LatticeDist};
use crate::pld::profile::PrivacyProfile;
use crate::pld::symdist::{group_law_mpfr, SymDist};
use crate::{err, fallible};
use rayon::prelude::*;
use rug::Rational;

/// The privacy profile of discrete Gaussian groups (one shift per query) at the default depth (`prec`
/// read by [`Arith::from_legacy_prec`]: 53 the f64 engine, 106 the double-double one, else MPFR bits).
pub fn compose_groups(groups: &[GaussGroup], prec: u32) -> Fallible<PrivacyProfile> {
    compose_groups_with(groups, &LatticeOpts::new(Arith::from_legacy_prec(prec)))
}

/// The privacy profile of discrete Gaussian groups (one shift per query) with the given engine and depth.
pub fn compose_groups_with(groups: &[GaussGroup], opts: &LatticeOpts) -> Fallible<PrivacyProfile> {
    let shifts: Vec<Group> = groups.iter().map(Group::from).collect();
    lattice_profile(&shifts, opts)
}

/// The privacy profile of a composition of shifts (`model::Composition::shifts`): the exact law of the
/// loss statistic V on the common lattice of the slopes, then δ, ε and f read off it (`profile.rs`).
/// Discrete Gaussian groups are convolved as symmetric half-laws (MPFR or f64, relative-error bound);
/// discrete Laplace groups, whose statistics live on {0, …, nμ}, are convolved in with outward rounding.
pub fn lattice_profile(shifts: &[Group], opts: &LatticeOpts) -> Fallible<PrivacyProfile> {
    check_lattice(shifts)?;
    if shifts.is_empty() {
        return fallible!(Input, "empty mechanism list");
    }
    for g in shifts {
        match &g.noise {
            Noise::Gaussian { sigma2 } if *sigma2 <= 0 => return fallible!(Input, "sigma2 must be positive"),
            Noise::Laplace { scale } if *scale <= 0 => return fallible!(Input, "the discrete Laplace scale must be positive"),
            _ => {}
        }
        if g.count == 0 || g.mu == 0 {
            return fallible!(Input, "each mechanism needs n ≥ 1 and sensitivity ≥ 1");
        }
    }
    let est = estimated_window_shifts(shifts, opts.depth);
    if est > MAX_WINDOW {
        let bytes = if opts.arith == Arith::F64 { 8.0 } else { 2.0 * (opts.arith.bits() as f64 / 8.0 + 32.0) };
        return Err(err!(
            Declined,
            "the lattice would need {} entries (limit {MAX_WINDOW}, ~{:.3e} GB): the loss slopes are not \
             commensurate on a practical lattice, or the noise is too large for one",
            describe_entries(est),
            est as f64 * bytes / 1e9
        )
        .over_limits());
    }
    let (h, w, c) = lattice_frame(shifts);
    let w: Vec<i64> = w.iter().map(|x| x.to_i64().ok_or_else(|| err!(Declined, "lattice weight too large"))).collect::<Result<_, _>>()?;
    // the discrete Gaussian part, then each discrete Laplace group convolved in
    let mut gauss: Vec<(GaussGroup, i64)> = Vec::new();
    let mut lap: Vec<(&Group, i64)> = Vec::new();
    for (g, &wi) in shifts.iter().zip(&w) {
        match &g.noise {
            Noise::Gaussian { sigma2 } => {
                let count = u32::try_from(g.count)
                    .map_err(|_| err!(Declined, "{} queries are too many for the lattice engine", g.count).over_limits())?;
                gauss.push((GaussGroup { sigma2: sigma2.clone(), count, mu: g.mu }, wi));
            }
            Noise::Laplace { .. } => lap.push((g, wi)),
            Noise::Law(_) => return fallible!(Internal, "a privacy-loss law reached the lattice convolution"),
        }
    }
    if !gauss.is_empty() && opts.arith == Arith::F64 {
        return fixed_profile::<f64>(&gauss, &lap, opts.depth, 64, h, c);
    }
    if !gauss.is_empty() && opts.arith == Arith::DoubleDouble {
        return fixed_profile::<DD>(&gauss, &lap, opts.depth, 128, h, c);
    }
    let mut acc = if gauss.is_empty() { None } else { Some(gauss_law(&gauss, opts)?) };
    let lap_prec = opts.arith.bits().max(64);
    for (g, wi) in lap {
        let Noise::Laplace { scale } = &g.noise else { unreachable!() };
        let s = LatticeDist::dlap_shift_sum(scale, g.mu, g.count, lap_prec)?;
        acc = Some(match acc {
            None => scale_law(&s, wi),
            Some(a) => convolve_scaled(&a, &s, wi),
        });
    }
    PrivacyProfile::from_dist(&acc.expect("invariant: at least one group"), h, c)
}

/// The law of Σ w_i S_i over discrete Gaussian groups (S_i the sum of a group's n_i noises), symmetric.
fn gauss_law(groups: &[(GaussGroup, i64)], opts: &LatticeOpts) -> Fallible<LatticeDist> {
    let (prec, depth) = (opts.arith.bits(), opts.depth);
    if groups.len() == 1 && !use_power(&groups[0].0.sigma2, groups[0].0.count, depth) {
        let (g, wi) = &groups[0];
        return Ok(scale_law(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, g.count, prec, depth), *wi));
    }
    // Build the per-group laws, then convolve in order of increasing scaled span, on symmetric half-laws
    // with a relative-error bound (see `SymDist`).
    let mut parts: Vec<(SymDist, i64)> = groups.iter().map(|(g, wi)| (group_law_mpfr(g, prec, depth), *wi)).collect();
    if parts.len() == 1 {
        let (d, wi) = parts.pop().expect("invariant: at least one part");
        return Ok(d.scaled(wi).to_lattice());
    }
    parts.sort_by_key(|(d, wi)| d.v.len() as i64 * wi);
    let mut iter = parts.into_iter();
    let (first, w0) = iter.next().expect("invariant: at least one part");
    let mut acc = first.scaled(w0);
    for (d, wi) in iter {
        crate::num::cancel::check()?;
        acc = acc.convolve(&d, wi).truncated(depth);
    }
    Ok(acc.to_lattice())
}

/// Σ w_i S_i over discrete Gaussian groups in a fixed-precision engine (f64 or double-double).
fn fixed_half<S: Scalar>(groups: &[(GaussGroup, i64)], depth: u32, src_prec: u32) -> SymHalf<S> {
    // each distinct (σ², n) law once (a figure composes 30 equal blocks), the distinct ones side by side
    let mut distinct: Vec<&GaussGroup> = Vec::new();
    for (g, _) in groups {
        if !distinct.iter().any(|d| d.sigma2 == g.sigma2 && d.count == g.count) {
            distinct.push(g);
        }
    }
    let laws: Vec<SymHalf<S>> = distinct
        .par_iter()
        .map(|g| {
            if !fixed_use_power(&g.sigma2, g.count, depth) {
                SymHalf::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, g.count, src_prec, depth))
            } else {
                SymHalf::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, 1, src_prec, depth)).power(g.count, depth)
            }
        })
        .collect();
    let mut parts: Vec<(SymHalf<S>, i64)> = groups
        .iter()
        .map(|(g, wi)| {
            let k = distinct.iter().position(|d| d.sigma2 == g.sigma2 && d.count == g.count).expect("invariant: listed above");
            (laws[k].clone(), *wi)
        })
        .collect();
    parts.sort_by_key(|(d, wi)| (*wi, d.v.len()));
    let mut iter = parts.into_iter();
    let (first, w0) = iter.next().expect("invariant: at least one group");
    let trace = std::env::var_os("TIGHTDP_TRACE").is_some();
    if trace {
        eprintln!("trace: first half {} at stride {w0}", first.v.len());
    }
    let mut acc = first.scaled(w0);
    for (d, wi) in iter {
        if trace {
            eprintln!("trace: convolve half {} with half {} at stride {wi}", acc.v.len(), d.v.len());
        }
        acc = acc.convolve(&d, wi, depth);
    }
    acc
}

/// The profile from a fixed-precision engine: tails straight from the half-law when every group is
/// Gaussian, else its MPFR window convolved with the Laplace groups.
fn fixed_profile<S: Scalar>(
    gauss: &[(GaussGroup, i64)],
    lap: &[(&Group, i64)],
    depth: u32,
    src_prec: u32,
    h: Rational,
    c: Rational,
) -> Fallible<PrivacyProfile> {
    let half = fixed_half::<S>(gauss, depth, src_prec);
    crate::num::cancel::check()?;
    if lap.is_empty() {
        return PrivacyProfile::from_tails(half.into_tails(), h, c);
    }
    let mut acc = half.to_lattice(128);
    for &(g, wi) in lap {
        let Noise::Laplace { scale } = &g.noise else { unreachable!() };
        acc = convolve_scaled(&acc, &LatticeDist::dlap_shift_sum(scale, g.mu, g.count, 128)?, wi);
    }
    PrivacyProfile::from_dist(&acc, h, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::num::Interval;
    use crate::pld::frame::{common_step, F64_PREC};
    use crate::pld::lattice::truncate;
    use rug::{Float, Integer};

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    /// Splitting one i.i.d. group into two groups of the same σ² must give the same profile.
    #[test]
    fn split_group_equals_whole() {
        let s2 = q("3.5");
        let whole = PrivacyProfile::iid_dgauss(&s2, 5, 1, 160);
        let parts = vec![GaussGroup { sigma2: s2.clone(), count: 2, mu: 1 }, GaussGroup { sigma2: q("7/2"), count: 3, mu: 1 }];
        // Same σ² in both groups: common_step gives w = (1, 1).
        let comp = {
            let (h, w) = common_step(&[Rational::from(1) / s2.clone(), Rational::from(1) / s2.clone()]);
            assert_eq!(w, vec![Integer::from(1), Integer::from(1)]);
            let a = LatticeDist::iid_dgauss_sum(&s2, 2, 160);
            let b = LatticeDist::iid_dgauss_sum(&s2, 3, 160);
            let c = truncate(convolve_scaled(&a, &b, 1), 184);
            PrivacyProfile::from_dist(&c, h, crate::budget::zcdp::rho_of(&s2, 5, 1)).unwrap()
        };
        let _ = parts;
        for e in ["0.5", "2", "4"] {
            let a = whole.delta(&q(e)).delta;
            let b = comp.delta(&q(e)).delta;
            assert!(a.overlaps(&b), "ε={e}: {a} vs {b}");
        }
    }

    /// Two different variances: δ(ε) from the lattice against a brute-force double sum over the
    /// two noise values (Lemma A.9 evaluated directly on ℤ², independent code path).
    #[test]
    fn heterogeneous_pair_matches_brute_force() {
        let g = vec![GaussGroup { sigma2: q("2"), count: 1, mu: 1 }, GaussGroup { sigma2: q("3"), count: 1, mu: 1 }];
        let prof = compose_groups(&g, 160).unwrap();
        let d1 = crate::noise::DiscreteGaussian { sigma2: q("2") };
        let d2 = crate::noise::DiscreteGaussian { sigma2: q("3") };
        let p = 160;
        for e in ["0.25", "1", "2.5"] {
            let eps = q(e);
            let mut first = Interval::zero(p);
            let mut second = Interval::zero(p);
            for x in -60i64..=60 {
                for y in -60i64..=60 {
                    // loss under Q at (x,y) with x,y the noise values: (2x+1)/(2·2) + (2y+1)/(2·3)
                    let lq = Rational::from((2 * x + 1, 4)) + Rational::from((2 * y + 1, 6));
                    let lp = Rational::from((2 * x - 1, 4)) + Rational::from((2 * y - 1, 6));
                    let pr = d1.pmf(x, p).mul(&d2.pmf(y, p));
                    if lq > eps {
                        first = first.add(&pr);
                    }
                    if lp > eps {
                        second = second.add(&pr);
                    }
                }
            }
            let brute = first.sub(&Interval::from_rational(&eps, p).exp().mul(&second));
            let got = prof.delta(&eps).delta;
            let diff = Float::with_val(p, got.mid() - brute.mid()).abs();
            assert!(diff < 1e-30, "ε={e}: {got} vs {brute}");
        }
    }

    /// The double-precision engine (prec 53) against the MPFR engine on a heterogeneous composition:
    /// its certified bracket must contain the MPFR enclosure and be narrow (relative ~1e-12).
    #[test]
    fn f64_engine_brackets_the_mpfr_engine() {
        let g = vec![
            GaussGroup { sigma2: q("5000/73"), count: 10, mu: 1 },
            GaussGroup { sigma2: q("50000/10001"), count: 10, mu: 1 },
            GaussGroup { sigma2: q("100000/219"), count: 10, mu: 1 },
        ];
        let fast = compose_groups(&g, F64_PREC).unwrap();
        let slow = compose_groups(&g, 160).unwrap();
        for d in ["1e-10", "1e-4"] {
            let a = fast.epsilon(&q(d)).unwrap();
            let b = slow.epsilon(&q(d)).unwrap();
            assert!(a.contains_interval(&b), "δ={d}: f64 {a} does not contain MPFR {b}");
            assert!(a.width() < 1e-9, "δ={d}: width {}", a.width());
        }
        for e in ["1", "5"] {
            let a = fast.delta(&q(e)).delta;
            let b = slow.delta(&q(e)).delta;
            assert!(a.contains_interval(&b), "ε={e}: {a} vs {b}");
        }
    }

    #[test]
    fn refuses_huge_windows() {
        let g = vec![GaussGroup { sigma2: q("1/1000003"), count: 1, mu: 1 }, GaussGroup { sigma2: q("999983"), count: 1, mu: 1 }];
        // slopes 1000003 and 1/999983: step 1/999983, weights ~1e12 — must be refused with an estimate.
        let e = compose_groups(&g, 128).unwrap_err();
        assert!(e.message().contains("entries"), "{e}");
        // a refusal by size: another engine may answer; alone, it is a resource limit
        assert!(e.is_declined() && e.settled_kind() == crate::error::ErrorKind::Resource, "{e:?}");
    }
}
