//! Laws whose few atoms sit far apart on their common lattice (stated (ε, δ) guarantees, randomized response
//! with different ε: 1.757 and 1.74 share the step 1/1000, so each law's two finite losses are 3,514 points
//! apart), composed by their nonzero atoms only (`atoms`, where the dense powers and convolutions would pass
//! the work cap: 14 + 6 such guarantees took 2.4·10⁹ operations, were declined, and the pld grid ran a minute
//! before refusing). Each law's masses are compressed by the stride of its nonzero atoms, powered there (two
//! atoms: the recurrence of `num::convolve::power`), and the laws' powers convolved atom by atom; the result is
//! the same composed law on the same lattice, laid out densely as the engine reads it.

use super::atoms_lattice::{power_work, Atoms, Lattice};
use crate::noise::loss::{Direction, LossLaw};
use crate::num::convolve::{power, WHOLE};
use crate::num::Interval;
use std::collections::BTreeMap;

/// The composed law's finite atoms from each law's atoms, count and the indices of its atoms in `p` (from the
/// law's own list of its finite atoms, [`atom_indices`]): the lattice index of the first entry and
/// the A-masses from it (dense, zeros between the atoms); None where some law has no finite atom or the work
/// (as [`power_work`] counts it, plus one product per pair of nonzero atoms
/// convolved) passes `max_work`.
pub(super) fn compose(parts: &[(&Atoms, u64, Vec<usize>)], prec: u32, max_work: f64) -> Option<(i64, Vec<Interval>)> {
    let mut work = 0.0;
    let mut cur: BTreeMap<i64, Interval> = BTreeMap::from([(0, Interval::one(prec))]);
    for (a, n, nz) in parts {
        // (the law's atoms from its own list: the dense masses between them enclose 0, and are 0)
        let mut nz = nz.clone();
        nz.sort_unstable();
        nz.dedup();
        let (&first, &last) = (nz.first()?, nz.last()?);
        let stride = nz.iter().fold(0usize, |g, &j| gcd(g, j - first)).max(1);
        let q: Vec<Interval> = (first..=last)
            .step_by(stride)
            .map(|j| if nz.binary_search(&j).is_ok() { a.p[j].clone() } else { Interval::zero(prec) })
            .collect();
        let power_len = *n as f64 * (q.len() as f64 - 1.0) + 1.0;
        work += power_work(q.len(), power_len);
        let pw = power(&q, *n, WHOLE);
        // (lattice index of the power's entry t: n·(k0 + first) + t·stride)
        let base = *n as i64 * (a.k0 + first as i64);
        let terms: Vec<(i64, &Interval)> =
            pw.iter().enumerate().filter(|(_, m)| *m.hi() > 0).map(|(t, m)| (base + (t * stride) as i64, m)).collect();
        work += (cur.len() * terms.len()) as f64;
        if work > max_work {
            return None;
        }
        let mut next: BTreeMap<i64, Interval> = BTreeMap::new();
        for (i, x) in &cur {
            for (j, y) in &terms {
                let v = x.mul(y);
                next.entry(i + j).and_modify(|s| *s = s.add(&v)).or_insert(v);
            }
        }
        cur = next;
    }
    let (&k0, _) = cur.first_key_value()?;
    let (&k1, _) = cur.last_key_value()?;
    let mut p = vec![Interval::zero(prec); (k1 - k0 + 1) as usize];
    for (k, m) in cur {
        p[(k - k0) as usize] = m;
    }
    Some((k0, p))
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The indices in `a.p` of the law's finite atoms, from its own list of them (`LossLaw::finite`): each loss ℓ
/// is off + k·s on the rational lattice, k found from ℓ's enclosure and checked exactly. None where the law
/// lists no atoms, the lattice is not rational, or a loss is not on it.
pub(super) fn atom_indices(law: &dyn LossLaw, dir: Direction, step: &Lattice, a: &Atoms, prec: u32) -> Option<Vec<usize>> {
    let Lattice::Rational(s) = step else { return None };
    let fin = law.finite(dir, prec)?.ok()?;
    let off = law.lattice_offset();
    fin.atoms
        .iter()
        .map(|(loss, _, _)| {
            let k = ((loss.to_f64() - off.to_f64()) / s.to_f64()).round() as i64;
            let at = Interval::from_rational(&(off.clone() + rug::Rational::from(k) * s), prec);
            let j = usize::try_from(k - a.k0).ok().filter(|j| *j < a.p.len())?;
            (*at.lo() <= *loss.hi() && *loss.lo() <= *at.hi()).then_some(j)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::account::engines::atoms;

    /// Stated guarantees with ε of 1.757 and 1.74 (their common step 1/1000: 70,000 lattice points, beyond the
    /// dense powers' cap, composed atom by atom) and of 1/2 and 0.49 (the dense path), against
    /// scripts/reference/approx_dp_heterogeneous.txt (mpmath: the optimal pairs' binomial sums, 40 digits).
    #[test]
    fn far_apart_atoms_hold_the_mpmath_sums() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/approx_dp_heterogeneous.txt"));
        assert_eq!(atoms::reference_rows(text, 30), 3);
    }
}
