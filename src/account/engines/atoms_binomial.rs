//! Many copies of one law with two finite atoms — binary randomized response, a stated pure guarantee — as
//! a binomial law, queried from the masses near the point asked instead of the whole composed vector
//! (`atoms`, whose cost is linear in the copies: 3.6 s and 0.5 GB for 10⁶ reports).
//!
//! One law with A-masses a at the loss ℓ_lo and b at ℓ_hi > ℓ_lo (and A[L = +∞] = p_∞): n copies have
//! the atoms ℓ_j = nℓ_lo + j(ℓ_hi − ℓ_lo), j = 0 … n, with
//!
//!   A[L = ℓ_j] = C(n, j) a^{n−j} b^j,   B[L = ℓ_j] = e^{−ℓ_j} A[L = ℓ_j] = C(n, j) (a e^{−ℓ_lo})^{n−j} (b e^{−ℓ_hi})^j,
//!
//! two binomial weights (the second from the definition of L = ln dA/dB), log-concave in j: the ratio of
//! consecutive masses r_j = ((n − j)/(j + 1))·(v/u) (u, v the weights of the low and high atom) decreases
//! in j. A tail Σ_{j ≥ j₀} is summed upwards where r_{j₀} < 1 (decreasing terms), else as the total
//! (u + v)^n minus the sum below j₀, downwards (decreasing there); a run of decreasing terms t_J, t_{J+1}, …
//! is cut where its remainder, at most t_J r_J/(1 − r_J), is below 2^−prec of the sum, and that bound is
//! added to the enclosure. The first mass of a run is exp(ln Γ(n + 1) − ln Γ(j + 1) − ln Γ(n − j + 1) +
//! (n − j) ln u + j ln v), MPFR's correctly rounded ln Γ rounded down and up; the next ones by the ratio.
//! A run is about 15 standard deviations of the binomial long at 20 digits, so a query costs
//! O(√n log n) operations, not O(n).
//!
//! The queries are those of `atoms` on this law: δ(ε) = A[L = +∞] + A[L > ε] − e^ε B[L > ε]
//! [SSW24, Lemma A.9]; ε(δ) on the segment between the atoms where δ crosses (found by bisection over the
//! atoms, each knot's δ as above), there ln((P − δ)/Q); f(α) = max(0, max_j w_j) with
//! w_j = A[L ≤ ℓ_j] − e^{ℓ_j}(α − B[L > ℓ_j]) [DRS22, Prop. 2.12], where w_j − w_{j−1} =
//! (e^{ℓ_j} − e^{ℓ_{j−1}})(B[L ≥ ℓ_j] − α): w rises while B[L ≥ ℓ_j] > α and falls after, so the maximum is
//! at the last atom where B[L ≥ ℓ_j] > α (found by bisection). Where an enclosure cannot decide a
//! comparison the answer is None and `atoms` composes the whole vector.

use super::atoms_lattice::{index_range, tradeoff_end, Lattice};
use crate::account::vocabulary::Query;
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};
use std::sync::Arc;

/// Copies from which the binomial path answers (below it the whole vector is as fast: measured, 10⁴ reports
/// 0.02 s either way), and up to which (10¹¹: about a minute, the progress bar shown; beyond, the pld grid).
const FROM_COPIES: u64 = 20_000;
const MAX_COPIES: u64 = 100_000_000_000;
/// Estimated seconds of a query per √n (measured at 20 digits: 10⁶ reports 0.16 s, 10⁸ 1.6 s).
const SECONDS_PER_ROOT: f64 = 1.6e-4;

/// One measure's binomial weights: u at the low atom, v at the high one (the law's A-masses, or its
/// B-masses), their logarithms, v/u, and the total (u + v)^n.
struct Weights {
    ln_u: Interval,
    ln_v: Interval,
    ratio: Interval,
    total: Interval,
}

#[derive(Clone, Copy)]
enum Measure {
    A,
    B,
}

/// n copies of one two-atom law in one direction.
pub(super) struct Binomial {
    n: u64,
    /// the lattice index of atom j is k0 + j·g, its loss offset + (k0 + j·g)·s
    k0: i64,
    g: i64,
    offset: Rational,
    step: Lattice,
    a: Weights,
    b: Weights,
    /// A[L = +∞] of the composition
    inf: Interval,
    /// ln Γ(n + 1)
    ln_fact_n: Interval,
    prec: u32,
}

/// The answer of the binomial path: the worse direction's enclosure, or None where it does not apply or
/// cannot decide (then `atoms` composes the whole vector).
pub(super) fn answer(laws: &[(Arc<dyn LossLaw>, u64)], q: Query, step: &Lattice, prec: u32) -> Fallible<Option<Interval>> {
    let [(_, n)] = laws else { return Ok(None) };
    if !(FROM_COPIES..=MAX_COPIES).contains(n) {
        return Ok(None);
    }
    let _progress = crate::num::progress::begin("binomial sums", SECONDS_PER_ROOT * (*n as f64).sqrt());
    answer_any(laws, q, step, prec)
}

/// [`answer`] at any number of copies.
fn answer_any(laws: &[(Arc<dyn LossLaw>, u64)], q: Query, step: &Lattice, prec: u32) -> Fallible<Option<Interval>> {
    let [(law, n)] = laws else { return Ok(None) };
    let mut out: Option<Interval> = None;
    for &dir in super::directions(laws) {
        let Some(bin) = Binomial::new(law.as_ref(), *n, dir, step, prec)? else { return Ok(None) };
        let iv = match q {
            Query::Delta(e) => bin.delta(e),
            Query::Epsilon(d) => bin.epsilon(d),
            Query::Tradeoff(a) => bin.tradeoff(a),
        };
        let Some(iv) = iv else { return Ok(None) };
        let worse = if matches!(q, Query::Tradeoff(_)) { Interval::min } else { Interval::max };
        out = Some(match out {
            None => iv,
            Some(o) => worse(&o, &iv),
        });
    }
    Ok(out)
}

/// ln Γ(m + 1) = ln m!, enclosed (MPFR's ln Γ is correctly rounded in the direction asked).
fn ln_factorial(m: u64, prec: u32) -> Interval {
    let x = Float::with_val(prec, m) + 1u32;
    let (mut lo, mut hi) = (x.clone(), x);
    lo.ln_gamma_round(Round::Down);
    hi.ln_gamma_round(Round::Up);
    Interval::new(lo, hi)
}

impl Binomial {
    /// The composition of `n` copies of `law` in direction `dir`, or None if its finite atoms are not
    /// exactly two, both of positive mass.
    fn new(law: &dyn LossLaw, n: u64, dir: Direction, step: &Lattice, prec: u32) -> Fallible<Option<Binomial>> {
        let d = if law.symmetric() { Direction::Remove } else { dir };
        // (the law's own list of its atoms, with both measures' masses; the lattice's indices of its ends)
        let Some(fin) = law.finite(d, prec) else { return Ok(None) };
        let fin = fin?;
        let [x, y] = &fin.atoms[..] else { return Ok(None) };
        let (lo, hi) = if x.0.to_f64() < y.0.to_f64() { (x, y) } else { (y, x) };
        if *lo.1.lo() <= 0 || *hi.1.lo() <= 0 || *lo.2.lo() <= 0 || *hi.2.lo() <= 0 {
            return Ok(None);
        }
        let Some((k_lo, k_hi)) = index_range(law, d, step) else { return Ok(None) };
        let g = k_hi - k_lo;
        let Ok(n_i) = i64::try_from(n) else { return Ok(None) };
        if g <= 0 {
            return Ok(None);
        }
        let weights = |u: &Interval, v: &Interval| Weights { ln_u: u.ln(), ln_v: v.ln(), ratio: v.div(u), total: u.add(v).pow_u64(n) };
        let (a, b) = (weights(&lo.1, &hi.1), weights(&lo.2, &hi.2));
        let off = law.lattice_offset();
        let one = Interval::one(prec);
        let inf = one.sub(&one.sub(&fin.a_inf).pow_u64(n)).clamp_unit();
        // (the lattice indices of the atoms, k0 … k0 + g·n, within i64)
        let Some(k0) = k_lo.checked_mul(n_i).filter(|k0| g.checked_mul(n_i).and_then(|w| k0.checked_add(w)).is_some()) else {
            return Ok(None);
        };
        let offset = off * Rational::from(n);
        Ok(Some(Binomial { n, k0, g, offset, step: step.clone(), a, b, inf, ln_fact_n: ln_factorial(n, prec), prec }))
    }

    fn weights(&self, m: Measure) -> &Weights {
        match m {
            Measure::A => &self.a,
            Measure::B => &self.b,
        }
    }

    /// The loss of atom j, enclosed.
    fn loss(&self, j: u64) -> Interval {
        self.step.loss(&self.offset, self.k0 + j as i64 * self.g, self.prec)
    }

    /// Whether the loss of atom j is above ε (None: a transcendental loss the enclosure cannot place).
    fn above(&self, j: u64, eps: &Rational) -> Option<bool> {
        let m = self.k0 + j as i64 * self.g;
        match &self.step {
            Lattice::Rational(s) => Some(&self.offset + Rational::from(m) * s > *eps),
            // (offset 0 on a log or enclosed lattice: the sign of the loss is the index's)
            _ if *eps == 0 => Some(m > 0),
            _ => {
                let l = self.loss(j);
                (*l.lo() > *eps).then_some(true).or((*l.hi() < *eps).then_some(false))
            }
        }
    }

    /// The first atom whose loss is above ε (n + 1 if none; None: undecided).
    fn first_above(&self, eps: &Rational) -> Option<u64> {
        let (mut lo, mut hi) = (0u64, self.n + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.above(mid, eps)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }

    /// The mass of atom j under measure m.
    fn mass(&self, m: Measure, j: u64) -> Interval {
        let w = self.weights(m);
        let ln_c = self.ln_fact_n.sub(&ln_factorial(j, self.prec)).sub(&ln_factorial(self.n - j, self.prec));
        let times = |x: &Interval, k: u64| if k == 0 { Interval::zero(self.prec) } else { x.mul_u64(k) };
        ln_c.add(&times(&w.ln_u, self.n - j)).add(&times(&w.ln_v, j)).exp()
    }

    /// r_j = mass(j + 1)/mass(j) = ((n − j)/(j + 1))·(v/u), for j < n.
    fn ratio_up(&self, m: Measure, j: u64) -> Interval {
        self.weights(m).ratio.mul_u64(self.n - j).div_u64(j + 1)
    }

    /// Σ_{j ≥ j0} mass(j): upwards where the terms decrease from j0, else the total minus the sum below.
    fn upper(&self, m: Measure, j0: u64) -> Interval {
        if j0 > self.n {
            return Interval::zero(self.prec);
        }
        if j0 == 0 {
            return self.weights(m).total.clone();
        }
        if j0 == self.n || *self.ratio_up(m, j0).hi() < 1 {
            return self.run(m, j0, true);
        }
        self.weights(m).total.sub(&self.run(m, j0 - 1, false)).clamp_to(&Float::with_val(self.prec, 0), self.weights(m).total.hi())
    }

    /// Σ_{j ≤ j1} mass(j): downwards where the terms decrease from j1, else the total minus the sum above.
    fn lower(&self, m: Measure, j1: u64) -> Interval {
        if j1 == 0 || *self.ratio_up(m, j1 - 1).lo() > 1 {
            return self.run(m, j1, false);
        }
        if j1 >= self.n {
            return self.weights(m).total.clone();
        }
        self.weights(m).total.sub(&self.run(m, j1 + 1, true)).clamp_to(&Float::with_val(self.prec, 0), self.weights(m).total.hi())
    }

    /// Σ mass(j) from `from` upwards (`up`) or downwards to the end, cut where the remainder of a run of
    /// decreasing terms, at most t r/(1 − r) (r the ratio of the next term to this one, which only
    /// decreases further on), is below 2^−prec of the sum; that bound is added.
    fn run(&self, m: Measure, from: u64, up: bool) -> Interval {
        let p = self.prec;
        let one = Interval::one(p);
        let mut t = self.mass(m, from);
        let mut sum = t.clone();
        let mut j = from;
        loop {
            let at_end = if up { j == self.n } else { j == 0 };
            if at_end {
                return sum;
            }
            // the ratio of the next term to this one
            let r = if up { self.ratio_up(m, j) } else { one.div(&self.ratio_up(m, j - 1)) };
            if *r.hi() < 1 {
                let rest = t.mul(&r).div(&one.sub(&r));
                let tol = Float::with_val(p, sum.lo() >> p);
                if *rest.hi() <= tol {
                    return sum.add(&Interval::new(Float::with_val(p, 0), rest.hi().clone()));
                }
            }
            t = t.mul(&r);
            sum.add_assign(&t);
            j = if up { j + 1 } else { j - 1 };
        }
    }

    /// δ at ε = A[L = +∞] + A[L > ε] − e^ε B[L > ε], clipped to [0, 1].
    fn delta(&self, eps: &Rational) -> Option<Interval> {
        let j0 = self.first_above(eps)?;
        Some(self.delta_from(&Interval::from_rational(eps, self.prec), j0))
    }

    /// δ at ε given the first atom above it.
    fn delta_from(&self, e: &Interval, j0: u64) -> Interval {
        let p = self.upper(Measure::A, j0);
        let q = self.upper(Measure::B, j0);
        self.inf.add(&p).sub(&e.exp().mul(&q)).clamp_unit()
    }

    /// ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ}: the first atom above 0 whose δ is below the target, by bisection, and
    /// the solution on the segment below it; where the knot below it is undecided, the hull of the two
    /// segments' solutions beside it (None where that knot's neighbour is undecided too).
    fn epsilon(&self, target: &Rational) -> Option<Interval> {
        let p = self.prec;
        let t = Interval::from_rational(target, p);
        let zero = Rational::new();
        let jz = self.first_above(&zero)?;
        // δ at the top atom is A[L = +∞]: above δ, ε is not reached (the accountant answers ∞ before)
        if *self.inf.hi() > *t.lo() {
            let top = self.loss(self.n).into_parts().0;
            return (*self.inf.lo() > *t.hi()).then(|| Interval::new(top, Float::with_val(p, rug::float::Special::Infinity)));
        }
        // (no atom above 0: δ(0) = A[L = +∞])
        if jz > self.n {
            return Some(Interval::zero(p));
        }
        let knot_delta = |j: u64| self.delta_from(&self.loss(j), j + 1);
        let below = |d: &Interval| *d.hi() <= *t.lo();
        let (mut lo, mut hi) = (jz, self.n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(&knot_delta(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        // the knots: 0 below atom jz, atom j otherwise; the segment above knot x has the atoms from x's next
        let knot = |x: Option<u64>| x.map_or_else(|| Interval::zero(p), |j| self.loss(j));
        let knot_d = |x: Option<u64>| x.map_or_else(|| self.delta_from(&Interval::zero(p), jz), knot_delta);
        let solve = |x: Option<u64>, y: u64| {
            let from = x.map_or(jz, |j| j + 1);
            let num = self.inf.add(&self.upper(Measure::A, from)).sub(&t);
            let den = self.upper(Measure::B, from);
            let (xl, yh) = (knot(x).into_parts().0, self.loss(y).into_parts().1);
            if *num.lo() <= 0 || *den.lo() <= 0 {
                return Interval::new(xl, yh);
            }
            num.div(&den).ln().clamp_to(&xl, &yh)
        };
        let x = (lo > jz).then(|| lo - 1);
        let dx = knot_d(x);
        if *dx.lo() > *t.hi() {
            return Some(solve(x, lo));
        }
        if x.is_none() && below(&dx) {
            return Some(Interval::zero(p));
        }
        // undecided at knot x: ε* within the enclosure's resolution of it, on either side
        let Some(xj) = x else { return Some(solve(None, lo).hull(&Interval::zero(p))) };
        let w = (xj > jz).then(|| xj - 1);
        (*knot_d(w).lo() > *t.hi()).then(|| solve(x, lo).hull(&solve(w, xj)).hull(&knot(x)))
    }

    /// f(α) = max(0, w_J, w_{J+1}) with J the last atom where B[L ≥ ℓ_J] > α, else atom 0 (the module's
    /// note; w_{J+1} only where B[L ≥ ℓ_{J+1}] ≤ α is not decided); the ends exactly. None where
    /// B[L ≥ ℓ_{J+2}] ≤ α is not decided either (the maximum not shown to be among them).
    fn tradeoff(&self, alpha: &Rational) -> Option<Interval> {
        let p = self.prec;
        if let Some(end) = tradeoff_end(alpha, &self.inf, p) {
            return Some(end);
        }
        let (zero, one) = (Float::with_val(p, 0), Float::with_val(p, 1));
        let a = Interval::from_rational(alpha, p);
        let gt = |j: u64| *self.upper(Measure::B, j).lo() > *a.hi();
        let le = |j: u64| j > self.n || *self.upper(Measure::B, j).hi() <= *a.lo();
        // J + 1 for the last atom J with B[L ≥ ℓ_J] > α (0: none)
        let (mut lo, mut hi) = (0u64, self.n + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if gt(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // (no such atom: w falls from atom 0 on, where B[L ≥ ℓ_1] ≤ α)
        let base = lo.saturating_sub(1);
        let w = |j: u64| self.lower(Measure::A, j).sub(&self.loss(j).exp().mul(&a.sub(&self.upper(Measure::B, j + 1))));
        let mut best = Interval::zero(p).max(&w(base));
        if !le(base + 1) {
            if !le(base + 2) {
                return None;
            }
            best = best.max(&w(base + 1));
        }
        Some(best.clamp_to(&zero, &one))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::engines::holds;
    use crate::model::{Composition, Neighbors};

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// The query on `spec` (replace neighbours) by the binomial path at any n, at 30 digits.
    fn at(spec: &str, query: &str, x: &str) -> Interval {
        let groups = vec![crate::model::spec::parse_mech(spec).unwrap()];
        let laws = Composition::new(groups, Neighbors::Replace).unwrap().law_shifts().unwrap();
        let step = super::super::atoms_lattice::common_lattice(&laws).expect("a lattice");
        let x = q(x);
        let query = match query {
            "epsilon" => Query::Epsilon(&x),
            "delta" => Query::Delta(&x),
            _ => Query::Tradeoff(&x),
        };
        let prec = super::super::atoms_lattice::working_prec(30);
        answer_any(&laws, query, &step, prec).unwrap().expect("the binomial path answers")
    }

    /// 10⁶ binary reports (ε₀ = 1 and 1/1000): ε(δ), δ(ε) and f(α) against
    /// scripts/reference/randomized_response_binomial.txt (mpmath's direct sums over 60 standard deviations,
    /// masses from its log-gamma), every row to 30 digits; the heavy tier adds 10⁷ reports.
    #[test]
    fn a_million_reports_hold_the_direct_sums() {
        binomial_rows(1_000_000);
    }

    #[test]
    #[ignore = "heavy: 10^7 randomized-response reports by the binomial path (~1 s)"]
    fn ten_million_reports_hold_the_direct_sums() {
        binomial_rows(10_000_000);
    }

    fn binomial_rows(max_n: u64) {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_binomial.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            if f[1].parse::<u64>().unwrap() > max_n {
                continue;
            }
            let iv = at(&format!("rr:epsilon={},n={}", f[2], f[1]), f[0], f[3]);
            assert!(holds(&iv, f[4]) && iv.meets(30), "{f:?}: {iv:?}");
            seen += 1;
        }
        assert!(seen >= if max_n >= 10_000_000 { 9 } else { 8 });
    }

    /// At small n, the binary rows of the exact-atoms references: ε(δ) (scripts/reference/
    /// randomized_response_epsilon.txt, mpmath's direct binomial sums, n = 7 … 10⁵), f(α)
    /// (randomized_response_tradeoff.txt, the Neyman–Pearson tests, n = 1 … 50, by ε₀ and by keep
    /// probability), δ(ε) (one and ten reports at ε₀ = 1/2, `atoms`' test), each to 30 digits.
    #[test]
    fn the_binomial_path_holds_the_exact_atoms_references() {
        let eps = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_epsilon.txt"));
        let rows: Vec<_> = crate::num::reference::rows(eps).into_iter().filter(|f| f.len() == 4).collect();
        assert!(rows.len() >= 5);
        for f in rows {
            let iv = at(&format!("rr:epsilon={},n={}", f[1], f[0]), "epsilon", f[2]);
            assert!(holds(&iv, f[3]) && iv.meets(30), "{f:?}: {iv:?}");
        }
        let tr = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_tradeoff.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(tr).into_iter().filter(|f| f[2] == "2") {
            let spec = match f[1].strip_prefix("ln(").and_then(|r| r.strip_suffix(')')) {
                Some(r) => format!("rr:keep={},n={}", q(r) / (q(r) + 1u32), f[0]),
                None => format!("rr:epsilon={},n={}", f[1], f[0]),
            };
            let iv = at(&spec, "tradeoff", f[3]);
            assert!(holds(&iv, f[4]) && iv.meets(30), "{f:?}: {iv:?}");
            seen += 1;
        }
        assert!(seen >= 7);
        for (spec, e, want) in [
            ("rr:epsilon=0.5", "0", "0.2449186624037091292778011314910169575066"),
            ("rr:epsilon=0.5,n=10", "1", "0.3316784829286968535946636944070186536663"),
        ] {
            let iv = at(spec, "delta", e);
            assert!(holds(&iv, want) && iv.meets(30), "{spec} delta({e}): {iv:?}");
        }
    }

    /// Three-point laws (k-ary randomized response) are not binomial: declined.
    #[test]
    fn three_atoms_are_declined() {
        let groups = vec![crate::model::spec::parse_mech("rr:epsilon=1,k=3,n=30000").unwrap()];
        let laws = Composition::new(groups, Neighbors::Replace).unwrap().law_shifts().unwrap();
        let step = super::super::atoms_lattice::common_lattice(&laws).unwrap();
        assert!(answer(&laws, Query::Delta(&q("1")), &step, 171).unwrap().is_none());
    }
}
