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
use crate::noise::dgauss::GUARD_BITS;
use crate::num::dd::DD;
use crate::num::Arith;
use crate::pld::estimate::{describe_entries, estimated_window_shifts};
use crate::pld::fixed::{Scalar, SymHalf};
use crate::pld::lattice::LatticeDist;
use crate::pld::profile::PrivacyProfile;
use crate::{err, fallible};
use rayon::prelude::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

/// Largest lattice window (entries) a composition may allocate before it is refused.
pub const MAX_WINDOW: u64 = 40_000_000;

/// Common step h of the loss slopes and the integer weights w_i.
pub fn common_step(slopes: &[Rational]) -> (Rational, Vec<Integer>) {
    let mut g = Integer::from(0);
    let mut l = Integer::from(1);
    for s in slopes {
        g = g.gcd(s.numer());
        l = l.lcm(s.denom());
    }
    let h = Rational::from((g, l));
    let w = slopes
        .iter()
        .map(|s| {
            let q = Rational::from(s / &h);
            assert_eq!(*q.denom(), 1);
            q.numer().clone()
        })
        .collect();
    (h, w)
}

/// What a lattice engine is asked for: the arithmetic (the certified f64 or double-double convolution,
/// or MPFR at a precision) and the truncation depth: the window keeps all but about 2^-depth of the mass
/// of the loss statistic. The depth bounds what can be resolved: a tail probability below 2^-depth, or a
/// second term e^ε·P[…] with e^ε·2^-depth above δ, is only known to be at most the outside mass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatticeOpts {
    pub arith: Arith,
    pub depth: u32,
}

impl LatticeOpts {
    /// The default depth: the working precision + GUARD_BITS (MPFR, double-double), TRUNC_BITS_F64 for the
    /// f64 engine.
    pub fn new(arith: Arith) -> LatticeOpts {
        LatticeOpts { arith, depth: if arith == Arith::F64 { TRUNC_BITS_F64 } else { arith.bits() + GUARD_BITS } }
    }
}

/// Loss slope of one shift in the statistic T of `LatticeDist`: μ/σ² (discrete Gaussian), 2/b (Laplace).
pub(super) fn slope(g: &Group) -> Rational {
    match &g.noise {
        Noise::Gaussian { sigma2 } => Rational::from(g.mu) / sigma2.clone(),
        Noise::Laplace { scale } => Rational::from(2u32) / scale.clone(),
        // not a lattice law: the entry points decline it ([`check_lattice`]); a unit slope keeps the
        // estimates defined
        Noise::Law(_) => Rational::from(1),
    }
}

/// The lattice engines take discrete Gaussian and discrete Laplace noise only.
pub fn check_lattice(shifts: &[Group]) -> Fallible<()> {
    match shifts.iter().find(|g| matches!(g.noise, Noise::Law(_))) {
        Some(g) => {
            fallible!(Declined, "the lattice engines take discrete Gaussian and discrete Laplace noise only, not {}", g.noise.describe())
        }
        None => Ok(()),
    }
}

/// Offset of a group's loss under the alternative: n μ²/(2σ²) (discrete Gaussian), −n μ/b (Laplace).
fn offset(g: &Group) -> Rational {
    match &g.noise {
        Noise::Gaussian { sigma2 } => {
            let mu = Rational::from(g.mu);
            Rational::from(g.count) * Rational::from(&mu * &mu) / (Rational::from(2) * sigma2.clone())
        }
        Noise::Laplace { scale } => -(Rational::from(g.count) * Rational::from(g.mu) / scale.clone()),
        Noise::Law(_) => Rational::from(0),
    }
}

/// The loss lattice of a composition of shifts: the step h, each group's integer weight w_i (slope / h)
/// and the offset c, so that L = hV + c under the alternative with V = Σ w_i T_i (`profile.rs`).
pub fn lattice_frame(shifts: &[Group]) -> (Rational, Vec<Integer>, Rational) {
    let (h, w) = common_step(&shifts.iter().map(slope).collect::<Vec<_>>());
    let c = shifts.iter().fold(Rational::from(0), |a, g| a + offset(g));
    (h, w, c)
}

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
    PrivacyProfile::from_dist(&acc.expect("at least one group"), h, c)
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
        let (d, wi) = parts.pop().unwrap();
        return Ok(d.scaled(wi).to_lattice());
    }
    parts.sort_by_key(|(d, wi)| d.v.len() as i64 * wi);
    let mut iter = parts.into_iter();
    let (first, w0) = iter.next().unwrap();
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
            let k = distinct.iter().position(|d| d.sigma2 == g.sigma2 && d.count == g.count).expect("listed above");
            (laws[k].clone(), *wi)
        })
        .collect();
    parts.sort_by_key(|(d, wi)| (*wi, d.v.len()));
    let mut iter = parts.into_iter();
    let (first, w0) = iter.next().expect("at least one group");
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

/// Groups of at most this many queries are always built by the residue-class recursion (eq. A.5).
pub const POWER_FROM: u32 = 24;

/// Binary powering for a group of n queries of N_Z(0, σ²) at truncation depth `depth`: when n exceeds
/// both POWER_FROM and 2K (K the one-query half-window), where its cost ~2nK² falls below the residue
/// recursion's n²K. Below that the recursion is both cheaper and tighter (directed rounding per entry).
pub fn use_power(sigma2: &Rational, n: u32, depth: u32) -> bool {
    n > POWER_FROM && n as usize > 2 * crate::noise::gauss_terms::radius_for_bits(sigma2, depth)
}

/// Residue-construction work (n²K MPFR multiply-adds) above which the fixed-precision engines square
/// instead: their squarings run in blocked f64/double-double kernels, ~100× cheaper per operation than
/// the MPFR residue recursion (1,000 × N_Z(0, 10⁴) at 1e-10: > 60 s in MPFR residues; the cheap cases,
/// every result in results/ among them, keep the residue construction and their bits).
pub const FIXED_RESIDUE_MAX_OPS: f64 = 2e8;

/// The fixed-precision engines' choice: binary powering where [`use_power`] says so, or where the MPFR
/// residue construction would exceed [`FIXED_RESIDUE_MAX_OPS`].
pub fn fixed_use_power(sigma2: &Rational, n: u32, depth: u32) -> bool {
    let k = crate::noise::gauss_terms::radius_for_bits(sigma2, depth) as f64;
    use_power(sigma2, n, depth) || (n > POWER_FROM && (n as f64) * (n as f64) * k > FIXED_RESIDUE_MAX_OPS)
}

/// The law of a group's sum S = X_1 + … + X_n as a symmetric half-law: the residue construction for small
/// n, else binary powering of the one-query law (cost ~ n·K² instead of n²·K for a window of K per query;
/// each squaring is a convolution with the same relative-error bound, truncated at 2^-depth).
pub fn group_law_mpfr(g: &GaussGroup, prec: u32, depth: u32) -> SymDist {
    if !use_power(&g.sigma2, g.count, depth) {
        return SymDist::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, g.count, prec, depth));
    }
    let one = SymDist::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, 1, prec, depth));
    one.power(g.count, depth)
}

/// A law on ℤ symmetric about 0, stored as its non-negative half v[0..=M] of values computed with
/// round-to-nearest, and one relative error bound e: the true P[V = ±y] lies in [v_y(1−e), v_y(1+e)];
/// plus a bound on the total mass outside [−M, M].
///
/// Convolving non-negative sequences in floating point has a rigorous relative error bound: a sum of K
/// non-negative products, each accumulated with one rounding (fused multiply-add), is within γ_K =
/// K·u/(1 − K·u) of the exact sum relative to itself (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, §3.1), u = 2^-prec. With inputs known to relative e_a, e_b the output is known to
/// (1+e_a)(1+e_b)/(1−γ_K) − 1. This halves the work of interval end points and symmetry halves it again.
#[derive(Clone, Debug)]
pub struct SymDist {
    pub v: Vec<Float>,
    pub e: Float,
    pub outside: Float,
    pub prec: u32,
}

/// Precision of the error-bound bookkeeping (upward rounded).
const EPREC: u32 = 64;

/// Relative error bound after convolving non-negative laws known to relative e_a and e_b, when each
/// output is a sum of at most K products rounded to nearest with unit roundoff u = 2^-unit_bits:
/// (1+e_a)(1+e_b)/(1−γ_K) − 1 = (e_a + e_b + e_a·e_b + γ)/(1 − γ), γ = Ku/(1 − Ku) (Higham §3.1),
/// evaluated on the small quantities themselves (rounded up) so EPREC bits are relative to them.
pub(crate) fn convolved_rel_error(ea: &Float, eb: &Float, k: u64, unit_bits: u32) -> Float {
    let u = Float::with_val(EPREC, Float::with_val(EPREC, 2).pow(-(unit_bits as i32)));
    let ku = Float::with_val_round(EPREC, Float::with_val(EPREC, k) * &u, Round::Up).0;
    let one = Float::with_val(EPREC, 1);
    let gamma = Float::with_val_round(EPREC, &ku / Float::with_val_round(EPREC, &one - &ku, Round::Down).0, Round::Up).0;
    convolved_rel_error_gamma(ea, eb, &gamma)
}

/// (1 + e_a)(1 + e_b)/(1 − γ) − 1 for a computed sum of non-negative products with relative error ≤ γ.
pub(crate) fn convolved_rel_error_gamma(ea: &Float, eb: &Float, gamma: &Float) -> Float {
    let one = Float::with_val(EPREC, 1);
    let eab = Float::with_val_round(EPREC, ea * eb, Round::Up).0;
    let mut num = Float::with_val_round(EPREC, ea + eb, Round::Up).0;
    num = Float::with_val_round(EPREC, &num + &eab, Round::Up).0;
    num = Float::with_val_round(EPREC, &num + gamma, Round::Up).0;
    Float::with_val_round(EPREC, &num / Float::with_val_round(EPREC, &one - gamma, Round::Down).0, Round::Up).0
}

impl SymDist {
    /// From a symmetric lattice law with window [−M, M] (lo/hi bounds).
    pub fn from_lattice(d: &LatticeDist) -> SymDist {
        assert_eq!(d.min, -d.max(), "SymDist needs a symmetric window");
        let c = d.max() as usize;
        let p = d.prec;
        // entries whose lower mass underflowed MPFR's exponent range (σ² ≪ 1: e^{−x²/(2σ²)} below
        // 2^-(2^30)) are not resolvable as relative bounds: they leave the window, their upper masses
        // joining the certified outside mass
        let m = (1..=c).find(|&y| !(d.lo[c + y] > 0 && d.lo[c - y] > 0)).map_or(c, |y| y - 1);
        let mut outside = d.outside.clone();
        for y in m + 1..=c {
            for i in [c + y, c - y] {
                outside = Float::with_val_round(outside.prec().max(p), &outside + &d.hi[i], Round::Up).0;
            }
        }
        let mut e = Float::with_val(EPREC, 0);
        let mut v = Vec::with_capacity(m + 1);
        for y in 0..=m {
            for i in [c + y, c - y] {
                // hi ≤ lo(1 + e)  ⇔  e ≥ hi/lo − 1
                let r = Float::with_val_round(EPREC, Float::with_val_round(p, &d.hi[i] / &d.lo[c + y], Round::Up).0 - 1u32, Round::Up).0;
                let r2 = Float::with_val_round(EPREC, 1u32 - Float::with_val_round(p, &d.lo[i] / &d.lo[c + y], Round::Down).0, Round::Up).0;
                for x in [r, r2] {
                    if x > e {
                        e = x;
                    }
                }
            }
            v.push(d.lo[c + y].clone());
        }
        SymDist { v, e, outside, prec: p }
    }

    pub fn half_len(&self) -> i64 {
        self.v.len() as i64 - 1
    }

    /// The law of the sum of n independent copies, by binary powering (square and multiply), truncated at
    /// 2^-depth after every convolution.
    pub fn power(&self, n: u32, depth: u32) -> SymDist {
        let mut acc: Option<SymDist> = None;
        let mut base = self.clone();
        let mut k = n;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => base.clone(),
                    Some(a) => a.convolve(&base, 1).truncated(depth),
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.convolve(&base, 1).truncated(depth);
        }
        acc.expect("n >= 1")
    }

    /// Law of w·X (stride w).
    pub fn scaled(&self, w: i64) -> SymDist {
        if w == 1 {
            return self.clone();
        }
        let m = self.half_len() as usize;
        let mut v = vec![Float::with_val(self.prec, 0); m * w as usize + 1];
        for (y, x) in self.v.iter().enumerate() {
            v[y * w as usize] = x.clone();
        }
        SymDist { v, e: self.e.clone(), outside: self.outside.clone(), prec: self.prec }
    }

    /// Law of A + w·B (A = self), exact up to the tracked relative error; parallel over outputs.
    pub fn convolve(&self, b: &SymDist, w: i64) -> SymDist {
        let p = self.prec.max(b.prec);
        let am = self.half_len();
        let bm = b.half_len();
        let om = am + w * bm;
        let out: Vec<Float> = (0..(om + 1) as usize)
            .into_par_iter()
            .with_min_len(64)
            .map(|v| {
                let v = v as i64;
                let mut acc = Float::with_val(p, 0);
                // |v − w·bv| ≤ am  ⇔  bv ∈ [⌈(v − am)/w⌉, ⌊(v + am)/w⌋]
                let lo = div_ceil(v - am, w).max(-bm);
                let hi = (v + am).div_euclid(w).min(bm);
                if crate::num::cancel::requested() {
                    return acc;
                } // discarded: see num::cancel
                let mut bv = lo;
                while bv <= hi {
                    let ai = (v - w * bv).unsigned_abs() as usize;
                    let bi = bv.unsigned_abs() as usize;
                    acc += &self.v[ai] * &b.v[bi];
                    bv += 1;
                }
                acc
            })
            .collect();
        // γ_K with K = 2·bm + 1 terms at most, u = 2^-p.
        let e = convolved_rel_error(&self.e, &b.e, (2 * bm + 1) as u64, p);
        // If both summands lie in their windows the sum lies in this window.
        let outside = Float::with_val_round(p, &self.outside + &b.outside, Round::Up).0;
        SymDist { v: out, e, outside, prec: p }
    }

    /// Drop symmetric ends whose *total* certified mass (both sides) is below 2^-bits, adding it to
    /// `outside`.
    pub fn truncated(mut self, bits: u32) -> SymDist {
        let p = self.prec;
        let thresh = Float::with_val(p, Float::with_val(p, 2).pow(-(bits as i32)));
        let fe = Float::with_val_round(p, 1u32 + Float::with_val(p, &self.e), Round::Up).0;
        let mut keep = self.v.len();
        let mut dropped = Float::with_val(p, 0);
        while keep > 1 {
            let hi = Float::with_val_round(p, &self.v[keep - 1] * &fe, Round::Up).0;
            let next = Float::with_val_round(p, &dropped + Float::with_val_round(p, &hi * 2u32, Round::Up).0, Round::Up).0;
            if next > thresh {
                break;
            }
            dropped = next;
            keep -= 1;
        }
        if keep == self.v.len() {
            return self;
        }
        self.v.truncate(keep);
        self.outside = Float::with_val_round(p, &self.outside + &dropped, Round::Up).0;
        self
    }

    /// Expand to a full window with interval end points v(1 ∓ e).
    pub fn to_lattice(&self) -> LatticeDist {
        let p = self.prec;
        let m = self.half_len();
        let one = Float::with_val(p, 1);
        let flo = Float::with_val_round(p, &one - Float::with_val(p, &self.e), Round::Down).0;
        let fhi = Float::with_val_round(p, &one + Float::with_val(p, &self.e), Round::Up).0;
        let mut lo = Vec::with_capacity(2 * m as usize + 1);
        let mut hi = Vec::with_capacity(2 * m as usize + 1);
        for y in -m..=m {
            let x = &self.v[y.unsigned_abs() as usize];
            lo.push(Float::with_val_round(p, x * &flo, Round::Down).0);
            hi.push(Float::with_val_round(p, x * &fhi, Round::Up).0);
        }
        LatticeDist { min: -m, lo, hi, outside: self.outside.clone(), prec: p }
    }
}

/// [`Arith::F64`], the double-precision engine: the same symmetric relative-error convolution as
/// [`SymDist`], in f64 (round to nearest, unit roundoff u = 2^-53, Higham's γ_K bound for sums of K
/// non-negative products), with the window truncated at 2^-TRUNC_BITS_F64 of mass regardless of the
/// arithmetic precision (so that tails of 1e-25 stay resolved). Certified like the MPFR engine, with
/// relative errors of order 1e-12 instead of 2^-prec; ~10× faster. This constant is its precision in bits,
/// which callers that pass a bare precision still use to select it ([`Arith::from_legacy_prec`]).
pub const F64_PREC: u32 = Arith::F64_BITS;
/// Truncation level (bits of mass) of the f64 engine.
pub const TRUNC_BITS_F64: u32 = 160;
/// [`Arith::DoubleDouble`], the double-double engine (`pld::fixed`): ~25 digits at a few times the f64
/// cost. Its precision in bits, as [`F64_PREC`].
pub const DD_PREC: u32 = Arith::DD_BITS;

/// The law of w·X from the law of X (support spread out with stride w).
pub fn scale_law(d: &LatticeDist, w: i64) -> LatticeDist {
    if w == 1 {
        return d.clone();
    }
    let p = d.prec;
    let n = (d.len() - 1) * w as usize + 1;
    let mut lo = vec![Float::with_val(p, 0); n];
    let mut hi = vec![Float::with_val(p, 0); n];
    for i in 0..d.len() {
        lo[i * w as usize] = d.lo[i].clone();
        hi[i * w as usize] = d.hi[i].clone();
    }
    LatticeDist { min: d.min * w, lo, hi, outside: d.outside.clone(), prec: p }
}

/// Law of A + w·B for independent A, B (exact convolution with outward rounding, parallel over outputs).
pub fn convolve_scaled(a: &LatticeDist, b: &LatticeDist, w: i64) -> LatticeDist {
    let p = a.prec.max(b.prec);
    let min = a.min + w * b.min;
    let max = a.max() + w * b.max();
    let n = (max - min + 1) as usize;
    let out: Vec<(Float, Float)> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|j| {
            let v = min + j as i64;
            let mut slo = Float::with_val(p, 0);
            let mut shi = Float::with_val(p, 0);
            // b index k: need a index v − w(b.min + k) − a.min in [0, a.len)
            let amax = a.len() as i64 - 1;
            // v − w b_val − a.min ∈ [0, amax]  ⇔  b_val ∈ [(v − a.min − amax)/w, (v − a.min)/w]
            let bv_lo = div_ceil(v - a.min - amax, w).max(b.min);
            let bv_hi = (v - a.min).div_euclid(w).min(b.max());
            if crate::num::cancel::requested() {
                return (slo, shi);
            } // discarded: see num::cancel
            let mut bv = bv_lo;
            while bv <= bv_hi {
                let ai = (v - w * bv - a.min) as usize;
                let bi = (bv - b.min) as usize;
                slo = Float::with_val_round(p, &slo + Float::with_val_round(p, &a.lo[ai] * &b.lo[bi], Round::Down).0, Round::Down).0;
                shi = Float::with_val_round(p, &shi + Float::with_val_round(p, &a.hi[ai] * &b.hi[bi], Round::Up).0, Round::Up).0;
                bv += 1;
            }
            (slo, shi)
        })
        .collect();
    let (lo, hi): (Vec<Float>, Vec<Float>) = out.into_iter().unzip();
    // Outside mass: if both lie in their windows the sum lies in this window, so P[outside] ≤ out_a + out_b.
    let outside = Float::with_val_round(p, &a.outside + &b.outside, Round::Up).0;
    LatticeDist { min, lo, hi, outside, prec: p }
}

pub(crate) fn div_ceil(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// Drop window entries at both ends whose total upper mass is below 2^-bits, adding it to the outside bound.
pub fn truncate(mut d: LatticeDist, bits: u32) -> LatticeDist {
    let p = d.prec;
    let thresh = Float::with_val(p, Float::with_val(p, 2).pow(-(bits as i32)));
    let n = d.len();
    let (mut first, mut last) = (0usize, n);
    let mut dropped = Float::with_val(p, 0);
    loop {
        // drop the smaller end entry while the running total stays below the threshold
        if last - first <= 1 {
            break;
        }
        let i = if d.hi[first] <= d.hi[last - 1] { first } else { last - 1 };
        let next = Float::with_val_round(p, &dropped + &d.hi[i], Round::Up).0;
        if next > thresh {
            break;
        }
        dropped = next;
        if i == first {
            first += 1;
        } else {
            last -= 1;
        }
    }
    if first == 0 && last == n {
        return d;
    }
    d.lo = d.lo[first..last].to_vec();
    d.hi = d.hi[first..last].to_vec();
    d.min += first as i64;
    d.outside = Float::with_val_round(p, &d.outside + &dropped, Round::Up).0;
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::num::Interval;

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
