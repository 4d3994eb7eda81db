//! The lattice that the exact-atoms engines (`atoms`, `atoms_binomial`) compose on, and one law's atoms on
//! it: a leaf both read (the common step of the laws' losses, and each law's A-masses at its lattice points
//! from its distribution functions).

use crate::error::Fallible;
use crate::noise::loss::{directions, Direction, End, LossLaw};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};
use std::sync::Arc;

/// Most lattice points one law may span (its atoms' k_hi − k_lo + 1).
const MAX_POINTS: i64 = 4096;

/// One law's finite atoms on the common lattice and its mass at +∞, for one direction.
pub(super) struct Atoms {
    /// the lattice index of the first entry
    pub(super) k0: i64,
    /// A-masses of the consecutive lattice points from k0
    pub(super) p: Vec<Interval>,
    /// A[L = +∞]
    pub(super) inf: Interval,
}

/// The common lattice of the laws' losses: a rational step s (losses in offset + sℤ, exact rationals), or
/// ln r for a rational r > 1 (losses in (ln r)ℤ, transcendental: enclosed; randomized response given by
/// its keep probability, as dp_accounting's `RandomizedResponseDpEvent`), or one law's own transcendental
/// step ([`LossLaw::enclosed_lattice`]: a stated guarantee on batches drawn without replacement), enclosed
/// by the law at the precision asked.
#[derive(Clone, Debug)]
pub(super) enum Lattice {
    Rational(Rational),
    Log(Rational),
    Enclosed(Arc<dyn LossLaw>),
}

impl Lattice {
    pub(super) fn step_f64(&self) -> f64 {
        match self {
            Lattice::Rational(s) => s.to_f64(),
            Lattice::Log(r) => r.to_f64().ln(),
            Lattice::Enclosed(_) => self.at(64).to_f64(),
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            Lattice::Rational(s) => crate::num::format::fmt_rational(s),
            Lattice::Log(r) => format!("(ln {})", crate::num::format::fmt_rational(r)),
            Lattice::Enclosed(l) => format!("({}…, the step of {})", crate::num::format::fmt_down(self.at(64).lo(), 12), l.spec()),
        }
    }

    /// The loss `offset` + k·s at lattice index k, enclosed at `prec` bits (exact on a rational lattice;
    /// offset 0 on the others).
    pub(super) fn loss(&self, offset: &Rational, k: i64, prec: u32) -> Interval {
        match self {
            Lattice::Rational(s) => Interval::from_rational(&(offset + Rational::from(k) * s), prec),
            Lattice::Log(_) | Lattice::Enclosed(_) => self.at(prec + 64).mul(&Interval::from_i64(k, prec + 64)),
        }
    }

    /// The step enclosed at `prec` bits.
    pub(super) fn at(&self, prec: u32) -> Interval {
        match self {
            Lattice::Rational(s) => Interval::from_rational(s, prec),
            Lattice::Log(r) => Interval::from_rational(r, prec).ln(),
            // (`common_lattice` takes a law's step only where it declares one)
            Lattice::Enclosed(l) => l.enclosed_lattice(prec).expect("invariant: an enclosed lattice is a law's declared step"),
        }
    }
}

/// The common lattice of laws that all have finitely many atoms on one (None otherwise): the gcd of
/// rational steps, or one ln r shared by every law.
pub(super) fn common_lattice(laws: &[(Arc<dyn LossLaw>, u64)]) -> Option<Lattice> {
    let mut g: Option<Lattice> = None;
    for (l, _) in laws {
        if l.rho_only() {
            return None;
        }
        for &dir in directions(l.as_ref()) {
            let r = l.range(dir);
            if !matches!((&r.lo, &r.hi), (End::Atom(_), End::Atom(_))) {
                return None;
            }
        }
        let this = match (l.lattice(), l.log_lattice()) {
            (Some(s), _) => Lattice::Rational(s),
            (None, Some(r)) if r > 1 && l.lattice_offset() == 0 => Lattice::Log(r),
            (None, None) if l.lattice_offset() == 0 && l.enclosed_lattice(64).is_some() => Lattice::Enclosed(Arc::clone(l)),
            _ => return None,
        };
        g = Some(match (g, this) {
            (None, t) => t,
            (Some(Lattice::Rational(a)), Lattice::Rational(b)) => Lattice::Rational(crate::num::rational_gcd(&a, &b)),
            (Some(Lattice::Log(a)), Lattice::Log(b)) if a == b => Lattice::Log(a),
            _ => return None,
        });
    }
    g
}

/// The lattice indices (k_lo, k_hi) of one law's two finite ends in direction `dir`, or None if an end is
/// not an atom, an index is out of reach, or the law spans more than [`MAX_POINTS`] lattice points.
pub(super) fn index_range(l: &dyn LossLaw, dir: Direction, step: &Lattice) -> Option<(i64, i64)> {
    let r = l.range(dir);
    let (End::Atom(lo), End::Atom(hi)) = (&r.lo, &r.hi) else { return None };
    let off = l.lattice_offset().to_f64();
    let index = |x: &Interval| -> Option<i64> {
        let k = (x.to_f64() - off) / step.step_f64();
        (k.is_finite() && k.abs() < 1e15).then(|| k.round() as i64)
    };
    let (k_lo, k_hi) = (index(lo)?, index(hi)?);
    (k_hi >= k_lo && k_hi - k_lo < MAX_POINTS).then_some((k_lo, k_hi))
}

/// The working precision (bits) of an exact-atoms answer to `digits` significant digits: 3.33 bits a
/// digit, two guard digits and 64 bits for the sums' rounding.
pub(super) fn working_prec(digits: u32) -> u32 {
    64 + (3.33 * f64::from(digits + 2)).ceil() as u32
}

/// f at the ends of [0, 1], exactly: f(0) = 1 − A[L = +∞] (`inf`), f(1) = 0; None inside.
pub(super) fn tradeoff_end(alpha: &Rational, inf: &Interval, prec: u32) -> Option<Interval> {
    if *alpha == 1 {
        return Some(Interval::zero(prec));
    }
    (*alpha == 0).then(|| Interval::one(prec).sub(inf).clamp_to(&Float::with_val(prec, 0), &Float::with_val(prec, 1)))
}

/// One law's atoms on the lattice `step` (from its distribution functions: the A-mass of [ℓ_k, ℓ_{k+1});
/// on a `Log` lattice the masses of [x_k, x_{k+1}) with x_k a rational between ℓ_{k−1} and ℓ_k, the same).
pub(super) fn law_atoms(l: &dyn LossLaw, dir: Direction, step: &Lattice, prec: u32) -> Fallible<Option<Atoms>> {
    let Some((k_lo, k_hi)) = index_range(l, dir, step) else { return Ok(None) };
    let off = l.lattice_offset();
    let at = |k: i64| match step {
        Lattice::Rational(s) => &off + Rational::from(k) * s,
        // (k − ½)·ln r in f64: its error, ~1e-16·|k|·ln r, keeps it strictly between the atoms
        Lattice::Log(_) | Lattice::Enclosed(_) => Rational::from_f64((k as f64 - 0.5) * step.step_f64()).unwrap_or_default(),
    };
    let zero = Float::with_val(prec, 0);
    let mut above = l.split(dir, &at(k_lo), prec + 16)?.a_above;
    let mut p = Vec::with_capacity((k_hi - k_lo + 1) as usize);
    for k in k_lo..=k_hi {
        let next = if k == k_hi { Interval::zero(prec + 16) } else { l.split(dir, &at(k + 1), prec + 16)?.a_above };
        let m = above.sub(&next);
        // (rounded outward to the working precision)
        let lo = if *m.lo() < 0 { zero.clone() } else { Float::with_val_round(prec, m.lo(), Round::Down).0 };
        p.push(Interval::new(lo, Float::with_val_round(prec, m.hi(), Round::Up).0));
        above = next;
    }
    let (inf, _) = l.infinite(dir, prec)?;
    Ok(Some(Atoms { k0: k_lo, p, inf }))
}

/// The products of two enclosures that the `len`-entry power of a law of `points` lattice points costs
/// (`num::convolve::power`): a few per entry by the recurrence for two or three points, the length squared
/// by squaring.
pub(super) fn power_work(points: usize, len: f64) -> f64 {
    if points <= 3 {
        4.0 * len
    } else {
        len * len
    }
}
