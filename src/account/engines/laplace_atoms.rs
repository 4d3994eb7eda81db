//! Laplace releases (or bounded-range pairs) beside laws with finitely many losses on one rational lattice
//! (randomized response, stated (ε, δ) guarantees), exactly: conditioned on the atoms' composed law.
//!
//! Write the composed loss as L = L_X + L_Y, with L_X the atoms' (`atoms::exact_atoms`: losses ℓ_j, exact
//! rationals, with A-masses a_j and A_X[L_X = +∞] = a_∞) and L_Y the Laplace releases' (`laplace_sum`),
//! independent under each of A and B. Conditioning on L_X,
//!
//!   δ(ε) = E_A[(1 − e^{ε − L})₊] + A[L = +∞] = a_∞ + Σ_j a_j δ_Y(ε − ℓ_j)                          (1)
//!
//! (E_A[(1 − e^{ε − ℓ_j − L_Y})₊] = δ_Y(ε − ℓ_j), its own mass at +∞ included; [SSW24, Lemma A.9] for the
//! mass at +∞), and likewise the tails f(α) is computed from: A[L < e] = Σ_j a_j A_Y[L_Y < e − ℓ_j],
//! B[L ≥ e] = Σ_j b_j B_Y[L_Y ≥ e − ℓ_j] with b_j = B_X[L_X = ℓ_j] = a_j e^{−ℓ_j} (and B[L > e] alike). Every
//! term is non-negative, so (1) does not cancel across atoms, and each δ_Y is the exact finite sum with its
//! certified enclosure. Atoms whose A- and B-masses are both tiny are left out while their totals stay
//! below 2^−bits (as `laplace_sum` leaves out rows): each term is at most its mass, so the totals are added
//! to the upper ends. ε(δ) by `laplace_sum`'s certified search on (1) (its slope −e^ε B[L > ε] is
//! Σ_j a_j times each δ_Y's); f(α) by the concave supremum of `account::single` on the tails, whose knots
//! are the sums x_k + ℓ_j of the two laws' atoms. Both directions where a law is not symmetric: the larger
//! δ and ε, the smaller f.
//!
//! The work is the kept atoms times one δ_Y each, counted ([`MAX_WORK`]), never timed.

use super::atoms_lattice::{common_lattice, index_range, Lattice};
use super::laplace_sum::{self, LaplaceSum, Shape};
use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};
use std::sync::Arc;

/// Most work of one δ, in kept atoms × (n + 1)(rows + 1) steps × bits (the Laplace sum's own cap: ~7 s).
const MAX_WORK: f64 = laplace_sum::MAX_WORK;

/// Most atoms of the others' composed law (before any is left out).
const MAX_ATOMS: f64 = 20_000.0;

/// The engine: Laplace releases beside finitely many atoms, conditioned on the atoms.
pub(in crate::account) struct LaplaceAtomsEngine;

impl super::LawEngine for LaplaceAtomsEngine {
    fn name(&self) -> &'static str {
        "laplace-atoms"
    }

    fn offer(&self, job: &super::Job) -> super::Offer {
        match split(job.laws) {
            Ok(parts) => {
                let seconds = parts.seconds(job.q, job.digits);
                super::Offer::Takes { stands: true, expects: None, seconds }
            }
            Err(why) => super::Offer::Declined(why),
        }
    }

    fn answer(&self, job: &super::Job) -> Fallible<Option<Certified>> {
        answer(job.laws, job.q, job.digits, job.trust)
    }
}

/// A composition as this engine takes it: the Laplace releases and the other laws.
struct Parts {
    shape: Shape,
    others: Vec<(Arc<dyn LossLaw>, u64)>,
    /// the others' composed atoms, at most (Σ n_i·(the lattice points law i spans − 1) + 1)
    atoms: f64,
}

impl Parts {
    /// The atoms kept, about (the planner's estimate only: a binomial law keeps some 20 standard deviations).
    fn kept_estimate(&self) -> f64 {
        self.atoms.min(16.0 + 20.0 * self.atoms.sqrt())
    }

    /// Estimated seconds (the planner's and the progress bar's only, from the Laplace sum's own estimate of
    /// `evals` evaluations): building the merged weights, one product per atom kept, knot and row (as one
    /// evaluation of the sum per atom), and the evaluations over the merged knots, at most three times the
    /// sum's own on a shared lattice (measured 2026-12-01: 100 + 100 releases of ε₀ = 2 and randomized
    /// response ε = 1, 1.5 s to build, 0.02 s an evaluation).
    fn seconds(&self, q: Query, digits: u32) -> Option<f64> {
        let own = laplace_sum::seconds(&self.shape, q, digits)?;
        let kept = self.kept_estimate();
        Some(own * kept / laplace_sum::evaluations(q) + own * kept.min(3.0))
    }
}

/// The composition split into Laplace releases (one or several ε₀, or bounded-range pairs with one ε:
/// `laplace_sum`'s) and laws with finitely many losses on one rational lattice, both present; or why not.
fn split(laws: &[(Arc<dyn LossLaw>, u64)]) -> Result<Parts, String> {
    let laplace = |l: &Arc<dyn LossLaw>| l.laplace_eps0().is_some() || l.bounded_range_eps().is_some();
    let (y, others): (Vec<_>, Vec<_>) = laws.iter().cloned().partition(|(l, _)| laplace(l));
    if y.is_empty() || others.is_empty() {
        return Err("not Laplace releases beside laws with finitely many losses".into());
    }
    let shape = laplace_sum::releases(&y)?;
    let Some(step @ Lattice::Rational(_)) = common_lattice(&others) else {
        return Err("the laws beside the Laplace releases have losses on no common rational lattice".into());
    };
    let mut atoms = 1.0;
    for (l, n) in &others {
        let dirs = crate::noise::loss::directions(l.as_ref());
        for &dir in dirs {
            let Some((lo, hi)) = index_range(l.as_ref(), dir, &step) else {
                return Err("a law's atoms are beyond the lattice's reach".into());
            };
            atoms += *n as f64 * (hi - lo) as f64 / dirs.len() as f64;
        }
    }
    if atoms > MAX_ATOMS {
        return Err(format!("the laws beside the Laplace releases compose to {atoms:.3e} atoms (most {MAX_ATOMS:.0e})"));
    }
    Ok(Parts { shape, others, atoms })
}

/// One direction's composition as one Laplace sum conditioned on the others' atoms
/// ([`LaplaceSum::conditioned`]), the atoms of least mass left out while their total stays below 2^−`bits`
/// (A-masses; and B-masses where f is asked, which reads B's tails); with the atoms kept and the mass left
/// out. None where the others are not on a rational lattice, beyond the work cap, or A[L = +∞] is not below
/// the δ asked (the accountant decides that case before any engine).
fn conditioned(
    y: &LaplaceSum,
    parts: &Parts,
    dir: Direction,
    q: Query,
    bits: f64,
    prec: u32,
) -> Fallible<Option<(LaplaceSum, usize, Float)>> {
    let Some((mut atoms, inf)) = super::atoms::exact_atoms(&parts.others, dir, prec)? else { return Ok(None) };
    if let Query::Epsilon(d) = q {
        if *inf.hi() >= *Interval::from_rational(d, prec).lo() {
            return Ok(None);
        }
    }
    let Some(max_loss) = atoms.iter().map(|(l, _)| l).max().cloned() else { return Ok(None) };
    // (the smallest first; f reads B's tails too: B[L_X = ℓ] = A[L_X = ℓ] e^{−ℓ})
    let both = matches!(q, Query::Tradeoff(_));
    let size = |(l, a): &(Rational, Interval)| {
        let a = a.hi().to_f64();
        if both {
            a.max(a * (-l.to_f64()).exp())
        } else {
            a
        }
    };
    atoms.sort_by(|p, q| size(p).total_cmp(&size(q)));
    let allowed = Float::with_val(64, Float::i_exp(1, -(bits.min(1e6) as i32)));
    let (mut left, mut drop) = (Float::with_val(64, 0), 0);
    for (l, a) in &atoms {
        let b = a.mul(&Interval::from_rational(&-l.clone(), prec).exp());
        let mass = if both { a.hi().clone().max(b.hi()) } else { a.hi().clone() };
        let next = Float::with_val_round(64, &left + &mass, Round::Up).0;
        if next > allowed {
            break;
        }
        (left, drop) = (next, drop + 1);
    }
    atoms.drain(..drop);
    atoms.sort_by(|p, q| p.0.cmp(&q.0));
    if atoms.len() as f64 * y.work() as f64 * f64::from(prec) > MAX_WORK {
        return Ok(None);
    }
    Ok(Some((y.conditioned(&atoms, &inf, &left, &max_loss, prec), atoms.len(), left)))
}

/// The accountant's query on Laplace releases beside laws with finitely many losses on one rational lattice:
/// ε(δ), δ(ε) or f(α) to the digits asked (None: not such a composition, or beyond the work cap).
pub(in crate::account) fn answer(laws: &[(Arc<dyn LossLaw>, u64)], q: Query, digits: u32, trust: Trust) -> Fallible<Option<Certified>> {
    let Ok(parts) = split(laws) else { return Ok(None) };
    let mut bits = laplace_sum::tail_bits(q, digits);
    let mut y = parts.shape.build(bits)?;
    let mut prec = y.first_prec(digits + 1);
    let dirs = super::directions(laws);
    // (the progress bar's estimate only)
    let seconds = parts.seconds(q, digits).unwrap_or(1.0) * dirs.len() as f64;
    let _progress = crate::num::progress::begin("exact Laplace sum, conditioned on the atoms", seconds);
    let mut best = None;
    for _ in 0..=laplace_sum::RAISES {
        let mut out: Option<Interval> = None;
        let mut kept = (0, 0.0f64);
        if prec > laplace_sum::MAX_PREC {
            return Ok(None);
        }
        for &dir in dirs {
            let Some((c, n_kept, left)) = conditioned(&y, &parts, dir, q, bits, prec)? else { return Ok(None) };
            kept = (kept.0.max(n_kept), kept.1.max(left.to_f64()));
            let Some(iv) = c.query(q, digits + 1, prec)? else { return Ok(None) };
            out = Some(match (out, q) {
                (None, _) => iv,
                (Some(o), Query::Tradeoff(_)) => o.min(&iv),
                (Some(o), _) => o.max(&iv),
            });
        }
        let Some(iv) = out else { return Ok(None) };
        let detail = format!(
            "{} Laplace releases beside {} laws with finitely many losses: conditioned on the {} atoms of theirs kept (the rest, of mass at most {:.1e}, added to the upper ends), one exact finite sum over the merged knots{}, {prec} bits",
            parts.shape.n(),
            parts.others.iter().map(|(_, n)| n).sum::<u64>(),
            kept.0,
            kept.1,
            y.rows_note()
        );
        let c = Certified::new(iv, Engine::LaplaceSum, trust, detail)?;
        let done = c.meets(digits);
        best = Some(c);
        if done {
            break;
        }
        prec += prec / 2;
        bits *= 1.5;
        y = parts.shape.build(bits)?;
    }
    Ok(best)
}

#[cfg(test)]
#[path = "laplace_atoms_tests.rs"]
mod tests;
