//! Certify a measurement manifest: the exact ε(δ) of everything the measurements release.
//!
//! A record lives in one block; its change touches one geounit per geolevel (the measured units on
//! its block path), in every query group: parallel composition over geounits, sequential along the
//! path (geographic-spines-topdown.txt Theorems 1 and 3). The exact privacy loss is therefore the
//! composition, over the noise entries on the path, of unit shifts of N_Z(0, σ²):
//! * add-remove: one shift per entry on one path;
//! * replace: a record moves from block j to block j′ (possibly j′ = j): one shift per entry on each
//!   of the two paths, two on shared geounits — the union of the two paths' entry lists. All pairs
//!   of distinct path signatures are tried and the worst is reported.
//!
//! Each composition goes through `pld::compose_groups` (the lattice accountant), so without bypass
//! the result is the allocation's `all_mechanisms()` composition exactly.

use crate::census::allocation::{MechGroup, Neighbors};
use crate::num::{parse_rational, Interval};
use crate::topdown::measure::{sigma2_of, Manifest};
use rug::Rational;

/// The mechanism groups of one worst-case neighbour pattern per path signature (pair).
pub fn mechanism_sets(m: &Manifest) -> Result<Vec<(String, Vec<MechGroup>)>, String> {
    let nb = match m.neighbors.as_str() {
        "replace" => Neighbors::Replace,
        "add-remove" => Neighbors::AddRemove,
        o => return Err(format!("manifest: unknown neighbour relation '{o}'")),
    };
    if m.noise_free {
        return Err("this run was measured with --no-noise: its measurements are the exact counts and it is not private".into());
    }
    let rho = parse_rational(&m.rho).map_err(|e| format!("manifest rho: {e}"))?;
    // re-derive every σ² from (ρ, γ, α) and the neighbour relation: the manifest must be consistent
    let mut s2 = Vec::with_capacity(m.noise.len());
    for (k, e) in m.noise.iter().enumerate() {
        if e.id != k {
            return Err(format!("manifest: noise entry {k} has id {}", e.id));
        }
        let g = parse_rational(&e.gamma).map_err(|x| format!("manifest noise {k} gamma: {x}"))?;
        let a = parse_rational(&e.alpha).map_err(|x| format!("manifest noise {k} alpha: {x}"))?;
        let s = parse_rational(&e.sigma2).map_err(|x| format!("manifest noise {k} sigma2: {x}"))?;
        if g <= 0 || a <= 0 || s <= 0 {
            return Err(format!("manifest noise {k}: gamma, alpha and sigma2 must be positive"));
        }
        let want = sigma2_of(&rho, &g, &a, nb);
        if want != s {
            return Err(format!(
                "manifest noise {k}: sigma2 {s} does not match 1/(c·rho·gamma·alpha) = {want} for {} neighbours",
                nb.as_str()
            ));
        }
        s2.push(s);
    }
    if m.paths.is_empty() {
        return Err("manifest: no block paths".into());
    }
    for (k, p) in m.paths.iter().enumerate() {
        if let Some(&bad) = p.noise_ids.iter().find(|&&i| i >= s2.len()) {
            return Err(format!("manifest path {k}: unknown noise id {bad}"));
        }
        if parse_rational(&p.gamma_sum).ok() != Some(Rational::from(1)) {
            return Err(format!("manifest path {k}: shares sum to {} (Theorem 3 needs 1)", p.gamma_sum));
        }
    }
    let group = |ids: &[&[usize]]| -> Vec<MechGroup> {
        let mut g: Vec<MechGroup> = Vec::new();
        for list in ids {
            for &i in *list {
                if let Some(x) = g.iter_mut().find(|x| x.sigma2 == s2[i]) {
                    x.count += 1;
                } else {
                    g.push(MechGroup { sigma2: s2[i].clone(), count: 1, mu: 1 });
                }
            }
        }
        g.sort_by(|a, b| a.sigma2.cmp(&b.sigma2));
        g
    };
    let mut out: Vec<(String, Vec<MechGroup>)> = Vec::new();
    let n = m.paths.len();
    for i in 0..n {
        match nb {
            Neighbors::AddRemove => out.push((format!("path {i}"), group(&[&m.paths[i].noise_ids]))),
            Neighbors::Replace => {
                for j in i..n {
                    out.push((format!("paths {i}+{j}"), group(&[&m.paths[i].noise_ids, &m.paths[j].noise_ids])));
                }
            }
        }
    }
    // identical compositions need one evaluation
    let mut uniq: Vec<(String, Vec<MechGroup>)> = Vec::new();
    for (l, g) in out {
        if !uniq.iter().any(|(_, h)| *h == g) {
            uniq.push((l, g));
        }
    }
    Ok(uniq)
}

pub struct Certificate {
    pub epsilon: Interval,
    pub rho: Rational,
    pub worst: String,
    pub patterns: usize,
}

/// Exact ε(δ): the maximum over neighbour patterns of the lattice accountant's ε.
pub fn certify(m: &Manifest, delta: &Rational, prec: u32) -> Result<Certificate, String> {
    let sets = mechanism_sets(m)?;
    // ε = max over patterns; enclosure [max lo, max hi]; the reported pattern is the one with max hi
    let mut best: Option<(Interval, Rational, String)> = None;
    let mut lo_max: Option<rug::Float> = None;
    for (label, groups) in &sets {
        // Budgets without a practical common lattice (e.g. the redistricting shares /4099, /4097, /241)
        // get the certified smoothed Fourier bracket instead (src/fourier/smooth.rs).
        let (e, _) = crate::census::certificate::exact_eps(groups, delta, prec, crate::census::certificate::DEFAULT_WIDTH)?;
        let rho = groups.iter().map(|g| crate::budget::zcdp::rho_of(&g.sigma2, g.count, g.mu)).fold(Rational::new(), |a, b| a + b);
        if lo_max.as_ref().is_none_or(|l| e.lo > *l) {
            lo_max = Some(e.lo.clone());
        }
        if best.as_ref().is_none_or(|(b, _, _)| e.hi > b.hi) {
            best = Some((e, rho, label.clone()));
        }
    }
    let (e, rho, worst) = best.unwrap();
    let epsilon = Interval::new(lo_max.unwrap(), e.hi);
    Ok(Certificate { epsilon, rho, worst, patterns: sets.len() })
}
