//! The trade-off function by conditioning on the coarse groups (docs/conditioned.md, "Trade-off").
//!
//! For the symmetric pairs the accountant composes, f(α) = sup_ε 1 − δ(ε) − e^ε α [DRS22, Prop. 2.12]
//! (the supporting lines of f; `pld::profile`). Write u = e^ε and g(u) = 1 − δ − uα. For any set K of the
//! coarse atoms, δ ≥ δ_K := Σ_{c∈K} Q_C(c) δ_F(ε − c) (every term is ≥ 0), and δ_K is convex in u (each
//! δ_F(x) = E_Q[(1 − e^{x−L_F})_+] is convex in e^x = u e^{−c}). On a segment S of δ_K (no knot of an atom
//! of K inside, `Conditioned::segment`), δ_K = A − uB exactly, so the line ℓ_S(u) = 1 − A + u(B − α) lies
//! above g_K ≥ g for every u > 0.
//!
//! The search finds a segment S_a whose slope certainly has B ≥ α (ℓ_a non-decreasing) and a segment S_b
//! with B ≤ α (ℓ_b non-increasing), narrowed by bisection in ε until they touch at the knot where the
//! slope of δ crosses α. With W = max(e^{sup S_a}, e^{inf S_b}) and V = min(…): every u ≤ W has
//! g(u) ≤ ℓ_a(u) ≤ ℓ_a(W), every u ≥ V has g(u) ≤ ℓ_b(V), so
//!
//!   f(α) ≤ max(ℓ_a(W), ℓ_b(V)),
//!
//! enclosed from above (A.lo, B.hi); and f(α) ≥ 1 − δ_hi(ε) − e^ε α at both ends (δ_hi including the mass
//! left out and the atoms bounded together). When the segments touch (V = W = e^t) both bounds are the
//! value at the knot t, so the bracket is as narrow as the enclosures of δ there. Nothing else is assumed:
//! a slope the enclosures cannot place against α only stops the narrowing (the bracket stays certified,
//! wider); a crossing outside the resolved windows is refused.

use super::{clip0, Conditioned, Segment, Split, MAX_STEPS};
use crate::account::vocabulary::Query;
use crate::account::{Accountant, Certified, Engine, Trust};
use crate::error::Fallible;
use crate::num::Interval;
use crate::{err, fallible};
use rug::float::Round;
use rug::{Float, Rational};

/// The search for a bracketing segment steps out from ε = 0 by doubling, at most to ±2^this (10⁵ DLap(1)
/// statistics put the knot of f(10⁻³) near ε = 5·10⁴).
const MAX_DOUBLINGS: u32 = 40;

/// Where a segment's slope B of δ = A − e^ε B lies against α.
#[derive(PartialEq)]
enum Side {
    /// B ≥ α certainly: the maximum of g is at or right of the segment
    Left,
    /// B ≤ α certainly: at or left of it
    Right,
    Undecided,
}

fn side(s: &Segment, a: &Interval) -> Side {
    if *s.b.lo() >= *a.hi() {
        Side::Left
    } else if *s.b.hi() <= *a.lo() {
        Side::Right
    } else {
        Side::Undecided
    }
}

/// Σ_K Q_C(c) (1 − δ_F(x − c)) + (1 − Σ_K Q_C(c)) − e^x α = 1 − A + e^x (B − α) at u = e^x, enclosed from
/// the lower tails (`Segment::c`), which keeps f's digits where f ≪ 1 − A (α near 1).
fn line(s: &Segment, x: &Rational, a: &Interval) -> Interval {
    let p = s.a.prec();
    let u = Interval::from_rational(x, p).exp();
    s.c.add(&Interval::one(p).sub(&s.q)).add(&u.mul(&s.b.sub(a)))
}

/// A lower bound of 1 − δ(x) − e^x α at an x of the segment: 1 − δ = Σ_c Q_C(c)(1 − δ_F(x − c)) over every
/// atom, at least the line's terms over K and, over the atoms bounded together and left out, their mass
/// (≥ 1 − lost − Σ_K Q_C) less their δ (≤ t). The lower end of the enclosure.
fn value(s: &Segment, x: &Rational, a: &Interval) -> Float {
    let t = Interval::new(s.t.clone(), s.t.clone());
    line(s, x, a).sub(&t).lo().clone()
}

impl Conditioned {
    /// The segment at m, with the bisection's bookkeeping.
    fn classified(&self, m: &Rational, budget: f64, a: &Interval) -> (Segment, Side) {
        let s = self.segment(m, budget);
        let d = side(&s, a);
        (s, d)
    }

    /// A certified bracket of f(α), 0 < α < 1: the two bracketing segments narrowed until they touch,
    /// or as far as the enclosures decide.
    fn tradeoff(&self, alpha: &Rational, budget: f64) -> Fallible<Interval> {
        let p = self.prec;
        let a = Interval::from_rational(alpha, p);
        // step out from 0 by doubling until both sides are found
        let (s0, d0) = self.classified(&Rational::new(), budget, &a);
        let (mut left, mut right) = (None, None);
        match d0 {
            Side::Left => left = Some(s0),
            Side::Right => right = Some(s0),
            Side::Undecided => {}
        }
        for (sign, want) in [(1i32, Side::Right), (-1, Side::Left)] {
            let mut found = match want {
                Side::Right => right.is_some(),
                _ => left.is_some(),
            };
            let mut j = 0;
            while !found {
                if j > MAX_DOUBLINGS {
                    return fallible!(
                        Declined,
                        "the slope of delta(epsilon) is not certainly {} alpha for any |epsilon| <= 2^{MAX_DOUBLINGS}: \
                         the knot of f(alpha) lies outside the resolved windows",
                        if sign > 0 { "below" } else { "above" }
                    );
                }
                crate::num::cancel::check().map_err(|e| err!(Interrupted, "{e}"))?;
                let m = Rational::from(sign) * Rational::from(1u64 << j);
                let (s, d) = self.classified(&m, budget, &a);
                match d {
                    Side::Left if sign < 0 => {
                        left = Some(s);
                        found = true;
                    }
                    Side::Right if sign > 0 => {
                        right = Some(s);
                        found = true;
                    }
                    // a segment on the near side narrows the other end too
                    Side::Left if left.as_ref().is_none_or(|l| l.s_hi < s.s_hi) => left = Some(s),
                    Side::Right if right.as_ref().is_none_or(|r| r.s_lo > s.s_lo) => right = Some(s),
                    _ => {}
                }
                j += 1;
            }
        }
        let (mut sa, mut sb) = (left.expect("invariant: found above"), right.expect("invariant: found above"));
        // bisection between the two until they touch (every step halves the gap: s_hi > m ≥ s_lo)
        let mut extra: Option<(Segment, Rational)> = None;
        for _ in 0..MAX_STEPS {
            if sa.s_hi >= sb.s_lo {
                break;
            }
            crate::num::cancel::check().map_err(|e| err!(Interrupted, "{e}"))?;
            let m = Rational::from(&sa.s_hi + &sb.s_lo) / Rational::from(2);
            let (s, d) = self.classified(&m, budget, &a);
            match d {
                Side::Left => sa = s,
                Side::Right => sb = s,
                Side::Undecided => {
                    // the enclosures cannot place this slope against α: stop, keep its value as a lower bound
                    extra = Some((s, m));
                    break;
                }
            }
        }
        let (u1, u2) = (sa.s_hi.clone(), sb.s_lo.clone());
        let (v, w) = if u1 <= u2 { (u1.clone(), u2.clone()) } else { (u2.clone(), u1.clone()) };
        let up_a = line(&sa, &w, &a);
        let up_b = line(&sb, &v, &a);
        let mut hi = up_a.hi().clone().max(up_b.hi());
        let mut lo = value(&sa, &u1, &a).max(&value(&sb, &u2, &a));
        if let Some((s, m)) = extra {
            lo = lo.max(&value(&s, &m, &a));
        }
        // 0 ≤ f(α) ≤ 1 − α
        let trivial = Float::with_val_round(p, 1 - a.lo(), Round::Up).0;
        if hi > trivial {
            hi = trivial;
        }
        let z = Float::with_val(p, 0);
        lo = lo.max(&z);
        if lo > hi {
            return fallible!(Internal, "the conditioned f(alpha) bracket is empty: [{lo}, {hi}]");
        }
        Ok(Interval::new(lo, hi))
    }
}

impl Accountant {
    /// f(α) by conditioning on the coarse groups (the module's doc).
    pub(in crate::account) fn tradeoff_conditioned(&self, alpha: &Rational, split: &Split) -> Fallible<Certified> {
        let (c, detail) = self.conditioned(Query::Tradeoff(alpha), split)?;
        let p = c.prec;
        if *alpha <= 0 || *alpha >= 1 {
            // f(0) = 1 and f(1) = 0 exactly (every loss is finite)
            let v = if *alpha <= 0 { Interval::one(p) } else { Interval::zero(p) };
            return Certified::new(v, Engine::Conditioned, Trust::Exact, detail);
        }
        // first with the atoms of negligible δ bounded together at a scale set by α, then, where f(α) is
        // far below α, again at the scale of f(α) itself
        let digits = self.opts.digits.min(300) as i32;
        let scale = |x: f64| x * 10f64.powi(-digits - 3);
        let mut f = c.tradeoff(alpha, scale(alpha.to_f64()))?;
        let f_hi = f.hi().to_f64();
        if f_hi < alpha.to_f64() && !Certified::new(f.clone(), Engine::Conditioned, Trust::Exact, String::new())?.meets(self.opts.digits) {
            f = c.tradeoff(alpha, scale(f_hi.max(f64::MIN_POSITIVE)))?;
        }
        self.with_digits_note(Certified::new(clip0(f), Engine::Conditioned, Trust::Exact, detail)?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{acc, comp, split};
    use crate::account::{Engine, Method};
    use rug::{Float, Rational};

    /// Commensurate compositions, where the exact lattice gives f too: conditioning on one, two and three
    /// groups meets the lattice engine's bracket at ≥ 20 digits, for α from 1e-9 to 1 − 1e-6 (ε < 0 at the
    /// knot for the largest), and f(0) = 1, f(1) = 0.
    /// (Every α with one, two and three conditioned groups takes ~16 s: the heavy tier; the default tier
    /// conditions on two groups at the two extreme α.)
    #[test]
    fn conditioned_tradeoff_meets_the_exact_lattice() {
        conditioned_tradeoff_vs_lattice(&["1/1000000000", "999999/1000000"], 2..=2);
    }

    #[test]
    #[ignore = "heavy: five alphas conditioned on one, two and three groups (~16 s)"]
    fn conditioned_tradeoff_meets_the_exact_lattice_everywhere() {
        conditioned_tradeoff_vs_lattice(&["1/1000000000", "1/1000", "1/10", "1/2", "999999/1000000"], 1..=3);
    }

    fn conditioned_tradeoff_vs_lattice(alphas: &[&str], groups: std::ops::RangeInclusive<usize>) {
        let c = comp(&[("2", 3), ("3", 2), ("5/2", 1), ("40", 5)]);
        let lat = acc(&c, Method::Lattice);
        let a = acc(&c, Method::Conditioned);
        for al in alphas {
            let alpha = crate::num::parse_rational(al).unwrap();
            let l = lat.tradeoff(&alpha).unwrap();
            assert!(l.meets(20), "lattice at {al}: {}", l.describe());
            for k in groups.clone() {
                let f = a.tradeoff_conditioned(&alpha, &split(&c, k)).unwrap();
                assert!(f.meets(20), "{k} groups, alpha {al}: {}", f.describe());
                assert!(f.lo() <= l.hi() && l.lo() <= f.hi(), "{k}, {al}: [{}, {}] vs lattice [{}, {}]", f.lo(), f.hi(), l.lo(), l.hi());
            }
        }
        let s = split(&c, 2);
        assert_eq!(a.tradeoff_conditioned(&Rational::from(0), &s).unwrap().lo().to_f64(), 1.0);
        assert_eq!(a.tradeoff_conditioned(&Rational::from(1), &s).unwrap().hi().to_f64(), 0.0);
    }

    /// Every ε gives a lower bound 1 − δ_hi(ε) − e^ε α of f(α) (the duality): the conditioned bracket's
    /// upper end is above each, checked on a grid of ε in [0, 10] with the conditioned δ's own brackets: a
    /// step of 1/2 here, 1/4 in the heavy tier.
    #[test]
    fn conditioned_tradeoff_is_above_every_supporting_line() {
        above_every_supporting_line(2);
    }

    #[test]
    #[ignore = "heavy: the supporting lines at every quarter of epsilon (41 conditioned deltas, ~2.5 CPU-s)"]
    fn conditioned_tradeoff_is_above_every_supporting_line_densely() {
        above_every_supporting_line(4);
    }

    fn above_every_supporting_line(per_unit: i32) {
        let c = comp(&[("5625/2401", 2), ("1500000/47623", 3), ("300000/461", 2)]);
        let a = acc(&c, Method::Conditioned);
        let s = split(&c, 2);
        let alpha = Rational::from((1, 1000));
        let f = a.tradeoff_conditioned(&alpha, &s).unwrap();
        assert!(f.meets(20), "{}", f.describe());
        let mut best = Float::with_val(256, -1);
        for i in 0..=10 * per_unit {
            let eps = Rational::from((i, per_unit));
            let d = a.delta_conditioned(&eps, &s).unwrap();
            let e = crate::num::Interval::from_rational(&eps, 256).exp();
            let v = crate::num::Interval::one(256).sub(&crate::num::Interval::new(d.lo().clone(), d.hi().clone()));
            let v = v.sub(&e.mul(&crate::num::Interval::from_rational(&alpha, 256)));
            assert!(*v.lo() <= *f.hi(), "eps {eps}: line {} above f's upper end {}", v.lo(), f.hi());
            best = best.max(v.lo());
        }
        // the grid's best line is close to the supremum (the grid step misses a little)
        assert!(best.to_f64() > 0.0 && f.hi().to_f64() - best.to_f64() < 0.05 * f.hi().to_f64());
    }

    /// Auto keeps the lattice for f(α) where a practical common lattice exists (the Census products, where
    /// it takes conditioning, are checked in tests/conditioned_tradeoff_cli.rs).
    #[test]
    fn auto_keeps_the_lattice_tradeoff_where_it_is_practical() {
        let c = comp(&[("15625/20718", 1), ("50000/663", 3), ("50000/117", 2)]);
        let a = acc(&c, Method::Auto);
        let f = a.tradeoff(&Rational::from((1, 1000))).unwrap();
        assert_ne!(f.engine(), Engine::Conditioned, "{}", f.describe());
    }
}
