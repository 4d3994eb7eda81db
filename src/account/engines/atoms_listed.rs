//! Compositions of laws with finitely many losses that share no lattice — a stated (ε, δ) pair on a
//! Poisson subsample (losses ln(1 − q + q e^{±ε}) and ln(1 − q): dp_accounting's `PoissonSampledDpEvent` of
//! an `EpsilonDeltaDpEvent`), alone or with others — composed exactly, by their multinomial sums. (Laws
//! whose losses are ± each other, such as randomized response, tie here: distinct count vectors give one
//! loss; they compose on their lattice instead.)
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
            let m = f.atoms.iter().filter(|(_, a, _)| *a.hi() > 0).count() as f64;
            n_atoms *= binomial_f64(*n as f64 + m - 1.0, m - 1.0);
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
        let sums = multinomial(&own, *n, prec);
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

/// The finite atoms of n copies of one law (atoms (ℓ_j, p_j)): (Σ_j k_j ℓ_j, multinomial mass) for every
/// count vector, the last atom taking what the others leave.
fn multinomial(own: &[(Interval, Interval)], n: u64, prec: u32) -> Vec<(Interval, Interval)> {
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
    descend(own, &powers, 0, n, start, &mut out);
    out
}

/// The count of atom j from 0 to `rest` (all of it for the last), each with its coefficient C(rest, k).
fn descend(
    own: &[(Interval, Interval)],
    powers: &[Vec<Interval>],
    j: usize,
    rest: u64,
    at: (Interval, Interval),
    out: &mut Vec<(Interval, Interval)>,
) {
    let (loss, mass) = at;
    let (l, _) = &own[j];
    if j + 1 == own.len() {
        out.push((plus_times(&loss, l, rest), mass.mul(&powers[j][rest as usize])));
        return;
    }
    let mut coef = Interval::one(loss.prec());
    for k in 0..=rest {
        if k > 0 {
            coef = coef.mul_u64(rest - k + 1).div_u64(k);
        }
        let here = (plus_times(&loss, l, k), mass.mul(&coef).mul(&powers[j][k as usize]));
        descend(own, powers, j + 1, rest - k, here, out);
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
