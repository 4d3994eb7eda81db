//! One release of one mechanism (a law with count 1): δ(ε) straight from the law's certified distribution
//! functions, no grid,
//!
//!   δ(ε) = A[L = +∞] + A[L ≥ ε] − e^ε B[L ≥ ε]        ([SSW24, Lemma A.9]; `noise::loss` module doc)
//!
//! (an atom at ε adds a − e^ε·a e^{−ε} = 0 to either side), the larger over the directions; ε(δ) by
//! bisection on δ(ε), which is non-increasing. The trade-off function f(α) = sup_ε [1 − δ(ε) − e^ε α]
//! ([DRS22, Prop 2.12]) from the same splits: as a function of u = e^ε, g(u) = 1 − δ(ln u) − uα is concave
//! (δ(ln u) = sup_S A(S) − u B(S) is convex in u) with the supergradient B[L ≥ ln u] − α there, so
//! g(u) = A[L < ε] + u (B[L ≥ ε] − α) rises while B[L ≥ ε] ≥ α and falls after. A search on ε keeps
//! ε₋ with B[L ≥ ε₋] ≥ α and ε₊ with B[L > ε₊] ≤ α, both certified (any value in [B[L > ε], B[L ≥ ε]] − α
//! is a supergradient of g at e^ε); the supremum lies between max(g(u₋), g(u₊)) and the smaller of the two
//! tangents' values across [u₋, u₊], g(u₋) + (B[L ≥ ε₋] − α)(u₊ − u₋) and g(u₊) + (α − B[L > ε₊])(u₊ − u₋).
//! The test points are an Illinois secant on B − α (the ends' midpoints choose them; every move is
//! decided by the enclosures), or a knot of the law (an atom of its loss) while one lies between the ends:
//! at a knot whose atom holds the threshold, B[L > ε] ≤ α ≤ B[L ≥ ε], the supremum is g there exactly
//! (`engines::laplace_sum` gives the knots; one release gives none). The pld grid's dominated law is only
//! first order in its step where the losses are atoms off the grid (the discrete Gaussian sampled without
//! replacement: 2 digits at h = 1/2000); here every digit the law's own enclosures carry is kept.

use super::vocabulary::Query;
use super::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::noise::loss::{directions, Direction, LossLaw};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};

/// Bisection steps at most (each halves the ε bracket; 200 reach 60 digits from [0, 2^12]).
const MAX_STEPS: u32 = 200;
/// The largest ε searched: beyond, the grid engines answer (a law this loose is not one release's).
const MAX_EPSILON: u32 = 1 << 12;

/// δ(ε) of one release of `law`, enclosed at `prec` bits: the larger over the directions.
pub(super) fn delta(law: &dyn LossLaw, eps: &Rational, prec: u32) -> Fallible<Interval> {
    let e = Interval::from_rational(eps, prec).exp();
    let mut out: Option<Interval> = None;
    for &dir in directions(law) {
        let s = law.split(dir, eps, prec)?;
        let (inf, _) = law.infinite(dir, prec)?;
        let d = inf.add(&s.a_above).sub(&e.mul(&s.b_above)).clamp_unit();
        out = Some(match out {
            None => d,
            Some(o) => o.max(&d),
        });
    }
    out.ok_or_else(|| crate::err!(Internal, "a law without directions"))
}

/// ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} of one release, or None when δ(ε) stays above δ up to [`MAX_EPSILON`].
pub(super) fn epsilon(law: &dyn LossLaw, target: &Rational, digits: u32, prec: u32) -> Fallible<Option<Interval>> {
    let t = Interval::from_rational(target, prec);
    // certified: δ(x) > δ, so ε* > x (above); δ(x) ≤ δ, so ε* ≤ x (below)
    let above = |x: &Rational| -> Fallible<bool> { Ok(delta(law, x, prec)?.lo() > t.hi()) };
    let below = |x: &Rational| -> Fallible<bool> { Ok(delta(law, x, prec)?.hi() <= t.lo()) };
    let zero = Rational::from(0);
    if below(&zero)? {
        return Ok(Some(Interval::zero(prec)));
    }
    // a pure-DP law is (ε₀, 0)-DP: δ(ε₀) = 0, so ε₀ is an upper end at once (DLap(4) with sensitivity 10⁶:
    // ε₀ = 250,000, beyond the doubling's reach)
    let mut hi = match law.pure_epsilon() {
        Some(e0) if e0 > 0 && below(&e0)? => e0,
        _ => Rational::from((1, 4)),
    };
    while !below(&hi)? {
        hi *= 2;
        if hi > MAX_EPSILON {
            return Ok(None);
        }
    }
    let mut lo = if above(&zero)? { zero } else { return Ok(None) };
    let rel = Rational::from((1, rug::Integer::from(rug::Integer::u_pow_u(10, digits + 1))));
    let narrow = |lo: &Rational, hi: &Rational| Rational::from(hi - lo) <= Rational::from(hi * &rel);
    // each end on its own certain predicate (as `pld::search::bisect_epsilon`): a midpoint where δ's
    // enclosure straddles the target moves only the other end's search bound, never an end, so the
    // bracket still shrinks to where the law's enclosures stop deciding
    let (mut ulo, mut steps) = (lo.clone(), 0);
    while !narrow(&ulo, &hi) && steps < MAX_STEPS {
        crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
        let mid = Rational::from(&ulo + &hi) / 2;
        if below(&mid)? {
            hi = mid;
        } else {
            ulo = mid;
        }
        steps += 1;
    }
    let (mut lhi, mut steps) = (hi.clone(), 0);
    while !narrow(&lo, &lhi) && steps < MAX_STEPS {
        crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
        let mid = Rational::from(&lo + &lhi) / 2;
        if above(&mid)? {
            lo = mid;
        } else {
            lhi = mid;
        }
        steps += 1;
    }
    let lo_f = Float::with_val_round(prec, &lo, Round::Down).0;
    let hi_f = Float::with_val_round(prec, &hi, Round::Up).0;
    Ok(Some(Interval::new(lo_f, hi_f)))
}

/// g(u) = A[L < ε] + u (B[L ≥ ε] − α) at one ε (module doc), with u = e^ε, ε itself and the ends of g's
/// superdifferential there, B[L ≥ ε] − α and B[L > ε] − α (any value between is a supergradient of the
/// concave g; a law without atoms, or a caller that does not separate them, gives B[L ≥ ε] for both).
pub(in crate::account) struct Point {
    eps: Rational,
    u: Interval,
    g: Interval,
    b_ge: Interval,
    b_gt: Interval,
}

impl Point {
    /// The point at `eps` from A[L < ε], B[L ≥ ε] and B[L > ε], enclosed, and α enclosed in `al`.
    pub(in crate::account) fn new(eps: Rational, a_below: &Interval, b_ge: Interval, b_gt: Interval, al: &Interval) -> Point {
        let u = Interval::from_rational(&eps, al.prec()).exp();
        let g = a_below.add(&u.mul(&b_ge.sub(al)));
        Point { eps, u, g, b_ge, b_gt }
    }

    fn at(law: &dyn LossLaw, dir: Direction, eps: Rational, al: &Interval, prec: u32) -> Fallible<Point> {
        let s = law.split(dir, &eps, prec)?;
        Ok(Point::new(eps, &s.a_below, s.b_above.clone(), s.b_above, al))
    }
}

/// f(α) in one direction of one release (module doc), or None when the threshold lies beyond ±[`MAX_EPSILON`].
fn tradeoff_dir(law: &dyn LossLaw, dir: Direction, alpha: &Rational, digits: u32, prec: u32) -> Fallible<Option<Interval>> {
    let al = Interval::from_rational(alpha, prec);
    tradeoff_concave(&|e| Point::at(law, dir, e, &al, prec), &|_, _| None, &al, digits)
}

/// sup_u g(u) for the concave g of a law's points (module doc): ε₋ with B[L ≥ ε₋] ≥ α and ε₊ with
/// B[L > ε₊] ≤ α, both certified, found by doubling out from 0 and narrowed, the test point being a knot
/// of the law strictly between the ends where `knot` names one (an atom of the loss: there the
/// superdifferential holds 0 for a range of α, and the point can be both ends at once, the supremum then
/// g there exactly), an Illinois secant on B − α otherwise ([`secant_point`]); until the bracket meets
/// `digits` or the enclosures decide no further. None when a threshold lies beyond ±[`MAX_EPSILON`].
pub(in crate::account) fn tradeoff_concave(
    at: &dyn Fn(Rational) -> Fallible<Point>,
    knot: &dyn Fn(&Rational, &Rational) -> Option<Rational>,
    al: &Interval,
    digits: u32,
) -> Fallible<Option<Interval>> {
    let (mut lo, mut hi) = (at(Rational::from((-1, 4)))?, at(Rational::from((1, 4)))?);
    while lo.b_ge.lo() < al.hi() {
        if lo.eps < -i64::from(MAX_EPSILON) {
            return Ok(None);
        }
        lo = at(Rational::from(&lo.eps * 2))?;
    }
    while hi.b_gt.hi() > al.lo() {
        if hi.eps > MAX_EPSILON {
            return Ok(None);
        }
        hi = at(Rational::from(&hi.eps * 2))?;
    }
    let bracket = |lo: &Point, hi: &Point| {
        let du = hi.u.sub(&lo.u);
        let up = lo.g.add(&lo.b_ge.sub(al).mul(&du)).min(&hi.g.add(&al.sub(&hi.b_gt).mul(&du)));
        let low = lo.g.max(&hi.g);
        Interval::new(low.lo().clone(), up.hi().clone().max(low.lo())).clamp_unit()
    };
    let rel = 10f64.powi(-(digits as i32) - 1);
    // the secant's values B − α at the ends, and which end the last step kept (Illinois: an end kept twice
    // has its value halved, so the secant does not stall on one side)
    let slope = |p: &Point, strict: bool| {
        let b = if strict { &p.b_gt } else { &p.b_ge };
        Float::with_val(64, Float::with_val(al.prec(), &b.mid() - &al.mid())).to_f64()
    };
    let (mut f_lo, mut f_hi, mut kept) = (slope(&lo, false), slope(&hi, true), 0i8);
    for _ in 0..MAX_STEPS {
        let f = bracket(&lo, &hi);
        if Float::with_val(64, f.hi() - f.lo()).to_f64() <= rel * f.hi().to_f64() {
            break;
        }
        crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
        let test = knot(&lo.eps, &hi.eps).unwrap_or_else(|| secant_point(&lo.eps, f_lo, &hi.eps, f_hi));
        let mid = at(test)?;
        let (is_lo, is_hi) = (mid.b_ge.lo() >= al.hi(), mid.b_gt.hi() <= al.lo());
        match (is_lo, is_hi) {
            // a knot where the superdifferential holds 0: the supremum is g there
            (true, true) => return Ok(Some(mid.g.clamp_unit())),
            (true, false) => {
                f_lo = slope(&mid, false);
                lo = mid;
                kept = if kept > 0 { kept + 1 } else { 1 };
            }
            (false, true) => {
                f_hi = slope(&mid, true);
                hi = mid;
                kept = if kept < 0 { kept - 1 } else { -1 };
            }
            // B[L ≥ ε] straddles α: the enclosures decide no further
            (false, false) => break,
        }
        // hi kept twice (lo moved twice): halve its value; and the other way round
        if kept >= 2 {
            f_hi /= 2.0;
        } else if kept <= -2 {
            f_lo /= 2.0;
        }
    }
    Ok(Some(bracket(&lo, &hi)))
}

/// The search's next test point: the zero of the secant through (lo, f_lo ≥ 0) and (hi, f_hi ≤ 0), kept
/// at least 1/64 of the bracket inside either end (the midpoint where the values give no secant), rounded to a
/// dyadic 2^−20 of the bracket's width (the test points' denominators stay small).
fn secant_point(lo: &Rational, f_lo: f64, hi: &Rational, f_hi: f64) -> Rational {
    let w = Rational::from(hi - lo);
    let frac = f_lo / (f_lo - f_hi);
    let frac = if frac.is_finite() { frac.clamp(1.0 / 64.0, 63.0 / 64.0) } else { 0.5 };
    let bits = 20 - w.to_f64().log2().floor() as i32;
    let scale = Rational::from(rug::Integer::from(1) << bits.max(0) as u32);
    let t = lo + w * Rational::from_f64(frac).unwrap_or_else(|| Rational::from((1, 2)));
    let t = Rational::from(&t * &scale).floor() / &scale;
    if t > *lo && t < *hi {
        t
    } else {
        Rational::from(lo + hi) / 2
    }
}

/// f(α) of one release: the smaller over the directions, or None when a threshold is out of reach.
pub(super) fn tradeoff(law: &dyn LossLaw, alpha: &Rational, digits: u32, prec: u32) -> Fallible<Option<Interval>> {
    if *alpha <= 0 || *alpha >= 1 {
        return Ok(None);
    }
    let mut out: Option<Interval> = None;
    for &dir in directions(law) {
        let Some(f) = tradeoff_dir(law, dir, alpha, digits, prec)? else { return Ok(None) };
        out = Some(match out {
            None => f,
            Some(o) => o.min(&f),
        });
    }
    Ok(out)
}

/// The query on one release of `law`, or None where this path does not answer (an ε or a trade-off
/// threshold beyond ±[`MAX_EPSILON`], α outside (0, 1)).
pub(super) fn query(law: &dyn LossLaw, q: Query, digits: u32, prec: u32, trust: Trust) -> Fallible<Option<Certified>> {
    let detail = if matches!(q, Query::Tradeoff(_)) {
        "one release: f(alpha) = sup_eps [1 - delta(eps) - e^eps alpha] at the threshold where B[L >= eps] = alpha, from the law's certified distribution functions (no grid)"
    } else {
        "one release: delta(eps) = A[L = inf] + A[L >= eps] - e^eps B[L >= eps] from the law's certified distribution functions (no grid)"
    };
    let iv = match q {
        Query::Delta(e) => delta(law, e, prec)?,
        Query::Epsilon(d) => match epsilon(law, d, digits, prec)? {
            Some(iv) => iv,
            None => return Ok(None),
        },
        Query::Tradeoff(a) => match tradeoff(law, a, digits, prec)? {
            Some(iv) => iv,
            None => return Ok(None),
        },
    };
    Certified::new(iv, Engine::Closed, trust, detail.to_string()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::gauss::Gaussian;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// One Gaussian release against its closed form [BW18, Thm 8] (`noise::gauss`, checked in turn against
    /// mpmath in scripts/reference/gaussian_closed_forms.py): δ(1) and ε(1e-6) overlap it to 30 digits.
    #[test]
    fn one_gaussian_release_is_its_closed_form() {
        let p = 160;
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        let eta = g.eta();
        let d = delta(&g, &q("1"), p).unwrap();
        let truth = crate::noise::gauss::delta(&eta, &q("1"), p);
        assert!(d.lo() <= truth.hi() && truth.lo() <= d.hi(), "{d:?} vs {truth:?}");
        assert!(Float::with_val(64, d.hi() - d.lo()).to_f64() < 1e-30 * truth.hi().to_f64());
        let e = epsilon(&g, &q("1e-6"), 30, p).unwrap().unwrap();
        let truth = crate::pld::search::gaussian_epsilon(&eta, &q("1e-6"), 30, p).unwrap();
        assert!(e.lo() <= truth.hi() && truth.lo() <= e.hi(), "{e:?} vs {truth:?}");
        assert!(Float::with_val(64, e.hi() - e.lo()).to_f64() < 1e-28 * truth.hi().to_f64());
    }

    /// One release of the Poisson-subsampled Laplace at dyadic rates (where the subsampled loss's preimage
    /// of 0 is exact) against mpmath's closed forms (scripts/reference/subsampled_laplace_dyadic.txt): every
    /// bracket holds the reference and carries 18 digits or more.
    #[test]
    fn subsampled_laplace_at_dyadic_rates_holds_the_mpmath_values() {
        use crate::noise::{laplace::Laplace, subsample::PoissonSampled};
        let base: std::sync::Arc<dyn LossLaw> = std::sync::Arc::new(Laplace::new(q("1"), q("1")).unwrap());
        let mut seen = 0;
        for f in crate::num::reference::rows(include_str!("../../scripts/reference/subsampled_laplace_dyadic.txt")) {
            let law = PoissonSampled::new(base.clone(), q(f[0])).unwrap();
            let p = 160;
            let got = if f[1] == "1e-5" { epsilon(&law, &q(f[1]), 20, p).unwrap().unwrap() } else { delta(&law, &q(f[1]), p).unwrap() };
            let want = Float::with_val(p, Float::parse(f[2]).unwrap());
            let tol = Float::with_val(p, &want * 1e-40f64);
            assert!(got.lo() <= &Float::with_val(p, &want + &tol) && &Float::with_val(p, &want - &tol) <= got.hi(), "{f:?}: {got:?}");
            assert!(Float::with_val(64, got.hi() - got.lo()).to_f64() < 1e-18 * want.to_f64(), "{f:?}: {got:?}");
            seen += 1;
        }
        assert_eq!(seen, 4);
    }

    /// f(α) of one Poisson-subsampled release (Gaussian and Laplace, whose loss has atoms) against the
    /// Neyman–Pearson tests of the pair in the data space, by mpmath at 40 digits
    /// (scripts/reference/single_release_tradeoff.txt): every bracket holds the smaller of the two orders'
    /// values and carries 20 digits; a deliberately wrong α (the reference's α + 1e-12) is told apart.
    #[test]
    fn subsampled_tradeoff_holds_the_neyman_pearson_tests() {
        use crate::noise::{laplace::Laplace, subsample::PoissonSampled};
        let p = 160;
        let mut seen = 0;
        for f in crate::num::reference::rows(include_str!("../../scripts/reference/single_release_tradeoff.txt")) {
            let base: std::sync::Arc<dyn LossLaw> = if f[0] == "gauss" {
                std::sync::Arc::new(Gaussian::new(q(f[2]) * q(f[2]), q("1")).unwrap())
            } else {
                std::sync::Arc::new(Laplace::new(q(f[2]), q("1")).unwrap())
            };
            let law = PoissonSampled::new(base, q(f[1])).unwrap();
            let got = tradeoff(&law, &q(f[3]), 20, p).unwrap().unwrap_or_else(|| panic!("{f:?} declined"));
            let want = Float::with_val(p, Float::parse(f[6]).unwrap());
            let tol = Float::with_val(p, &want * 1e-30f64);
            assert!(got.lo() <= &Float::with_val(p, &want + &tol) && &Float::with_val(p, &want - &tol) <= got.hi(), "{f:?}: {got:?}");
            assert!(Float::with_val(64, got.hi() - got.lo()).to_f64() < 1e-20 * want.to_f64(), "{f:?}: {got:?}");
            let off = tradeoff(&law, &(q(f[3]) + q("1e-12")), 20, p).unwrap().unwrap();
            assert!(off.hi() < &Float::with_val(p, &want - &tol), "{f:?}: α + 1e-12 gives {off:?}");
            seen += 1;
        }
        assert_eq!(seen, 12);
    }
}
