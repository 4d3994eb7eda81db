//! The one certified result type, and the uncertified estimate type the approximate methods return.
//!
//! A [`Certified`] value is a bracket [lo, hi] that provably holds the quantity it names (or, for the
//! zCDP conversions, a quantity that is a valid upper bound: [`Trust::Bound`]). It can only be built
//! inside `account` from an engine's certified enclosure, its invariant lo ≤ hi is checked on
//! construction and its fields are private — so an approximate method (the paper's Boole pipeline, the
//! saddle-point inversion, plotting helpers) cannot produce one: they return an [`Estimate`]. This follows
//! OpenDP's practice of putting the trust level in the type.
//!
//! Outside `account` a certified value is obtained from the accountant's queries only, and carried on
//! through a closed set of combinators: [`Certified::max_of`] (a worst case), [`Certified::map`] with one
//! of the monotone maps [`Map`] declared here, [`Certified::restated`] (the same bracket, another
//! detail) and [`Certified::upper_end_as_bound`] (the upper end, as a certified upper bound). No function takes an interval from a caller and returns it certified.

use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_up};
use crate::num::Interval;
use crate::{err, fallible};
use rug::float::Round;
use rug::{Float, Rational};
use std::fmt;

/// The engine that produced a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// exact lattice privacy-loss distribution, MPFR interval arithmetic
    Lattice,
    /// the same lattice, convolved in double precision with a rigorous relative-error bound
    LatticeF64,
    /// the same lattice, convolved in double-double arithmetic (~106 bits) with a rigorous relative-error bound
    LatticeDD,
    /// certified smoothed Fourier inversion (src/fourier/smooth.rs)
    Smoothed,
    /// certified Fourier inversion of the exact lattice law, cost independent of n (src/fourier/lattice/)
    LatticeFourier,
    /// certified rounding of every loss up and down onto a grid (src/pld/grid.rs)
    Grid,
    /// the exact lattice laws of a few coarse groups, each atom against the exact lattice profile of the
    /// rest (src/account/engines/conditioned.rs)
    Conditioned,
    /// certified dominating and dominated privacy-loss laws on a grid, composed by the lattice Fourier
    /// inversion (src/pld/discretize.rs, src/account/laws.rs)
    Pld,
    /// n releases of Laplace mechanisms with one ε₀ as an exact finite sum (src/account/engines/laplace_sum.rs)
    LaplaceSum,
    /// laws with finitely many losses on one lattice, composed exactly (src/account/engines/atoms.rs)
    Atoms,
    /// laws with a certified moment generating function (the Poisson-subsampled Gaussian), composed by a
    /// tilted Fourier inversion (src/account/engines/tilted.rs)
    Tilted,
    /// random allocation of the Gaussian mechanism from its dominating and dominated finite pairs
    /// (src/account/engines/allocation.rs)
    AllocationPairs,
    /// Rényi divergences: each law's closed form, finite sum over its atoms, or moment generating function
    /// by certified quadrature, added up (src/account/renyi.rs)
    Renyi,
    /// an exact identity or a closed form, no engine (e.g. ε = 0 because δ(0) ≤ √(ρ/2) ≤ δ by Pinsker's inequality)
    Closed,
    /// zCDP conversion ε = ρ + 2√(ρ log 1/δ) (Bun–Steinke; the Bureau's)
    ZcdpBs,
    /// optimal zCDP conversion (Canonne–Kamath–Steinke)
    ZcdpCks,
    /// the paper's Boole-rule Fourier inversion (approximate)
    Fourier,
    /// saddle-point Fourier inversion with an aliasing bound (approximate)
    FourierFast,
}

impl Engine {
    pub fn as_str(&self) -> &'static str {
        match self {
            Engine::Lattice => "lattice",
            Engine::LatticeF64 => "lattice-f64",
            Engine::LatticeDD => "lattice-dd",
            Engine::Smoothed => "smoothed",
            Engine::LatticeFourier => "lattice-fourier",
            Engine::Grid => "grid",
            Engine::Conditioned => "conditioned",
            Engine::Pld => "pld-grid",
            Engine::LaplaceSum => "laplace-sum",
            Engine::Atoms => "exact-atoms",
            Engine::Tilted => "tilted-fourier",
            Engine::AllocationPairs => "allocation-pairs",
            Engine::Renyi => "renyi",
            Engine::Closed => "closed-form",
            Engine::ZcdpBs => "zcdp-bs",
            Engine::ZcdpCks => "zcdp-cks",
            Engine::Fourier => "fourier",
            Engine::FourierFast => "fourier-fast",
        }
    }
}

/// What a certified bracket holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// the exact value of the quantity (the tight f-DP guarantee)
    Exact,
    /// a valid upper bound on it (a zCDP conversion), itself enclosed
    Bound,
}

impl Trust {
    pub fn as_str(&self) -> &'static str {
        match self {
            Trust::Exact => "certified",
            Trust::Bound => "certified-bound",
        }
    }
}

/// The monotone maps through which a certified value may be carried (the closed set of [`Certified::map`];
/// each is monotone on the range where it applies, so evaluating it in outward-rounded interval arithmetic
/// on a bracket of x gives a bracket of m(x)).
#[derive(Clone, Debug)]
pub enum Map {
    /// 1 − x (decreasing): a TPR 1 − f(α), a reconstruction success 1 − f(κ)
    Complement,
    /// 1 − w(1 − x) for a weight w ∈ [0, 1] (increasing): a Bayes success 1 − m(1 − δ)
    TowardOne(Rational),
}

/// A certified bracket with the engine that produced it.
#[derive(Clone, Debug)]
pub struct Certified {
    lo: Float,
    hi: Float,
    engine: Engine,
    trust: Trust,
    detail: String,
    note: Option<String>,
}

impl Certified {
    /// From an engine's certified enclosure. Refuses an empty or NaN bracket.
    pub(in crate::account) fn new(iv: Interval, engine: Engine, trust: Trust, detail: String) -> Fallible<Certified> {
        if iv.lo().is_nan() || iv.hi().is_nan() || iv.lo() > iv.hi() {
            return fallible!(Internal, "{} produced an invalid bracket [{}, {}]", engine.as_str(), iv.lo(), iv.hi());
        }
        let (lo, hi) = iv.into_parts();
        Ok(Certified { lo, hi, engine, trust, detail, note: None })
    }

    pub(in crate::account) fn with_note(mut self, note: String) -> Certified {
        self.note = Some(note);
        self
    }

    /// [`Certified::with_note`] where there is a note (an engine's loop says why it stopped short).
    pub(in crate::account) fn with_note_if(self, note: Option<String>) -> Certified {
        match note {
            Some(n) => self.with_note(n),
            None => self,
        }
    }

    pub fn lo(&self) -> &Float {
        &self.lo
    }

    pub fn hi(&self) -> &Float {
        &self.hi
    }

    pub fn interval(&self) -> Interval {
        Interval::new(self.lo.clone(), self.hi.clone())
    }

    /// The midpoint of the bracket (for plotting and for a search that a certified bracket then proves).
    pub fn mid(&self) -> Float {
        self.interval().mid()
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// How it was computed (precision, truncation depth, smoothing, …).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// One line for notes: engine, detail, width.
    pub fn describe(&self) -> String {
        let mut s = format!("{} ({})", self.engine.as_str(), self.trust.as_str());
        if !self.detail.is_empty() {
            s.push_str(&format!(", {}", self.detail));
        }
        s.push_str(&format!(", width {}", fmt_up(&self.width(), 2)));
        s
    }

    /// The bracket with its upper end lowered to a certified upper bound `bound` of the same quantity
    /// (and its lower end, if above, too: then the value is the bound), where the bound is the tighter;
    /// the detail says so. Unchanged otherwise.
    pub(in crate::account) fn capped(self, bound: &Rational, prec: u32, what: &str) -> Fallible<Certified> {
        let b = Interval::from_rational(bound, prec + 64).into_parts().1;
        if self.hi <= b {
            return Ok(self);
        }
        let lo = if self.lo > b { b.clone() } else { self.lo.clone() };
        let detail = if self.detail.is_empty() { format!("upper end: {what}") } else { format!("{}; upper end: {what}", self.detail) };
        Ok(Certified { lo, hi: b, detail, ..self })
    }

    /// The same bracket, stated with another detail (e.g. "f(1 − t), the trade-off being symmetric"): the
    /// claim about the quantity is unchanged, so engine, trust and note are kept.
    pub fn restated(&self, detail: String) -> Certified {
        Certified { detail, ..self.clone() }
    }

    /// The upper end as a certified upper bound (trust [`Trust::Bound`], the bracket [hi, hi]): the value
    /// is at most hi. For a caller that calibrates a bound where the bracket cannot be narrowed further.
    pub fn upper_end_as_bound(&self, detail: String) -> Certified {
        let note =
            Some(format!("the upper end of the certified bracket [{}, {}], as an upper bound", fmt_down(&self.lo, 8), fmt_up(&self.hi, 8)));
        Certified { lo: self.hi.clone(), trust: Trust::Bound, detail, note, ..self.clone() }
    }

    /// The certified value of m(x) for one of the account layer's monotone maps [`Map`], evaluated in
    /// outward-rounded interval arithmetic at `prec` bits: the bracket holds m(x) whenever this one
    /// holds x. Engine, trust and note are kept, the detail is the one given. The only way a value
    /// computed from a certified one is certified (besides [`Certified::max_of`] and the accountant's
    /// own queries): a caller cannot hand in an interval of its own.
    pub fn map(&self, m: &Map, prec: u32, detail: String) -> Fallible<Certified> {
        let x = self.interval();
        let one = Interval::one(prec);
        let iv = match m {
            Map::Complement => one.sub(&x),
            Map::TowardOne(w) => {
                if *w < 0 || *w > 1 {
                    return fallible!(Internal, "Map::TowardOne needs a weight in [0, 1], got {w}");
                }
                one.sub(&one.sub(&x).mul_rational(w))
            }
        };
        let mut c = Certified::new(iv, self.engine, self.trust, detail)?;
        c.note = self.note.clone();
        Ok(c)
    }

    /// The certified value of max_i x_i from certified brackets of each x_i (a worst case over neighbour
    /// patterns or structures): [max lo_i, max hi_i] holds max_i x_i whenever each bracket holds its x_i.
    /// Engine, trust, detail and note are those of the bracket with the largest upper end; the index of
    /// that bracket is returned with it. The one worst-case combinator of the crate.
    pub fn max_of(items: &[Certified]) -> Fallible<(Certified, usize)> {
        let (k, top) = items
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.hi.partial_cmp(&b.1.hi).unwrap_or(std::cmp::Ordering::Equal))
            .ok_or_else(|| err!(Internal, "worst case of nothing"))?;
        let lo = items
            .iter()
            .map(|c| &c.lo)
            .max_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
            .expect("invariant: max_of takes at least one bracket");
        let mut c = top.clone();
        c.lo = Float::with_val(c.lo.prec().max(lo.prec()), lo);
        if c.lo > c.hi {
            return fallible!(Internal, "inconsistent brackets in a worst case");
        }
        Ok((c, k))
    }

    /// Set when the bracket is wider than asked, saying why.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    pub fn width(&self) -> Float {
        if self.lo == self.hi {
            // also a point at infinity (ε = ∞), where hi − lo is NaN
            return Float::with_val(self.lo.prec(), 0);
        }
        Float::with_val_round(self.lo.prec().max(self.hi.prec()), &self.hi - &self.lo, Round::Up).0
    }

    /// log10 of the relative width (hi − lo)/max(|lo|, |hi|) ([`crate::num::interval::log10_rel_width`]):
    /// −∞ for a point, at least 0 (no digits) for a bracket around 0.
    pub fn log10_rel_width(&self) -> f64 {
        crate::num::interval::log10_rel_width(&self.lo, &self.hi)
    }

    /// Relative width (hi − lo)/max(|lo|, |hi|) as an f64 (0 when below f64's range).
    pub fn rel_width(&self) -> f64 {
        10f64.powf(self.log10_rel_width())
    }

    /// Correct significant digits: ⌊−log10(relative width)⌋, capped at 1000.
    pub fn digits(&self) -> u32 {
        let l = self.log10_rel_width();
        if l >= 0.0 || l.is_nan() {
            0
        } else {
            (-l).floor().min(1000.0) as u32
        }
    }

    /// True if the bracket has at least `digits` correct significant digits.
    pub fn meets(&self, digits: u32) -> bool {
        self.log10_rel_width() <= -(digits as f64)
    }

    /// Lower end rounded down, upper end rounded up, to `digits` significant digits.
    pub fn lo_str(&self, digits: usize) -> String {
        fmt_down(&self.lo, digits)
    }

    pub fn hi_str(&self, digits: usize) -> String {
        fmt_up(&self.hi, digits)
    }

    /// The bracket as printed with `sig` significant digits (lower end rounded down, upper end up) and the
    /// digits those printed ends support — never more than the bracket's own. Every output (CLI, Python,
    /// tables) shows a bracket through this, so that `digits` cannot claim what the printed ends do not hold.
    pub fn printed(&self, sig: usize) -> Printed {
        let (lo, hi) = (self.lo_str(sig), self.hi_str(sig));
        let exact = self.lo == self.hi && lo == hi;
        let digits = if exact { self.digits() } else { self.digits().min(crate::num::format::digits_between(&lo, &hi)) };
        Printed { lo, hi, digits, exact }
    }
}

/// A certified bracket as printed: ends rounded outward, and the digits they support.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub lo: String,
    pub hi: String,
    /// significant digits the printed ends support (the larger d with hi − lo ≤ 10^−d·max(|lo|, |hi|))
    pub digits: u32,
    /// the two printed ends are one and the same exact value
    pub exact: bool,
}

impl Printed {
    /// The `digits` field of an output row: "exact" for a point, else the digits.
    pub fn digits_field(&self) -> String {
        if self.exact {
            "exact".into()
        } else {
            self.digits.to_string()
        }
    }
}

impl fmt::Display for Certified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}] ({}, {})", self.lo_str(25), self.hi_str(25), self.engine.as_str(), self.trust.as_str())
    }
}

/// An approximate value with its method's error estimate: not certified (f64 quadrature whose error
/// terms exclude floating-point rounding, or a bound that holds only under its method's assumptions).
#[derive(Clone, Debug)]
pub struct Estimate {
    pub value: f64,
    pub error_bound: f64,
    pub engine: Engine,
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Integer;

    fn q(n: i64, d: i64) -> Rational {
        Rational::from((n, d))
    }

    /// A certified bracket with exact dyadic ends, at 256 bits (so that the maps' roundings, at the
    /// operands' precision, stay below the 2^-240 of [`tight`]).
    fn bracket(lo: &Rational, hi: &Rational) -> Certified {
        let iv = Interval::new(Float::with_val(256, lo), Float::with_val(256, hi));
        Certified::new(iv, Engine::Lattice, Trust::Exact, "test".into()).unwrap().with_note("a note".into())
    }

    /// `c` holds [want_lo, want_hi] (exact rationals) and exceeds it by less than 2^-240 on each side.
    fn tight(c: &Certified, want_lo: &Rational, want_hi: &Rational) {
        assert!(*c.lo() <= *want_lo && *c.hi() >= *want_hi, "{c} does not hold [{want_lo}, {want_hi}]");
        let slack = Rational::from((Integer::from(1), Integer::from(1) << 240u32));
        let lo = c.lo().to_rational().unwrap();
        let hi = c.hi().to_rational().unwrap();
        assert!(Rational::from(want_lo - &lo) < slack && Rational::from(&hi - want_hi) < slack, "{c} is loose");
    }

    /// Each map of the closed set against its exact value at both ends (rational arithmetic), keeping
    /// engine, trust and note.
    #[test]
    fn maps_hold_the_exact_image_tightly() {
        let (lo, hi) = (q(5, 16), q(11, 32));
        let x = bracket(&lo, &hi);
        let one = Rational::from(1);
        let c = x.map(&Map::Complement, 256, "1 - x".into()).unwrap();
        tight(&c, &(one.clone() - hi.clone()), &(one.clone() - lo.clone()));
        assert_eq!((c.engine(), c.trust(), c.note(), c.detail()), (Engine::Lattice, Trust::Exact, Some("a note"), "1 - x"));
        let w = q(1, 3);
        let toward = |x: &Rational| one.clone() - w.clone() * (one.clone() - x.clone());
        tight(&x.map(&Map::TowardOne(w.clone()), 256, String::new()).unwrap(), &toward(&lo), &toward(&hi));
    }

    /// Outside their domains the maps refuse (an internal error: callers pass constants).
    #[test]
    fn maps_refuse_outside_their_domain() {
        let x = bracket(&q(1, 4), &q(1, 2));
        assert!(x.map(&Map::TowardOne(q(3, 2)), 128, String::new()).is_err());
        assert!(x.map(&Map::TowardOne(q(-1, 2)), 128, String::new()).is_err());
    }

    /// `restated` keeps the claim (bracket, engine, trust, note) and changes only the detail; `max_of`
    /// is the worst case [max lo, max hi] with the index of the largest upper end.
    #[test]
    fn restated_and_max_of() {
        let a = bracket(&q(1, 4), &q(1, 2));
        let r = a.restated("again".into());
        assert_eq!((r.lo(), r.hi(), r.engine(), r.note(), r.detail()), (a.lo(), a.hi(), a.engine(), a.note(), "again"));
        let b = bracket(&q(3, 8), &q(3, 8));
        let (m, k) = Certified::max_of(&[a, b]).unwrap();
        assert_eq!((m.lo().to_rational().unwrap(), m.hi().to_rational().unwrap(), k), (q(3, 8), q(1, 2), 0));
        assert!(Certified::max_of(&[]).is_err());
    }
}
