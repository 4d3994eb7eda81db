//! Compositions of laws with finitely many losses that share no lattice — a stated (ε, δ) pair on a
//! Poisson subsample (losses ln(1 − q + q e^{±ε}) and ln(1 − q): dp_accounting's `PoissonSampledDpEvent` of
//! an `EpsilonDeltaDpEvent`), alone or with others — composed exactly, by their multinomial sums. Laws
//! whose losses are ℓ, [0,] −ℓ by construction (`FiniteLaw::mirrored`: randomized response, stated
//! guarantees) have one loss (k_first − k_last)·ℓ for every count vector of one difference: those are one
//! atom, its masses added, and balanced counts give exactly 0. (Randomized response by keep probability
//! beside a stated guarantee, or laws whose common lattice is too fine to lay out, are composed here.)
//!
//! n independent copies of a law with finite atoms ℓ_j of A-masses p_j (j < m) have the finite atoms
//!
//!   Σ_j k_j ℓ_j   with A-masses   n!/(k_0! ⋯ k_{m−1}!) Π_j p_j^{k_j},   k_0 + ⋯ + k_{m−1} = n,
//!
//! C(n + m − 1, m − 1) of them (the multinomial theorem; the law of a sum of independent losses), and a mix
//! of laws has the sums of theirs with the products of their masses. Each loss and mass is enclosed in
//! outward-rounded arithmetic (the coefficient by C(r, k + 1) = C(r, k)(r − k)/(k + 1)); sorted by loss, they
//! are the composed law the exact-atoms engine queries (`atoms`), provided the enclosures separate them.
//! The work is the atoms' number, counted before anything is computed ([`count`], [`MAX_ATOMS`]).

use crate::account::engines::Laws;
use crate::error::Fallible;
use crate::noise::loss::Direction;
use crate::num::Interval;
use std::cmp::Ordering;

/// Most atoms a composition may have here (about 7 s and 600 MB at 20 digits on this project's machine: 1,000
/// releases of a subsampled (ε, δ) pair, δ > 0, have 501,501; the pld grid took 94 s for 2 digits there).
pub(super) const MAX_ATOMS: f64 = 6e5;

/// The composed law of one direction: atoms sorted by loss, their A-masses, and A[L = +∞].
pub(super) struct Listed {
    pub losses: Vec<Interval>,
    pub masses: Vec<Interval>,
    pub inf: Interval,
}

/// The number of composed atoms, the larger over the directions (None: a law without a finite list of
/// atoms).
pub(super) fn count(laws: &Laws) -> Option<f64> {
    let mut worst = 0f64;
    for &dir in super::directions(laws) {
        let mut n_atoms = 1f64;
        for (l, n) in laws {
            let d = if l.symmetric() { Direction::Remove } else { dir };
            let f = l.finite(d, 64)?.ok()?;
            let own: Vec<(Interval, Interval)> = f.atoms.into_iter().filter(|(_, a, _)| *a.hi() > 0).map(|(l, a, _)| (l, a)).collect();
            let m = own.len() as f64;
            // (a mirrored law's count vectors with one k_first − k_last share their loss: (m − 1)n + 1 atoms)
            n_atoms *= match f.mirrored && mirrored(&own) {
                true => (m - 1.0) * *n as f64 + 1.0,
                false => binomial_f64(*n as f64 + m - 1.0, m - 1.0),
            };
        }
        worst = worst.max(n_atoms);
    }
    Some(worst)
}

/// C(a, b) in f64 (b a small integer, a ≥ b).
fn binomial_f64(a: f64, b: f64) -> f64 {
    let mut c = 1.0;
    let mut i = 0.0;
    while i < b {
        c *= (a - i) / (i + 1.0);
        i += 1.0;
    }
    c
}

/// The composed law of one direction; None where two composed losses are not separated by their enclosures
/// (or a loss's enclosure holds 0 without being 0), so that the atoms' order is not certain.
pub(super) fn compose(laws: &Laws, dir: Direction, prec: u32) -> Fallible<Option<Listed>> {
    let one = Interval::one(prec);
    let mut atoms: Vec<(Interval, Interval)> = vec![(Interval::zero(prec), one.clone())];
    let mut keep = one.clone();
    for (l, n) in laws {
        let d = if l.symmetric() { Direction::Remove } else { dir };
        let Some(f) = l.finite(d, prec) else { return Ok(None) };
        let f = f?;
        let own: Vec<(Interval, Interval)> = f.atoms.into_iter().filter(|(_, a, _)| *a.hi() > 0).map(|(l, a, _)| (l, a)).collect();
        let sums = multinomial(&own, *n, f.mirrored && mirrored(&own), prec);
        let mut next = Vec::with_capacity(atoms.len() * sums.len());
        for (la, ma) in &atoms {
            for (lb, mb) in &sums {
                next.push((la.add(lb), ma.mul(mb)));
            }
        }
        atoms = next;
        keep = keep.mul(&one.sub(&f.a_inf).pow_u64(*n));
    }
    atoms.sort_by(|x, y| x.0.lo().partial_cmp(y.0.lo()).unwrap_or(Ordering::Equal));
    let separated = atoms.windows(2).all(|w| w[0].0.hi() < w[1].0.lo());
    let zero_decided = atoms.iter().all(|(l, _)| *l.lo() > 0 || *l.hi() < 0 || (l.lo().is_zero() && l.hi().is_zero()));
    if !separated || !zero_decided {
        return Ok(None);
    }
    let (losses, masses) = atoms.into_iter().unzip();
    Ok(Some(Listed { losses, masses, inf: one.sub(&keep).clamp_unit() }))
}

/// True if the first and last losses are exact negations (ℓ and −ℓ, ℓ ≠ 0) and any between exactly 0: the
/// shape a law marked `mirrored` promises, checked on the atoms of nonzero mass that remain.
fn mirrored(own: &[(Interval, Interval)]) -> bool {
    let zero = |x: &Interval| x.lo().is_zero() && x.hi().is_zero();
    match own {
        [(first, _), middle @ .., (last, _)] if middle.len() <= 1 => {
            let neg = first.neg();
            neg.lo() == last.lo() && neg.hi() == last.hi() && !zero(first) && middle.iter().all(|(l, _)| zero(l))
        }
        _ => false,
    }
}

/// The finite atoms of n copies of one law (atoms (ℓ_j, p_j)): (Σ_j k_j ℓ_j, multinomial mass) for every
/// count vector, the last atom taking what the others leave. For a `mirrored` law (losses ℓ, [0,] −ℓ) the
/// loss is (k_first − k_last)·ℓ, so that balanced counts give exactly 0 (not an enclosure of 0 that the
/// composition could not order), and the count vectors of one difference are one atom (their masses added).
fn multinomial(own: &[(Interval, Interval)], n: u64, mirrored: bool, prec: u32) -> Vec<(Interval, Interval)> {
    let mut out = Vec::new();
    if own.is_empty() {
        // (every copy's loss is +∞: no finite atom)
        return out;
    }
    let powers: Vec<Vec<Interval>> = own
        .iter()
        .map(|(_, p)| {
            let mut v = Vec::with_capacity(n as usize + 1);
            v.push(Interval::one(prec));
            for k in 1..=n as usize {
                let x = v[k - 1].mul(p);
                v.push(x);
            }
            v
        })
        .collect();
    let start = (Interval::zero(prec), Interval::one(prec));
    if !mirrored {
        descend(own, &powers, 0, n, start, &mut Vec::new(), &mut |_, loss, mass| out.push((loss, mass)));
        return out;
    }
    // count vectors with the same k_first − k_last have one loss, (k_first − k_last)·ℓ, so their masses are
    // added: 2n + 1 atoms for three
    let mut merged: std::collections::BTreeMap<i64, (Interval, Interval)> = Default::default();
    let last = own.len() - 1;
    descend(own, &powers, 0, n, start, &mut Vec::new(), &mut |c, _, mass| {
        let (top, bottom) = (c[0], c[last]);
        let loss = match top.cmp(&bottom) {
            Ordering::Equal => Interval::zero(prec),
            Ordering::Greater => own[0].0.mul_u64(top - bottom),
            Ordering::Less => own[last].0.mul_u64(bottom - top),
        };
        merged.entry(top as i64 - bottom as i64).and_modify(|e| e.1 = e.1.add(&mass)).or_insert((loss, mass));
    });
    merged.into_values().collect()
}

/// The count of atom j from 0 to `rest` (all of it for the last), each with its coefficient C(rest, k);
/// `leaf` gets every count vector with its loss Σ_j k_j ℓ_j and multinomial mass.
fn descend(
    own: &[(Interval, Interval)],
    powers: &[Vec<Interval>],
    j: usize,
    rest: u64,
    at: (Interval, Interval),
    counts: &mut Vec<u64>,
    leaf: &mut impl FnMut(&[u64], Interval, Interval),
) {
    let (loss, mass) = at;
    let (l, _) = &own[j];
    if j + 1 == own.len() {
        counts.push(rest);
        leaf(counts, plus_times(&loss, l, rest), mass.mul(&powers[j][rest as usize]));
        counts.pop();
        return;
    }
    let mut coef = Interval::one(loss.prec());
    for k in 0..=rest {
        if k > 0 {
            coef = coef.mul_u64(rest - k + 1).div_u64(k);
        }
        let here = (plus_times(&loss, l, k), mass.mul(&coef).mul(&powers[j][k as usize]));
        counts.push(k);
        descend(own, powers, j + 1, rest - k, here, counts, leaf);
        counts.pop();
    }
}

/// x + k·l enclosed (x itself for k = 0).
fn plus_times(x: &Interval, l: &Interval, k: u64) -> Interval {
    if k == 0 {
        x.clone()
    } else {
        x.add(&l.mul_u64(k))
    }
}

#[cfg(test)]
mod tests {
    use super::mirrored;
    use crate::account::engines::atoms;
    use crate::num::Interval;

    /// Randomized response by keep probability (losses ±ln r, transcendental) beside stated guarantees
    /// (±1.666): no common lattice, and balanced counts of both give the loss 0 — exactly 0 only when each
    /// law's loss is written (k₀ − k₁)·ℓ (an enclosure of 0 left the atoms unordered, and the pld grid ran 28 s
    /// for no digit of f). Against scripts/reference/rr_keep_with_pairs.txt (mpmath, 60 digits: the pairs of
    /// binomial counts; f by the Neyman–Pearson test itself). And randomized response by ε = 2.773 beside
    /// ε = 2.481: a common step 1/1000, on which each law spans more points than the lattice path lays out
    /// (the pld grid: 37 s for no digit of f), listed instead. And three-atom randomized response, whose count
    /// vectors of one difference share a loss (one atom each: 695, not 60,726).
    #[test]
    fn keep_probability_response_beside_stated_pairs_holds_the_mpmath_sums() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/rr_keep_with_pairs.txt"));
        assert_eq!(atoms::reference_rows(text, 30), 8);
    }

    /// The shape a `mirrored` law promises, checked on what remains: ℓ, [0,] −ℓ exactly; not a loss that is
    /// only close to −ℓ, not a middle loss other than 0, not ℓ = 0.
    #[test]
    fn mirrored_shape_is_checked_on_the_atoms() {
        let p = 128;
        let l = Interval::from_rational(&rug::Rational::from((5, 3)), p);
        let m = Interval::from_rational(&rug::Rational::from((1, 2)), p);
        let zero = Interval::zero(p);
        assert!(mirrored(&[(l.clone(), m.clone()), (l.neg(), m.clone())]));
        assert!(mirrored(&[(l.clone(), m.clone()), (zero.clone(), m.clone()), (l.neg(), m.clone())]));
        let near = Interval::from_rational(&rug::Rational::from((-5000001, 3000000)), p);
        assert!(!mirrored(&[(l.clone(), m.clone()), (near, m.clone())]));
        assert!(!mirrored(&[(l.clone(), m.clone()), (m.clone(), m.clone()), (l.neg(), m.clone())]));
        assert!(!mirrored(&[(zero.clone(), m.clone()), (zero.neg(), m.clone())]));
        assert!(!mirrored(&[(l.clone(), m.clone())]));
    }
}
