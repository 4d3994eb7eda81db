//! Poisson subsampling of any mechanism: each record enters the mechanism's input independently with
//! probability q. With (A, B) the mechanism's `Remove` pair (A with the record), the subsampled
//! mechanism's dominating pairs under add/remove neighbours are [ZDW22; dp_accounting's
//! `privacy_loss_mechanism.py`, "Support for sub-sampling"]
//!
//!   Remove: (A_q, B_q) = ((1 − q)B + qA, B),        L_q = g(L),   g(ℓ) = ln(1 − q + q e^ℓ);
//!   Add:    (A_q, B_q) = (B, (1 − q)B + qA),        L_q = −g(L),
//!
//! both monotone functions of the mechanism's own loss L, so the subsampled law's masses on either side
//! of a loss t are mixtures of the mechanism's masses on either side of s = g⁻¹(±t) =
//! ln((e^{±t} − 1 + q)/q). s is transcendental: the mechanism is asked at two exact rationals
//! s₋ < s < s₊ enclosing it, and each mass is bounded outward (masses below a point grow with it).
//! Outputs B produces and A never does (loss −∞) move to the finite loss g(−∞) = ln(1 − q) (Remove) or
//! −ln(1 − q) (Add); outputs only A produces keep loss +∞ under Remove with mass q·A[L = ∞], and become
//! −∞ under Add.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, FiniteLaw, LossLaw, LossRange, Split};
use crate::num::Interval;
use rug::{Float, Rational};
use std::sync::Arc;

/// The largest order whose divergence [`PoissonSampled`] expands binomially (m + 1 terms, m − 1 of the
/// mechanism's divergences each).
const BINOMIAL_MAX_ORDER: u64 = 10_000;

/// A mechanism run on a Poisson subsample with probability q ∈ (0, 1].
#[derive(Clone, Debug)]
pub struct PoissonSampled {
    base: Arc<dyn LossLaw>,
    q: Rational,
}

impl PoissonSampled {
    pub fn new(base: Arc<dyn LossLaw>, q: Rational) -> Fallible<PoissonSampled> {
        if !(q > 0 && q <= 1) {
            return crate::fallible!(Input, "the sampling probability q must be in (0, 1], got {q}");
        }
        if !base.symmetric() {
            // (the mixture of Gaussians is closed under Poisson sampling: its probabilities times q)
            let hint = if base.spec().starts_with("mog:") {
                "; a mixture of Gaussians on a Poisson sample with probability q is the mixture with every probability times q: give those probs"
            } else {
                ""
            };
            return crate::fallible!(Input, "subsampling a mechanism whose two directions differ ({}) is not supported{hint}", base.spec());
        }
        Ok(PoissonSampled { base, q })
    }

    pub fn q(&self) -> &Rational {
        &self.q
    }

    /// The mechanism that is subsampled.
    pub fn base(&self) -> &Arc<dyn LossLaw> {
        &self.base
    }

    /// ln(1 − q) enclosed (−∞ for q = 1: then the lower end is the mechanism's own).
    fn ln_one_minus_q(&self, p: u32) -> Option<Interval> {
        if self.q == 1 {
            return None;
        }
        Some(Interval::from_rational(&(Rational::from(1) - self.q.clone()), p).ln())
    }

    /// g(ℓ) = ln(1 − q + q e^ℓ) enclosed.
    fn g(&self, l: &Interval) -> Interval {
        let p = l.prec();
        let qi = Interval::from_rational(&self.q, p);
        Interval::one(p).sub(&qi).add(&qi.mul(&l.exp())).ln()
    }

    /// Exact rationals s₋ < s < s₊ around s = ln((e^u − 1 + q)/q); None for s₋ when e^u ≤ 1 − q may hold
    /// (s = −∞ possible), None for both when e^u < 1 − q is certain.
    fn preimage(&self, u: &Rational, p: u32) -> (Option<Rational>, Option<Rational>, bool) {
        let qi = Interval::from_rational(&self.q, p);
        let x = Interval::from_rational(u, p).exp().sub(&Interval::one(p).sub(&qi));
        let zero = Float::with_val(p, 0);
        if *x.hi() <= zero {
            return (None, None, true);
        }
        let hi = {
            let s = Interval::new(x.hi().clone(), x.hi().clone()).div(&qi).ln();
            beyond(s.hi(), true, p)
        };
        let lo = if *x.lo() > zero {
            let s = Interval::new(x.lo().clone(), x.lo().clone()).div(&qi).ln();
            beyond(s.lo(), false, p)
        } else {
            None
        };
        (lo, hi, false)
    }
}

/// An exact rational strictly above (`up`) or below `v`: v's neighbour at its precision, or ±2^(−2p) where
/// v is 0 (s = ln 1 exactly, at u = 0 and a dyadic q). Zero's neighbour is MPFR's least positive number,
/// 2^(−2³⁰), whose exact rational has a billion bits: ε(1e-5) of `laplace:scale=1,q=1/2` took 8.6 s and
/// 665 MB through it, against 0.01 s at q = 0.499.
fn beyond(v: &Float, up: bool, p: u32) -> Option<Rational> {
    if v.is_zero() {
        let r = Rational::from(1) >> (2 * p);
        return Some(if up { r } else { -r });
    }
    let mut v = v.clone();
    if up {
        v.next_up();
    } else {
        v.next_down();
    }
    v.to_rational()
}

/// The hull [lo of x, hi of y] (masses below a point: the lower end from the smaller point).
fn hull_ends(x: &Interval, y: &Interval) -> Interval {
    let lo = x.lo().clone().min(y.lo());
    let hi = x.hi().clone().max(y.hi());
    Interval::new(lo, hi)
}

impl LossLaw for PoissonSampled {
    fn spec(&self) -> String {
        format!("{},q={}", self.base.spec(), crate::num::format::fmt_rational(&self.q))
    }

    fn symmetric(&self) -> bool {
        self.q == 1
    }

    /// The Gaussian, the Laplace mechanism or the exponential mechanism's bounded-range pair on a subsample
    /// (q < 1): its moment generating function by certified quadrature (`noise::mgf`, `noise::mgf_laplace_sub`).
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        use crate::noise::mgf::Mgf;
        if self.q >= 1 {
            return None;
        }
        if let Some(eta) = self.base.gaussian_eta() {
            return Some(Mgf::PoissonGaussian { q: self.q.clone(), eta });
        }
        match self.base.mgf()? {
            Mgf::Laplace { eps0 } => Some(Mgf::PoissonLaplace { q: self.q.clone(), eps0 }),
            Mgf::BoundedRange { eps } => Some(Mgf::PoissonBoundedRange { q: self.q.clone(), eps }),
            _ => None,
        }
    }

    /// Poisson subsampling is defined here for add/remove neighbours (its pairs above); under replace the
    /// sampled record and its replacement are not independent draws of the same pair.
    fn shifts(&self, neighbors: crate::noise::neighbors::Neighbors) -> Fallible<u64> {
        match neighbors {
            crate::noise::neighbors::Neighbors::AddRemove => Ok(1),
            crate::noise::neighbors::Neighbors::Replace => crate::fallible!(
                Input,
                "{}: Poisson subsampling (q=) under replace neighbours is accounted for the continuous laws gauss: and laplace: (dp_accounting's REPLACE pair, mu the distance of a record's contribution from none); under replace dgauss: and dlap: are histogram queries (a replaced record moves two cells), whose subsampled pair tightdp does not have, and other mechanisms have none (docs/neighbors.md); give --neighbors add-remove, or for fixed-size batches under replace sampling=wor,m=M,pop=P",
                self.spec()
            ),
        }
    }

    /// Under replace-one, the additive-noise mechanism's own pair ([`LossLaw::replace_subsampled`]); other
    /// mechanisms keep this law (and are refused under replace by [`Self::shifts`]).
    fn under(&self, neighbors: crate::noise::neighbors::Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        if neighbors != crate::noise::neighbors::Neighbors::Replace {
            return None;
        }
        self.base.replace_subsampled(&self.q, Arc::new(self.clone()))
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        let b = self.base.scaled(c)?;
        Some(b.and_then(|b| PoissonSampled::new(b, self.q.clone()).map(|s| Arc::new(s) as Arc<dyn LossLaw>)))
    }

    fn is_bound(&self) -> bool {
        self.base.is_bound()
    }

    /// D_m of the `Remove` pair at an integer order m ≥ 2, from the mechanism's own D_k, k = 2, …, m: with
    /// X = A/B, E_B[(1 − q + qX)^m] = Σ_k C(m, k)(1 − q)^{m−k} q^k E_B[X^k] (the binomial theorem) and
    /// E_B[X^k] = e^{(k−1)D_k(A‖B)} (the definition of D_k; E_B[X] = 1, A being absolutely continuous
    /// with respect to B where every D_k is finite), the expansion of [MTZ19, §3.3]. Every term is positive,
    /// so the enclosure is as tight as the mechanism's D_k; summed in logarithms (e^{(k−1)D_k} leaves MPFR's
    /// range at small noise). None elsewhere: the `Add` direction, a fractional order, an order above
    /// [`BINOMIAL_MAX_ORDER`], a mechanism without divergences of its own or whose own are a class's
    /// supremum rather than its pair's (the quadrature of `account::renyi` answers those).
    fn renyi(&self, dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        if dir != Direction::Remove || *alpha.denom() != 1 || self.base.renyi_sharper() {
            return None;
        }
        let m = alpha.numer().to_u64().filter(|m| (2..=BINOMIAL_MAX_ORDER).contains(m))?;
        if self.q == 1 {
            return self.base.renyi(Direction::Remove, alpha, prec);
        }
        let p = prec + 32;
        let ln_q = Interval::from_rational(&self.q, p).ln();
        let ln_rest = Interval::from_rational(&(Rational::from(1) - &self.q), p).ln();
        // ln of each term: ln C(m, k) + (m − k) ln(1 − q) + k ln q + (k − 1) D_k
        let mut terms = Vec::with_capacity(m as usize + 1);
        for k in 0..=m {
            let moment = if k < 2 {
                Interval::zero(p)
            } else {
                match self.base.renyi(Direction::Remove, &Rational::from(k), p)? {
                    Ok(d) => d.mul(&Interval::from_i64(k as i64 - 1, p)),
                    Err(e) => return Some(Err(e)),
                }
            };
            let binom = Interval::from_rational(&Rational::from(rug::Integer::from(rug::Integer::binomial_u(m as u32, k as u32))), p).ln();
            let rest = ln_rest.mul(&Interval::from_i64((m - k) as i64, p));
            terms.push(binom.add(&rest).add(&ln_q.mul(&Interval::from_i64(k as i64, p))).add(&moment));
        }
        let top = terms.iter().map(|t| t.hi().clone()).max_by(|a, b| a.total_cmp(b))?;
        let top = Interval::new(top.clone(), top);
        let mut sum = Interval::zero(p);
        for t in &terms {
            sum = sum.add(&t.sub(&top).exp());
        }
        let d = top.add(&sum.ln()).div(&Interval::from_i64(m as i64 - 1, p));
        Some(Ok(crate::noise::dgauss::round_to(&d, prec)))
    }

    fn split(&self, dir: Direction, t: &Rational, prec: u32) -> Fallible<Split> {
        let p = prec + 16;
        let zero = Interval::zero(p);
        let one = Interval::one(p);
        let qi = Interval::from_rational(&self.q, p);
        let omq = one.sub(&qi);
        let (_, b_inf) = self.base.infinite(Direction::Remove, p)?;
        // the mechanism's masses with s in [s₋, s₊]: below-masses from s₋ (lower) and s₊ (upper)
        let bounds = |u: &Rational| -> Fallible<Option<(Split, Split)>> {
            let (lo, hi, none) = self.preimage(u, p);
            if none {
                return Ok(None);
            }
            let hi = hi.ok_or_else(|| crate::err!(Internal, "subsampling preimage out of range"))?;
            let sh = self.base.split(Direction::Remove, &hi, p)?;
            let sl = match lo {
                Some(l) => self.base.split(Direction::Remove, &l, p)?,
                None => {
                    // s may be −∞: nothing of the mechanism's finite losses lies below it
                    let tot_a = sh.a_below.add(&sh.a_above);
                    let tot_b = sh.b_below.add(&sh.b_above);
                    Split { a_below: zero.clone(), a_above: tot_a, b_below: zero.clone(), b_above: tot_b }
                }
            };
            Ok(Some((sl, sh)))
        };
        match dir {
            Direction::Remove => match bounds(t)? {
                // t ≤ ln(1 − q): every loss (≥ ln(1 − q)) is above t
                None => {
                    let s0 = self.base.split(Direction::Remove, &Rational::from(0), p)?;
                    let (ta, tb) = (s0.a_below.add(&s0.a_above), s0.b_below.add(&s0.b_above).add(&b_inf));
                    Ok(Split { a_below: zero.clone(), a_above: omq.mul(&tb).add(&qi.mul(&ta)), b_below: zero, b_above: tb })
                }
                Some((sl, sh)) => {
                    let b_below = hull_ends(&sl.b_below, &sh.b_below).add(&b_inf);
                    let a_below_m = hull_ends(&sl.a_below, &sh.a_below);
                    let b_above = hull_ends(&sh.b_above, &sl.b_above);
                    let a_above_m = hull_ends(&sh.a_above, &sl.a_above);
                    Ok(Split {
                        a_below: omq.mul(&b_below).add(&qi.mul(&a_below_m)),
                        a_above: omq.mul(&b_above).add(&qi.mul(&a_above_m)),
                        b_below,
                        b_above,
                    })
                }
            },
            Direction::Add => match bounds(&-t.clone())? {
                // −t ≤ ln(1 − q), i.e. t ≥ −ln(1 − q): every finite loss is below t
                None => {
                    let s0 = self.base.split(Direction::Remove, &Rational::from(0), p)?;
                    let (ta, tb) = (s0.a_below.add(&s0.a_above), s0.b_below.add(&s0.b_above).add(&b_inf));
                    Ok(Split { a_below: tb.clone(), a_above: zero.clone(), b_below: omq.mul(&tb).add(&qi.mul(&ta)), b_above: zero })
                }
                Some((sl, sh)) => {
                    // L_q < t ⟺ L > s: masses above s, from s₊ (lower) and s₋ (upper)
                    let b_gt = hull_ends(&sh.b_above, &sl.b_above);
                    let a_gt = hull_ends(&sh.a_above, &sl.a_above);
                    let b_le = hull_ends(&sl.b_below, &sh.b_below).add(&b_inf);
                    let a_le = hull_ends(&sl.a_below, &sh.a_below);
                    Ok(Split {
                        a_below: b_gt.clone(),
                        a_above: b_le.clone(),
                        b_below: omq.mul(&b_gt).add(&qi.mul(&a_gt)),
                        b_above: omq.mul(&b_le).add(&qi.mul(&a_le)),
                    })
                }
            },
        }
    }

    fn infinite(&self, dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        let (a_inf, _) = self.base.infinite(Direction::Remove, prec)?;
        let qa = a_inf.mul(&Interval::from_rational(&self.q, prec));
        Ok(match dir {
            Direction::Remove => (qa, Interval::zero(prec)),
            Direction::Add => (Interval::zero(prec), qa),
        })
    }

    /// A mechanism with finitely many losses keeps finitely many: each atom (ℓ, A, B) of its pair moves to
    /// g(ℓ) with masses ((1 − q)B + qA, B) under Remove, and to −g(ℓ) with (B, (1 − q)B + qA) under Add
    /// (the module's pairs); B's mass at −∞ becomes the atom ±ln(1 − q), A's at +∞ stays at +∞ with mass
    /// q·A[L = ∞] (Remove) or goes to −∞ (Add). A loss 0 stays exactly 0 (g(0) = 0).
    fn finite(&self, dir: Direction, prec: u32) -> Option<Fallible<FiniteLaw>> {
        let base = match self.base.finite(Direction::Remove, prec + 16)? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if self.q == 1 {
            return Some(Ok(base));
        }
        let p = prec + 16;
        let qi = Interval::from_rational(&self.q, p);
        let omq = Interval::one(p).sub(&qi);
        let mix = |a: &Interval, b: &Interval| omq.mul(b).add(&qi.mul(a));
        let sign = |l: Interval| if dir == Direction::Add { l.neg() } else { l };
        let mut atoms = Vec::with_capacity(base.atoms.len() + 1);
        for (l, a, b) in &base.atoms {
            let gl = if l.lo().is_zero() && l.hi().is_zero() { Interval::zero(p) } else { sign(self.g(l)) };
            atoms.push(match dir {
                Direction::Remove => (gl, mix(a, b), b.clone()),
                Direction::Add => (gl, b.clone(), mix(a, b)),
            });
        }
        let zero = Interval::zero(p);
        if *base.b_neg_inf.hi() > 0 {
            let l = sign(self.ln_one_minus_q(p).expect("invariant: q < 1 here"));
            let m = mix(&zero, &base.b_neg_inf);
            atoms.push(match dir {
                Direction::Remove => (l, m, base.b_neg_inf.clone()),
                Direction::Add => (l, base.b_neg_inf.clone(), m),
            });
        }
        let qa = qi.mul(&base.a_inf);
        Some(Ok(match dir {
            Direction::Remove => FiniteLaw { atoms, a_inf: qa, b_neg_inf: zero, mirrored: false },
            Direction::Add => FiniteLaw { atoms, a_inf: zero, b_neg_inf: qa, mirrored: false },
        }))
    }

    fn infinite_exact(&self, dir: Direction) -> Option<(Rational, Rational)> {
        let (a_inf, _) = self.base.infinite_exact(Direction::Remove)?;
        let qa = a_inf * &self.q;
        Some(match dir {
            Direction::Remove => (qa, Rational::new()),
            Direction::Add => (Rational::new(), qa),
        })
    }

    fn range(&self, dir: Direction) -> LossRange {
        let p = 128;
        let r = self.base.range(Direction::Remove);
        let map = |e: &End| -> End {
            match e {
                End::Open => End::Open,
                End::Atom(i) => End::Atom(self.g(i)),
                End::Limit(i) => End::Limit(self.g(i)),
            }
        };
        let lo = match (&r.lo, self.ln_one_minus_q(p)) {
            (End::Open, Some(l)) => End::Limit(l),
            (e, _) => map(e),
        };
        let hi = map(&r.hi);
        let neg = |e: End| match e {
            End::Open => End::Open,
            End::Atom(i) => End::Atom(i.neg()),
            End::Limit(i) => End::Limit(i.neg()),
        };
        match dir {
            Direction::Remove => LossRange { lo, hi },
            Direction::Add => LossRange { lo: neg(hi), hi: neg(lo) },
        }
    }

    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let qf = self.q.to_f64();
        let g = |l: f64| {
            // ln(1 − q + q e^l) without overflow
            if l > 30.0 {
                l + qf.ln() + ((1.0 - qf) / qf * (-l).exp()).ln_1p()
            } else {
                (1.0 - qf + qf * l.exp()).ln()
            }
        };
        match (dir, upper) {
            // the upper tail of the remove law is q times the mechanism's
            (Direction::Remove, true) => g(self.base.quantile(Direction::Remove, ln_p - qf.ln(), true)),
            (Direction::Remove, false) => g(self.base.quantile(Direction::Remove, ln_p, false)),
            (Direction::Add, true) => -g(self.base.quantile(Direction::Remove, ln_p, false)),
            (Direction::Add, false) => -g(self.base.quantile(Direction::Remove, ln_p, true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::laplace::Laplace;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// The remove direction's D_m at integer orders, expanded binomially, holds mpmath's quadrature of the
    /// defining integral ∫ A_q^m B^{1−m} (scripts/reference/renyi_divergences.txt, 32 digits) at 60 digits'
    /// precision; the add direction and fractional orders are left to the quadrature (None).
    #[test]
    fn integer_orders_of_the_remove_pair_hold_the_defining_integrals() {
        let gauss: Arc<dyn LossLaw> = Arc::new(crate::noise::gauss::Gaussian::new(q("121/100"), q("1")).unwrap());
        let laplace: Arc<dyn LossLaw> = Arc::new(Laplace::new(q("1"), q("1")).unwrap());
        let cases = [
            (&gauss, "256/60000", "3", "0.000035367698972047462789883031582716"),
            (&gauss, "256/60000", "64", "20.902740779189835337088730519615"),
            (&gauss, "256/60000", "256", "100.30680187454404339971910373359"),
            (&laplace, "1/10", "2", "0.0085364570194897405397526498427407"),
            (&laplace, "1/10", "20", "0.087192231600360235184675182133479"),
        ];
        for (base, rate, m, want) in cases {
            let s = PoissonSampled::new((*base).clone(), q(rate)).unwrap();
            let d = s.renyi(Direction::Remove, &q(m), 200).expect("an integer order").unwrap();
            // (the reference's 32 digits: the bracket within 1e-30 of it, relative)
            let w = Float::with_val(200, Float::parse(want).unwrap());
            let tol = Float::with_val(200, &w * 1e-30);
            assert!(
                *d.lo() <= Float::with_val(200, &w + &tol) && *d.hi() >= Float::with_val(200, &w - &tol),
                "{} D_{m} = {d:?}, mpmath {want}",
                s.spec()
            );
            let rel = Float::with_val(200, d.hi() - d.lo()) / d.lo();
            assert!(rel < 1e-50, "{} D_{m}: relative width {rel}", s.spec());
            assert!(s.renyi(Direction::Add, &q(m), 200).is_none());
        }
        let s = PoissonSampled::new(gauss, q("1/100")).unwrap();
        assert!(s.renyi(Direction::Remove, &q("5/2"), 200).is_none());
    }

    /// At u = 0 and a dyadic q the preimage s = ln(q/q) is 0 exactly; its ends still enclose it strictly,
    /// and stay short (0's MPFR neighbour, 2^(−2³⁰), once became a billion-bit rational).
    #[test]
    fn an_exact_zero_preimage_has_short_strict_ends() {
        let base: Arc<dyn LossLaw> = Arc::new(Laplace::new(q("1"), q("1")).unwrap());
        for rate in ["1/2", "1/4", "3/8", "1"] {
            let s = PoissonSampled::new(base.clone(), q(rate)).unwrap();
            let (lo, hi, none) = s.preimage(&Rational::from(0), 128);
            let (lo, hi) = (lo.expect("s₋ exists: e^0 − 1 + q = q > 0"), hi.unwrap());
            assert!(!none && lo < 0 && hi > 0, "q = {rate}: [{lo}, {hi}] does not hold 0 strictly");
            for end in [&lo, &hi] {
                assert!(end.denom().significant_bits() <= 2 * 128 + 1, "q = {rate}: an end of {} bits", end.denom().significant_bits());
            }
        }
    }
}
