//! Compositions of laws with finitely many losses on one lattice — randomized response, stated (ε, δ)
//! pairs, their mixes — composed exactly: each law's atoms as a vector on the common lattice, the
//! composition as the product of their convolution powers, no grid.
//!
//! For a law whose finite losses are atoms ℓ = a + k·s (k = k_lo … k_hi; the law's `lattice` and
//! `lattice_offset`, its `range` ends both atoms) with A-masses p_k, and A[L = +∞] = p_∞, n independent
//! copies of laws i have the finite law Π_i (Σ_k p_{i,k} z^k)^{n_i} (a polynomial in z: the loss of its
//! z^j term is Σ_i n_i a_i + j·s) and A[L = +∞] = 1 − Π_i (1 − p_{∞,i})^{n_i}; then
//!
//!   δ(ε) = A[L = +∞] + Σ_{ℓ_j > ε} p_j (1 − e^{ε − ℓ_j})        ([SSW24, Lemma A.9])
//!
//! a sum of non-negative terms, and on a segment between consecutive atoms ℓ_j ≤ ε < ℓ_{j+1},
//! δ(ε) = P − e^ε Q with P = A[L = +∞] + Σ_{i>j} p_i and Q = Σ_{i>j} p_i e^{−ℓ_i}, so ε(δ) = ln((P − δ)/Q)
//! on the segment where δ crosses. The trade-off function f(α) = sup_ε (1 − δ(ε) − e^ε α) [DRS22, Prop.
//! 2.12] is concave in e^ε between atoms, so its supremum is 0 (ε → −∞) or the value at an atom,
//! w_j = A[L ≤ ℓ_j] − e^{ℓ_j} (α − B[L > ℓ_j]) with B[L = ℓ_i] = p_i e^{−ℓ_i}: the largest of them; and the
//! worse direction counts (the smaller f). Every mass is an interval (the laws' own enclosures, convolved in
//! outward-rounded arithmetic): no cancellation, so a precision of the digits asked plus a few guard bits
//! meets them. The work is the convolutions', counted from the vectors' lengths ([`MAX_WORK`]).
//!
//! Laws with finitely many losses on no common lattice (a stated (ε, δ) pair on a Poisson subsample: losses
//! ln(1 − q + q e^{±ε}) and ln(1 − q)) are composed by their multinomial sums instead, every atom listed
//! with its enclosed loss (`atoms_listed`), and queried the same way. The knots may be thousands, so δ at
//! every knot comes from one pass ([`Composed::knot_deltas`]).

use super::atoms_lattice::{common_lattice, law_atoms, power_work, tradeoff_end, working_prec, Lattice};
use super::{atoms_binomial, atoms_listed, atoms_sparse};
use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::convolve::{convolve, power, WHOLE};
use crate::num::Interval;
use rug::{Float, Rational};
use std::sync::Arc;

/// Estimated seconds per composed atom on no common lattice (both directions, 20 digits; measured).
const LISTED_SECONDS_PER_ATOM: f64 = 1.3e-5;
/// Largest convolution work taken, in products of two enclosures (4,000 atoms of a law's power by
/// squaring: 200 reports of 20-ary randomized response; ~1 s at 20 digits).
const MAX_WORK: f64 = 1.6e7;
/// Longest composed vector taken (its queries take an exponential per atom above the point asked).
const MAX_LEN: f64 = 2.1e6;

/// A point where the accountant's knots sit: ε = 0, or the loss of atom j.
#[derive(Clone, Copy)]
enum Knot {
    Zero,
    Atom(usize),
}

/// The composed law's step: a rational (exact losses), or ln r enclosed well beyond the working precision;
/// or no step: every atom's loss listed, enclosed, in increasing order and separated (`atoms_listed`).
enum Step {
    Exact(Rational),
    Enclosed(Interval),
    Listed(Vec<Interval>),
}

/// The composed law of one direction: atoms at `offset + (k0 + j)·step` with masses p[j], and A[L = +∞].
struct Composed {
    offset: Rational,
    step: Step,
    k0: i64,
    p: Vec<Interval>,
    inf: Interval,
    /// on a lattice, the first atom above 0 (the losses increase with the index: found by bisection once)
    zero_from: std::sync::OnceLock<usize>,
}

/// The engine: the exact composed law of finitely many atoms.
pub(in crate::account) struct AtomsEngine;

impl super::LawEngine for AtomsEngine {
    fn name(&self) -> &'static str {
        "atoms"
    }

    fn offer(&self, job: &super::Job) -> super::Offer {
        if common_lattice(job.laws).is_some() {
            return super::Offer::Takes { stands: true, expects: None, seconds: None };
        }
        match atoms_listed::count(job.laws) {
            Some(c) if c <= atoms_listed::MAX_ATOMS => {
                super::Offer::Takes { stands: true, expects: None, seconds: Some(c * LISTED_SECONDS_PER_ATOM) }
            }
            Some(c) => super::Offer::Declined(format!(
                "the laws' losses are finitely many atoms on no common lattice, and their composition has {c:.3e} of them (most {:.0e})",
                atoms_listed::MAX_ATOMS
            )),
            None => super::Offer::Declined("a law's losses are not finitely many atoms".into()),
        }
    }

    fn answer(&self, job: &super::Job) -> Fallible<Option<Certified>> {
        answer(job.laws, job.q, job.digits, job.trust)
    }
}

/// The accountant's query on a composition of laws whose losses are finitely many atoms, on one lattice or
/// listed: ε(δ), δ(ε) or f(α) (None: not such a composition, beyond the work cap, or atoms the enclosures
/// cannot order).
pub(in crate::account) fn answer(laws: &[(Arc<dyn LossLaw>, u64)], q: Query, digits: u32, trust: Trust) -> Fallible<Option<Certified>> {
    if laws.is_empty() {
        return Ok(None);
    }
    if let Query::Tradeoff(a) = q {
        if *a < 0 || *a > 1 {
            return crate::fallible!(Input, "alpha must be in [0, 1], got {a}");
        }
    }
    let step = common_lattice(laws);
    let _progress = match (&step, atoms_listed::count(laws)) {
        (Some(_), _) => None,
        (None, Some(c)) if c <= atoms_listed::MAX_ATOMS => {
            Some(crate::num::progress::begin("exact multinomial sums", c * LISTED_SECONDS_PER_ATOM))
        }
        (None, _) => return Ok(None),
    };
    let prec = working_prec(digits);
    // (many copies of one two-atom law: a binomial law, from the masses near the point asked)
    if let Some(step) = &step {
        if let Some(iv) = atoms_binomial::answer(laws, q, step, prec)? {
            let detail = format!(
                "{} loss laws with two finite losses each on the lattice {}Z, composed exactly as a binomial law from its masses near the point asked, {prec} bits",
                laws[0].1,
                step.describe()
            );
            return Certified::new(iv, Engine::Atoms, trust, detail).map(Some);
        }
    }
    let dirs = super::directions(laws);
    let on_lattice = match &step {
        Some(step) => dirs.iter().map(|&d| compose(laws, d, step, prec)).collect::<Fallible<Option<Vec<Composed>>>>()?,
        None => None,
    };
    let listable = atoms_listed::count(laws).is_some_and(|c| c <= atoms_listed::MAX_ATOMS);
    // (a law spanning more lattice points than the lattice path takes — randomized response by ε = 2.773
    // beside ε = 2.481, on the step 1/1000 — with few atoms in all: every atom listed instead)
    let lattice_used = on_lattice.is_some();
    let composed: Vec<Option<Composed>> = match (on_lattice, dirs) {
        (Some(c), _) => c.into_iter().map(Some).collect(),
        (None, _) if step.is_some() && !listable => return Ok(None),
        // (listed atoms may be many: the two directions on the two cores)
        (None, [a, b]) => {
            let (x, y) = rayon::join(|| listed(laws, *a, prec), || listed(laws, *b, prec));
            vec![x?, y?]
        }
        (None, _) => dirs.iter().map(|&d| listed(laws, d, prec)).collect::<Fallible<_>>()?,
    };
    let mut out: Option<Interval> = None;
    for c in composed {
        let Some(c) = c else { return Ok(None) };
        let iv = match q {
            Query::Delta(e) => {
                // (a transcendental loss within 2^-prec of ε leaves the comparison undecided: the grid answers)
                let Some(d) = c.delta(e, prec) else { return Ok(None) };
                d
            }
            Query::Epsilon(d) => c.epsilon(d, prec),
            Query::Tradeoff(a) => c.tradeoff(a, prec),
        };
        // δ and ε: the larger over the directions; f(α): the smaller
        let worse = if matches!(q, Query::Tradeoff(_)) { Interval::min } else { Interval::max };
        out = Some(match out {
            None => iv,
            Some(o) => worse(&o, &iv),
        });
    }
    let Some(iv) = out else { return Ok(None) };
    let n: u64 = laws.iter().map(|(_, c)| *c).sum();
    let plural = if n == 1 { "" } else { "s" };
    let detail = match step.as_ref().filter(|_| lattice_used) {
        Some(step) => {
            format!("{n} loss law{plural} with finitely many losses on the lattice {}Z, composed exactly, {prec} bits", step.describe())
        }
        None => format!(
            "{n} loss law{plural} with finitely many losses on {}, composed exactly by their multinomial sums, {prec} bits",
            if step.is_some() { "a common lattice too fine to lay out" } else { "no common lattice" }
        ),
    };
    Certified::new(iv, Engine::Atoms, trust, detail).map(Some)
}

/// ln E_A[e^{λL}] over one law's finite atoms in direction `dir` (λ > 0), enclosed, and its mass
/// A[L = +∞] (for the Rényi divergences of `account::renyi`); None if its losses are not finitely many atoms
/// on a lattice. Taken as λℓ_top + ln Σ_k p_k e^{λ(ℓ_k − ℓ_top)}, ℓ_top the largest atom: no term overflows.
pub(in crate::account) fn ln_moment(
    law: &Arc<dyn LossLaw>,
    dir: Direction,
    lam: &Interval,
    prec: u32,
) -> Fallible<Option<(Interval, Interval)>> {
    let Some(step) = common_lattice(&[(Arc::clone(law), 1)]) else { return Ok(None) };
    let Some(a) = law_atoms(law.as_ref(), dir, &step, prec)? else { return Ok(None) };
    let off = law.lattice_offset();
    let loss = |k: i64| match &step {
        Lattice::Rational(s) => Interval::from_rational(&(&off + Rational::from(k) * s), prec),
        Lattice::Log(_) | Lattice::Enclosed(_) => step.at(prec).mul(&Interval::from_i64(k, prec)),
    };
    let top = loss(a.k0 + a.p.len() as i64 - 1);
    let mut m = Interval::zero(prec);
    for (j, p) in a.p.iter().enumerate() {
        m = m.add(&p.mul(&lam.mul(&loss(a.k0 + j as i64).sub(&top)).exp()));
    }
    Ok(Some((lam.mul(&top).add(&m.ln()), a.inf)))
}

/// The composed law of one direction of laws on no common lattice, every atom listed (`atoms_listed`); None
/// where the enclosures cannot order the atoms.
fn listed(laws: &[(Arc<dyn LossLaw>, u64)], dir: Direction, prec: u32) -> Fallible<Option<Composed>> {
    let Some(l) = atoms_listed::compose(laws, dir, prec)? else { return Ok(None) };
    Ok(Some(Composed {
        offset: Rational::new(),
        step: Step::Listed(l.losses),
        k0: 0,
        p: l.masses,
        inf: l.inf,
        zero_from: Default::default(),
    }))
}

/// The composed law of one direction, or None beyond the work cap.
fn compose(laws: &[(Arc<dyn LossLaw>, u64)], dir: Direction, step: &Lattice, prec: u32) -> Fallible<Option<Composed>> {
    let mut atoms = Vec::with_capacity(laws.len());
    let (mut len, mut work) = (1f64, 0f64);
    for (l, n) in laws {
        let d = if l.symmetric() { Direction::Remove } else { dir };
        let Some(a) = law_atoms(l.as_ref(), d, step, prec)? else { return Ok(None) };
        let power_len = *n as f64 * (a.p.len() as f64 - 1.0) + 1.0;
        work += power_work(a.p.len(), power_len) + if atoms.is_empty() { 0.0 } else { len * power_len };
        len += power_len - 1.0;
        atoms.push((a, *n, l.lattice_offset()));
    }
    if len > MAX_LEN {
        return Ok(None);
    }
    // (beyond the cap densely: few atoms far apart on a fine common lattice, composed atom by atom)
    let sparse = match work > MAX_WORK {
        true => {
            let parts: Option<Vec<_>> = atoms
                .iter()
                .zip(laws)
                .map(|((a, n, _), (l, _))| {
                    let d = if l.symmetric() { Direction::Remove } else { dir };
                    atoms_sparse::atom_indices(l.as_ref(), d, step, a, prec).map(|nz| (a, *n, nz))
                })
                .collect();
            match parts.and_then(|parts| atoms_sparse::compose(&parts, prec, MAX_WORK)) {
                Some(s) => Some(s),
                None => return Ok(None),
            }
        }
        false => None,
    };
    let one = Interval::one(prec);
    let mut p = vec![one.clone()];
    let (mut k0, mut offset, mut keep) = (0i64, Rational::new(), one.clone());
    for (i, (a, n, off)) in atoms.into_iter().enumerate() {
        if sparse.is_none() {
            let pw = power(&a.p, n, WHOLE);
            p = if i == 0 { pw } else { convolve(&p, &pw, WHOLE) };
            k0 += a.k0 * n as i64;
        }
        offset += off * Rational::from(n);
        keep = keep.mul(&one.sub(&a.inf).pow_u64(n));
    }
    if let Some((k, q)) = sparse {
        (k0, p) = (k, q);
    }
    let inf = one.sub(&keep).clamp_unit();
    let step = match step {
        Lattice::Rational(s) => Step::Exact(s.clone()),
        Lattice::Log(_) | Lattice::Enclosed(_) => Step::Enclosed(step.at(prec + 64)),
    };
    Ok(Some(Composed { offset, step, k0, p, inf, zero_from: Default::default() }))
}

/// The composed law of one direction of laws on one rational lattice: each finite atom's exact loss with its
/// A-mass enclosed (masses that are 0 left out), and A[L = +∞]; None off a rational lattice or beyond the
/// work cap.
pub(super) fn exact_atoms(
    laws: &[(Arc<dyn LossLaw>, u64)],
    dir: Direction,
    prec: u32,
) -> Fallible<Option<(Vec<(Rational, Interval)>, Interval)>> {
    let Some(step) = common_lattice(laws) else { return Ok(None) };
    let Lattice::Rational(s) = &step else { return Ok(None) };
    let Some(c) = compose(laws, dir, &step, prec)? else { return Ok(None) };
    let atoms = c.p.into_iter().enumerate().filter(|(_, m)| *m.hi() > 0);
    let atoms = atoms.map(|(j, m)| (&c.offset + Rational::from(c.k0 + j as i64) * s, m)).collect();
    Ok(Some((atoms, c.inf)))
}

impl Composed {
    /// The loss of atom j enclosed (a point on a rational lattice).
    fn loss(&self, j: usize, prec: u32) -> Interval {
        let m = self.k0 + j as i64;
        match &self.step {
            Step::Exact(s) => Interval::from_rational(&(&self.offset + Rational::from(m) * s), prec),
            Step::Enclosed(s) => s.mul(&Interval::from_rational(&Rational::from(m), prec + 64)),
            Step::Listed(v) => v[j].clone(),
        }
    }

    /// e^{σs} (σ = −1 if `neg`, else +1), the exponential of the lattice's step s (None: listed atoms).
    fn step_exp(&self, neg: bool, prec: u32) -> Option<Interval> {
        let sign = |x: Interval| if neg { x.neg() } else { x };
        match &self.step {
            Step::Exact(s) => Some(sign(Interval::from_rational(s, prec)).exp()),
            Step::Enclosed(s) => Some(sign(s.clone()).exp()),
            Step::Listed(_) => None,
        }
    }

    /// e^{σℓ_j} (σ = −1 if `neg`, else +1) for the atoms j of `order`, in that order: on a lattice one
    /// exponential, then one product by e^{±σs} per step to the next index (ℓ_{j±1} = ℓ_j ± s; the relative
    /// width grows by a few roundings per atom, against the 64 guard bits of the precision); listed atoms
    /// one exponential each.
    fn loss_exps<'a>(
        &'a self,
        order: impl Iterator<Item = usize> + 'a,
        neg: bool,
        prec: u32,
    ) -> impl Iterator<Item = (usize, Interval)> + 'a {
        let sign = move |x: Interval| if neg { x.neg() } else { x };
        let up = self.step_exp(neg, prec);
        let down = up.as_ref().map(|u| Interval::one(prec).div(u));
        let mut prev: Option<(usize, Interval)> = None;
        order.map(move |j| {
            let e = match (&prev, &up, &down) {
                (Some((i, e)), Some(u), _) if j == i + 1 => e.mul(u),
                (Some((i, e)), _, Some(d)) if j + 1 == *i => e.mul(d),
                _ => sign(self.loss(j, prec)).exp(),
            };
            prev = Some((j, e.clone()));
            (j, e)
        })
    }

    /// Whether the loss of atom j is above ε (None: a transcendental loss the enclosure cannot place).
    fn above(&self, j: usize, eps: &Rational) -> Option<bool> {
        let m = self.k0 + j as i64;
        match &self.step {
            Step::Exact(s) => Some(&self.offset + Rational::from(m) * s > *eps),
            // (offset 0 on a log lattice: the sign of the loss is the index's)
            Step::Enclosed(_) if *eps == 0 => Some(m > 0),
            Step::Enclosed(_) => {
                let l = self.loss(j, 64);
                (*l.lo() > *eps).then_some(true).or((*l.hi() < *eps).then_some(false))
            }
            // (a point enclosure is the loss itself)
            Step::Listed(v) => {
                let l = &v[j];
                (*l.lo() > *eps).then_some(true).or((*l.hi() < *eps || (l.lo() == l.hi() && *l.lo() == *eps)).then_some(false))
            }
        }
    }

    /// The value of a knot enclosed.
    fn knot(&self, k: Knot, prec: u32) -> Interval {
        match k {
            Knot::Zero => Interval::zero(prec),
            Knot::Atom(j) => self.loss(j, prec),
        }
    }

    /// Whether atom j lies above the knot.
    fn above_knot(&self, j: usize, k: Knot) -> bool {
        match k {
            Knot::Zero if matches!(self.step, Step::Listed(_)) => self.above(j, &Rational::new()) == Some(true),
            Knot::Zero => {
                let zero = Rational::new();
                j >= *self.zero_from.get_or_init(|| {
                    let (mut a, mut b) = (0, self.p.len());
                    while a < b {
                        let m = (a + b) / 2;
                        if self.above(m, &zero) == Some(true) {
                            b = m;
                        } else {
                            a = m + 1;
                        }
                    }
                    a
                })
            }
            Knot::Atom(i) => j > i,
        }
    }

    /// δ at ε: A[L = +∞] + Σ_{ℓ_j > ε} p_j (1 − e^{ε − ℓ_j}), clipped to [0, 1] (None: see [`Self::above`]).
    fn delta(&self, eps: &Rational, prec: u32) -> Option<Interval> {
        let mut over = Vec::with_capacity(self.p.len());
        for j in 0..self.p.len() {
            over.push(self.above(j, eps)?);
        }
        Some(self.delta_over(&Interval::from_rational(eps, prec), |j| over[j], prec))
    }

    /// δ at a knot (the atoms above it by index: no comparison of enclosures): the direct sum, against which
    /// the tests hold [`Self::knot_deltas`].
    #[cfg(test)]
    fn delta_knot(&self, k: Knot, prec: u32) -> Interval {
        self.delta_over(&self.knot(k, prec), |j| self.above_knot(j, k), prec)
    }

    fn delta_over(&self, ie: &Interval, over: impl Fn(usize) -> bool, prec: u32) -> Interval {
        let one = Interval::one(prec);
        let e_eps = ie.exp();
        let mut d = self.inf.clone();
        for (j, e) in self.loss_exps((0..self.p.len()).filter(|&j| over(j)), true, prec) {
            let p = &self.p[j];
            if *p.hi() > 0 {
                let f = one.sub(&e_eps.mul(&e)).clamp_unit();
                d = d.add(&p.mul(&f));
            }
        }
        d.clamp_unit()
    }

    /// f(α) = max(0, max_j w_j), w_j = A[L ≤ ℓ_j] − e^{ℓ_j} (α − B[L > ℓ_j]) (the module's note): the
    /// ends exactly (f(0) = 1 − A[L = +∞], f(1) = 0), else every atom's value, the masses below summed
    /// upwards and the B-masses above downwards (no cancellation against 1 when f is tiny).
    fn tradeoff(&self, alpha: &Rational, prec: u32) -> Interval {
        if let Some(end) = tradeoff_end(alpha, &self.inf, prec) {
            return end;
        }
        let (zero, one) = (Float::with_val(prec, 0), Float::with_val(prec, 1));
        let a = Interval::from_rational(alpha, prec);
        let el: Vec<Interval> = self.loss_exps(0..self.p.len(), false, prec).map(|(_, e)| e).collect();
        // B[L > ℓ_j] for every j, from the top
        let mut b_above = vec![Interval::zero(prec); self.p.len()];
        for j in (0..self.p.len().saturating_sub(1)).rev() {
            b_above[j] = b_above[j + 1].add(&self.p[j + 1].div(&el[j + 1]));
        }
        let mut best = Interval::zero(prec);
        let mut a_below = Interval::zero(prec);
        for j in 0..self.p.len() {
            a_below = a_below.add(&self.p[j]);
            if *self.p[j].hi() == 0 {
                continue;
            }
            let w = a_below.sub(&el[j].mul(&a.sub(&b_above[j])));
            best = best.max(&w);
        }
        best.clamp_to(&zero, &one)
    }

    /// ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ}: the segment between atoms where δ(ε) crosses δ, and there
    /// ln((P − δ)/Q). The knots are the atoms above 0 and 0; a knot whose δ the enclosure cannot place
    /// against the target gives the hull of the two segments' solutions beside it.
    fn epsilon(&self, target: &Rational, prec: u32) -> Interval {
        let t = Interval::from_rational(target, prec);
        // knots from the top: 0 and the losses above 0
        let mut knots: Vec<Knot> = (0..self.p.len()).filter(|&j| self.above_knot(j, Knot::Zero)).map(Knot::Atom).collect();
        knots.insert(0, Knot::Zero);
        let top = knots.len() - 1;
        let known = self.knot_deltas(&knots, &t, prec);
        // δ at the top knot is A[L = +∞] (≤ δ, else the accountant has answered ∞ before)
        for i in (0..=top).rev() {
            let d = known[i].clone();
            if d.hi() <= t.lo() {
                continue;
            }
            let seg_above = (i < top).then(|| self.solve(knots[i], knots[i + 1], &t, prec));
            let decided = d.lo() > t.hi();
            return match (seg_above, decided) {
                // δ(knot) > δ: ε* on the segment above
                (Some(s), true) => s,
                // undecided at the knot: ε* within the enclosure's resolution of it, on either side
                (above, false) => {
                    let below = (i > 0).then(|| self.solve(knots[i - 1], knots[i], &t, prec));
                    let k = self.knot(knots[i], prec);
                    [above, below].into_iter().flatten().fold(k, |h, s| h.hull(&s))
                }
                // δ above the target at the top knot: not reached (the infinite mass is at most δ)
                (None, true) => {
                    Interval::new(self.knot(knots[i], prec).into_parts().0, Float::with_val(prec, rug::float::Special::Infinity))
                }
            };
        }
        // δ(0) ≤ δ
        Interval::zero(prec)
    }

    /// δ at every knot at once (the knots may be thousands: one sum per knot would cost their number
    /// squared): from the top atom down, with g = ℓ_{j+1} − ℓ_j > 0 and R_j = Σ_{i>j} p_i e^{ℓ_j − ℓ_i},
    ///
    ///   δ(ℓ_j) = δ(ℓ_{j+1}) + (1 − e^{−g})(p_{j+1} + R_{j+1}),   R_j = e^{−g}(p_{j+1} + R_{j+1}),
    ///
    /// from δ(ℓ_top) = A[L = +∞] (δ(ℓ_j) = P_j − e^{ℓ_j} Q_j written in non-negative terms: no cancellation),
    /// and the knot 0 as one more step below the lowest atom above it; down to the first knot whose δ may
    /// exceed the target `t` (the knots below it are not read: left [0, 1]).
    fn knot_deltas(&self, knots: &[Knot], t: &Interval, prec: u32) -> Vec<Interval> {
        let mut out = vec![Interval::new(Float::with_val(prec, 0), Float::with_val(prec, 1)); knots.len()];
        out[knots.len() - 1] = self.inf.clone();
        if self.inf.hi() > t.lo() {
            return out;
        }
        let (mut d, mut r) = (self.inf.clone(), Interval::zero(prec));
        // e^{−g} between consecutive atoms of a lattice: one exponential
        let lattice_gap = self.step_exp(true, prec);
        for i in (0..knots.len().saturating_sub(1)).rev() {
            let Knot::Atom(up) = knots[i + 1] else { unreachable!("invariant: only the lowest knot is 0") };
            let e = match (knots[i], &lattice_gap) {
                (Knot::Atom(j), Some(g)) if j + 1 == up => g.clone(),
                _ => self.knot(knots[i], prec).sub(&self.loss(up, prec)).exp(),
            };
            let mass = self.p[up].add(&r);
            d = d.add(&Interval::one(prec).sub(&e).clamp_unit().mul(&mass));
            r = e.mul(&mass);
            out[i] = d.clamp_unit();
            if out[i].hi() > t.lo() {
                break;
            }
        }
        out
    }

    /// The solution ln((P − δ)/Q) of δ(ε) = δ on the segment [x, y] (P, Q over the atoms above x), clipped
    /// to the segment.
    fn solve(&self, x: Knot, y: Knot, t: &Interval, prec: u32) -> Interval {
        let mut pp = self.inf.clone();
        let mut qq = Interval::zero(prec);
        // (from the top down: the atoms above a knot are the last ones, one product apart)
        for (j, e) in self.loss_exps((0..self.p.len()).rev().filter(|&j| self.above_knot(j, x)), true, prec) {
            pp = pp.add(&self.p[j]);
            qq = qq.add(&self.p[j].mul(&e));
        }
        let (xl, yh) = (self.knot(x, prec).into_parts().0, self.knot(y, prec).into_parts().1);
        let num = pp.sub(t);
        if *num.lo() <= 0 || *qq.lo() <= 0 {
            return Interval::new(xl, yh);
        }
        num.div(&qq).ln().clamp_to(&xl, &yh)
    }
}

/// Test helper: every row `spec … | query x | value` of a reference table (composed under replace), answered
/// by [`answer`] to `digits`: the bracket holds the value and meets the digits. The rows checked.
#[cfg(test)]
pub(crate) fn reference_rows(text: &str, digits: u32) -> usize {
    use crate::model::{spec::parse_mech, Composition, Neighbors};
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(" | ").collect();
        let groups = f[0].split(' ').map(|s| parse_mech(s).unwrap()).collect();
        let laws = Composition::new(groups, Neighbors::Replace).unwrap().law_shifts().unwrap();
        let (kind, x) = f[1].split_once(' ').unwrap();
        let x = crate::num::parse_rational(x).unwrap();
        let query = match kind {
            "epsilon" => Query::Epsilon(&x),
            "delta" => Query::Delta(&x),
            _ => Query::Tradeoff(&x),
        };
        let c = answer(&laws, query, digits, Trust::Bound).unwrap().unwrap_or_else(|| panic!("{line}: declined"));
        assert!(super::holds(&c.interval(), f[2].trim()) && c.meets(digits), "{line}: {c:?}");
        seen += 1;
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    use crate::account::engines::{holds, Offer};
    use crate::model::{Composition, Neighbors};

    fn laws(specs: &[&str], nb: Neighbors) -> Vec<(Arc<dyn LossLaw>, u64)> {
        let groups = specs.iter().map(|s| crate::model::spec::parse_mech(s).unwrap()).collect();
        Composition::new(groups, nb).unwrap().law_shifts().unwrap()
    }

    /// The binomial path (`atoms_binomial`, from the masses near the point asked) against the whole composed
    /// vector, two exact computations that share nothing but the law's masses: 30,000 copies of binary
    /// randomized response by ε₀ and by keep probability, and of a stated (1/2, 1e-9) guarantee (mass at
    /// +∞); δ at three ε, ε at three δ, f at four α, both at 30 digits, the brackets overlapping.
    #[test]
    fn the_binomial_path_agrees_with_the_whole_vector() {
        let prec = working_prec(30);
        for spec in ["rr:epsilon=1,n=30000", "rr:keep=3/4,n=30000", "dp:epsilon=1/2,delta=1e-9,n=30000"] {
            let l = laws(&[spec], Neighbors::Replace);
            let step = common_lattice(&l).unwrap();
            let whole = compose(&l, Direction::Remove, &step, prec).unwrap().unwrap();
            let cases = [("d", "0"), ("d", "1"), ("d", "50"), ("e", "1e-5"), ("e", "1e-100"), ("e", "1/2")];
            let cases = cases.into_iter().chain(["1e-6", "1/1000", "1/10", "1/2"].map(|a| ("f", a)));
            let mut n = 0;
            for (kind, x) in cases {
                let x = q(x);
                let query = match kind {
                    "d" => Query::Delta(&x),
                    "e" => Query::Epsilon(&x),
                    _ => Query::Tradeoff(&x),
                };
                let b = atoms_binomial::answer(&l, query, &step, prec).unwrap();
                let b = b.unwrap_or_else(|| panic!("{spec} {kind} {x}: the binomial path answers"));
                let w = match query {
                    Query::Delta(e) => whole.delta(e, prec).unwrap(),
                    Query::Epsilon(d) => whole.epsilon(d, prec),
                    Query::Tradeoff(a) => whole.tradeoff(a, prec),
                };
                // (ε not reached where A[L = +∞] > δ: [ℓ_top, ∞) both)
                let same_end = w.hi().is_infinite() && b.hi().is_infinite() && b.lo() == w.lo();
                assert!(b.overlaps(&w) && (same_end || b.meets(30) && w.meets(30)), "{spec} {x}: binomial {b:?}, whole {w:?}");
                n += 1;
            }
            assert_eq!(n, 10);
        }
    }

    /// k-ary randomized response, n reports, under replace neighbours: scripts/reference/randomized_response.txt
    /// (the exact multinomial sum in mpmath); and the fifty binary reports at ε₀ = 1,
    /// ε(δ) = 45.676142751656… (the reference below).
    #[test]
    fn randomized_response_holds_the_exact_sums() {
        for (spec, e, want) in [
            ("rr:epsilon=0.5", "0", "0.2449186624037091292778011314910169575066"),
            ("rr:epsilon=0.5,n=10", "1", "0.3316784829286968535946636944070186536663"),
            ("rr:epsilon=0.5,k=3,n=10", "1.3", "0.1988558227294445145401650223586028545682"),
        ] {
            let c = answer(&laws(&[spec], Neighbors::Replace), Query::Delta(&q(e)), 30, Trust::Exact).unwrap().unwrap();
            assert!(holds(&c.interval(), want) && c.meets(30), "{spec} delta({e}): {c:?}");
        }
    }

    /// ε(δ) of n reports: scripts/reference/randomized_response_epsilon.txt (a direct binomial sum in mpmath,
    /// or for k = 3 the trinomial one aggregated by loss; bisection to 45 digits); the default tier takes the
    /// rows up to n = 10⁴ (the binomial and trinomial powers by the recurrence of `num::convolve`, from both
    /// ends for three points: 20,001 lattice points, ~0.05 s), the heavy tier all.
    #[test]
    fn randomized_response_epsilon_holds_the_direct_sums() {
        rr_epsilon_rows(10_000);
    }

    #[test]
    #[ignore = "heavy: 100,000 randomized-response reports composed exactly (~0.5 s)"]
    fn randomized_response_epsilon_holds_the_direct_sums_at_a_hundred_thousand() {
        rr_epsilon_rows(100_000);
    }

    fn rr_epsilon_rows(max_n: u64) {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_epsilon.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            let n: u64 = f[0].parse().unwrap();
            if n > max_n {
                continue;
            }
            let k = f.get(4).copied().unwrap_or("2");
            let spec = format!("rr:epsilon={},k={k},n={n}", f[1]);
            let c = answer(&laws(&[&spec], Neighbors::Replace), Query::Epsilon(&q(f[2])), 30, Trust::Exact).unwrap().unwrap();
            assert!(holds(&c.interval(), f[3]) && c.meets(30), "{f:?}: {c:?}");
            seen += 1;
        }
        assert!(seen >= 2);
    }

    /// f(α) of n k-ary randomized-response reports: scripts/reference/randomized_response_tradeoff.txt (the
    /// Neyman–Pearson lemma on the multinomial counts in mpmath — no privacy profile, no supremum over
    /// lines), every row to 30 digits; the ends exactly; α outside [0, 1] refused.
    #[test]
    fn randomized_response_tradeoff_holds_the_neyman_pearson_tests() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_tradeoff.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            // ε0 = ln(r): the report given by its keep probability p = r/(r + k − 1)
            let spec = match f[1].strip_prefix("ln(").and_then(|r| r.strip_suffix(')')) {
                Some(r) => {
                    let (r, k) = (q(r), q(f[2]));
                    format!("rr:keep={},k={},n={}", &r / (r.clone() + k - 1u32), f[2], f[0])
                }
                None => format!("rr:epsilon={},k={},n={}", f[1], f[2], f[0]),
            };
            let c = answer(&laws(&[&spec], Neighbors::Replace), Query::Tradeoff(&q(f[3])), 30, Trust::Exact).unwrap().unwrap();
            assert!(holds(&c.interval(), f[4]) && c.meets(30), "{f:?}: {c:?}");
            assert_eq!(c.engine(), Engine::Atoms);
            seen += 1;
        }
        assert!(seen >= 10);
        let l = laws(&["rr:epsilon=1,n=3"], Neighbors::Replace);
        let at = |a: &str| answer(&l, Query::Tradeoff(&q(a)), 30, Trust::Exact).unwrap().unwrap().interval();
        assert!(*at("0").lo() == 1 && *at("0").hi() == 1 && *at("1").hi() == 0);
        assert!(answer(&l, Query::Tradeoff(&q("3/2")), 30, Trust::Exact).is_err());
    }

    /// Randomized response given by its keep probability (dp_accounting's `RandomizedResponseDpEvent`):
    /// losses on (ln r)ℤ, transcendental; δ(ε) against scripts/reference/randomized_response_keep.txt (the
    /// multinomial sum in mpmath) to 30 digits, and ε(δ) at the δ so obtained gives back ε.
    #[test]
    fn keep_probabilities_compose_on_the_log_lattice() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/randomized_response_keep.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            let l = laws(&[&format!("rr:keep={},k={},n={}", f[0], f[1], f[2])], Neighbors::Replace);
            let c = answer(&l, Query::Delta(&q(f[3])), 30, Trust::Exact).unwrap().unwrap();
            assert!(holds(&c.interval(), f[4]) && c.meets(30), "{f:?}: {c:?}");
            assert!(c.describe().contains("(ln "), "{c:?}");
            let d = q(&f[4][..25]);
            let e = answer(&l, Query::Epsilon(&d), 30, Trust::Exact).unwrap().unwrap();
            // δ(ε) rounded to 25 digits: ε(δ) lies within the resolution of that rounding around ε
            assert!((e.interval().to_f64() - q(f[3]).to_f64()).abs() < 1e-12 && e.meets(30), "{f:?}: {e:?}");
            seen += 1;
        }
        assert!(seen >= 3);
        // mixed with a rational lattice: no common lattice, and the sums ±ln r of two reports tie: one atom
        // each (their masses added), listed (scripts/reference/rr_keep_with_pairs.txt, mpmath)
        let mixed = laws(&["rr:keep=5/8,k=4,n=2", "rr:epsilon=1,n=2"], Neighbors::Replace);
        let c = answer(&mixed, Query::Delta(&q("1")), 20, Trust::Exact).unwrap().unwrap();
        assert!(holds(&c.interval(), "0.632856148171174284609689904401116320832") && c.meets(20), "{c:?}");
    }

    /// A stated (1, 1e-6)-DP guarantee ten times, ε(1e-5): scripts/reference/approx_dp_composition.txt (from
    /// the four-point pair [KOV15] in mpmath), as a certified bound.
    #[test]
    fn stated_guarantees_compose_on_their_atoms() {
        let c = answer(&laws(&["dp:epsilon=1,delta=1e-6,n=10"], Neighbors::AddRemove), Query::Epsilon(&q("1e-5")), 30, Trust::Bound)
            .unwrap()
            .unwrap();
        assert!(holds(&c.interval(), "9.999999998967966198591428751869375212773") && c.meets(30), "{c:?}");
        assert_eq!(c.trust(), Trust::Bound);
        // laws with a continuous part are not this engine's
        assert!(answer(&laws(&["laplace:scale=1,n=2"], Neighbors::AddRemove), Query::Epsilon(&q("1e-5")), 20, Trust::Exact)
            .unwrap()
            .is_none());
    }

    /// Stated (ε, δ) guarantees on a Poisson subsample (losses on no common lattice), composed by their
    /// multinomial sums: every row of scripts/reference/poisson_approx_dp.txt (the hockey-stick divergence
    /// summed over the outcomes' count vectors in mpmath, both directions — no loss law) to 30 digits,
    /// ε(δ), δ(ε), f(α) and a mix of two guarantees; the offer prices the atoms and declines beyond the cap.
    #[test]
    fn subsampled_stated_guarantees_hold_the_multinomial_sums() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/poisson_approx_dp.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            let l = laws(&f[3..], Neighbors::AddRemove);
            let arg = q(f[1]);
            let query = match f[0] {
                "epsilon" => Query::Epsilon(&arg),
                "delta" => Query::Delta(&arg),
                _ => Query::Tradeoff(&arg),
            };
            let c = answer(&l, query, 30, Trust::Bound).unwrap().unwrap();
            assert!(holds(&c.interval(), f[2]) && c.meets(30), "{f:?}: {c:?}");
            assert!(c.describe().contains("multinomial sums"), "{c:?}");
            seen += 1;
        }
        assert_eq!(seen, 6);
        let job = |specs: &[&str]| {
            let l = laws(specs, Neighbors::AddRemove);
            let e = q("1e-5");
            let j =
                super::super::Job { laws: &l, q: Query::Epsilon(&e), digits: 20, trust: Trust::Bound, prec: 128, grid_work: 1, grid: None };
            super::super::LawEngine::offer(&AtomsEngine, &j)
        };
        // two atoms per direction: n + 1 composed atoms; three (δ > 0): (n + 1)(n + 2)/2
        let Offer::Takes { seconds: Some(s), .. } = job(&["dp:epsilon=1,q=1/10,n=100"]) else { panic!() };
        assert!((s - 101.0 * LISTED_SECONDS_PER_ATOM).abs() < 1e-12);
        let Offer::Declined(why) = job(&["dp:epsilon=1,delta=1e-9,q=1/10,n=1100"]) else { panic!() };
        assert!(why.contains("6.067e5"), "{why}");
    }

    /// Stated guarantees on batches drawn without replacement (replace neighbours): the law of
    /// `noise::wor` has the losses −a, 0, a, a = ln(1 − γ + γe^ε) transcendental, composed on aℤ: every row
    /// of scripts/reference/wor_approx_dp.txt (the tensor power of C_γ(f_{ε,δ}) [DRS22, Thm 9], its pair
    /// worked out from the definitions, in mpmath) to 30 digits.
    #[test]
    fn stated_guarantees_on_fixed_size_batches_compose_on_their_own_step() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/wor_approx_dp.txt"));
        let mut seen = 0;
        for f in crate::num::reference::rows(text) {
            let l = laws(&[f[3]], Neighbors::Replace);
            let arg = q(f[1]);
            let query = if f[0] == "epsilon" { Query::Epsilon(&arg) } else { Query::Delta(&arg) };
            let c = answer(&l, query, 30, Trust::Bound).unwrap().unwrap();
            assert!(holds(&c.interval(), f[2]) && c.meets(30), "{f:?}: {c:?}");
            assert!(c.describe().contains("the step of dp:"), "{c:?}");
            seen += 1;
        }
        assert_eq!(seen, 4);
    }

    /// Composed losses the enclosures cannot order are refused, not guessed: a pure and an approximate
    /// guarantee at the same ε and q share their losses ln(1 − q + q e^{±ε}), so distinct count vectors tie.
    #[test]
    fn ties_between_listed_losses_are_declined() {
        let l = laws(&["dp:epsilon=1,q=1/10,n=3", "dp:epsilon=1,delta=1e-6,q=1/10,n=2"], Neighbors::AddRemove);
        assert!(answer(&l, Query::Epsilon(&q("1e-5")), 20, Trust::Bound).unwrap().is_none());
    }

    /// δ at every knot from the non-negative recurrence equals the direct sum at each knot (every enclosure
    /// pair overlaps), on a composition with 3 atoms per direction and one at +∞.
    #[test]
    fn knot_deltas_agree_with_the_direct_sums() {
        let l = laws(&["dp:epsilon=1,delta=1e-3,q=1/3,n=12"], Neighbors::AddRemove);
        for dir in [Direction::Remove, Direction::Add] {
            let c = listed(&l, dir, 160).unwrap().unwrap();
            let mut knots: Vec<Knot> = (0..c.p.len()).filter(|&j| c.above_knot(j, Knot::Zero)).map(Knot::Atom).collect();
            knots.insert(0, Knot::Zero);
            let none = Interval::one(160).mul_u64(2);
            let all = c.knot_deltas(&knots, &none, 160);
            assert!(knots.len() > 20);
            for (k, d) in knots.iter().zip(&all) {
                let direct = c.delta_knot(*k, 160);
                assert!(d.overlaps(&direct) && d.width().to_f64() < 1e-40, "{dir:?}: {d:?} against {direct:?}");
            }
        }
    }
}
