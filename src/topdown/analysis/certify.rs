//! Certify a measurement manifest: the exact ε(δ) of everything the measurements release.
//!
//! A record lives in one block; its change touches one geounit per geolevel (the measured units on
//! its block path), in every query group: parallel composition over geounits, sequential along the
//! path ([CAK24] Theorems 1 and 3). The exact privacy loss is therefore the
//! composition, over the noise entries on the path, of unit shifts of N_Z(0, σ²):
//! * add-remove: one shift per entry on one path;
//! * replace: a record moves from block j to block j′ (possibly j′ = j): one shift per entry on each
//!   of the two paths, two on shared geounits — the union of the two paths' entry lists. All pairs
//!   of distinct path signatures are tried and the worst is reported.
//!
//! Each composition goes through `pld::compose_groups` (the lattice accountant), so without bypass
//! the result is the allocation's `all_mechanisms()` composition exactly.

use crate::account::{Accountant, Certified, Options};
use crate::error::Fallible;
use crate::model::{GaussGroup, Neighbors};
use crate::num::parse_rational;
use crate::topdown::measurement::measure::{sigma2_of, TopdownManifest};
use crate::{err, fallible};
use rug::Rational;

/// The mechanism groups of one worst-case neighbour pattern per path signature (pair).
pub fn mechanism_sets(m: &TopdownManifest) -> Fallible<Vec<(String, Vec<GaussGroup>)>> {
    let nb = match m.neighbors.as_str() {
        "replace" => Neighbors::Replace,
        "add-remove" => Neighbors::AddRemove,
        o => return fallible!(Input, "manifest: unknown neighbour relation '{o}'"),
    };
    if m.noise_free {
        return fallible!(Input, "this run was measured with --no-noise: its measurements are the exact counts and it is not private");
    }
    let rho = parse_rational(&m.rho).map_err(|e| e.context("manifest rho"))?;
    if rho <= 0 {
        return fallible!(Input, "manifest rho must be positive, got {}", m.rho);
    }
    check_levels(m)?;
    // re-derive every σ² from (ρ, γ, α) and the neighbour relation: the manifest must be consistent
    let mut s2 = Vec::with_capacity(m.noise.len());
    let mut share = Vec::with_capacity(m.noise.len());
    for (k, e) in m.noise.iter().enumerate() {
        if e.id != k {
            return fallible!(Input, "manifest: noise entry {k} has id {}", e.id);
        }
        let g = parse_rational(&e.gamma).map_err(|x| x.context(format!("manifest noise {k} gamma")))?;
        let a = parse_rational(&e.alpha).map_err(|x| x.context(format!("manifest noise {k} alpha")))?;
        let s = parse_rational(&e.sigma2).map_err(|x| x.context(format!("manifest noise {k} sigma2")))?;
        if g <= 0 || a <= 0 || s <= 0 {
            return fallible!(Input, "manifest noise {k}: gamma, alpha and sigma2 must be positive");
        }
        let want = sigma2_of(&rho, &g, &a, nb);
        if want != s {
            return fallible!(
                Input,
                "manifest noise {k}: sigma2 {s} does not match 1/(c·rho·gamma·alpha) = {want} for {} neighbours",
                nb.as_str()
            );
        }
        s2.push(s);
        share.push(g * a);
    }
    if m.paths.is_empty() {
        return fallible!(Input, "manifest: no block paths");
    }
    for (k, p) in m.paths.iter().enumerate() {
        if let Some(&bad) = p.noise_ids.iter().find(|&&i| i >= s2.len()) {
            return fallible!(Input, "manifest path {k}: unknown noise id {bad}");
        }
        if parse_rational(&p.gamma_sum).ok() != Some(Rational::from(1)) {
            return fallible!(Input, "manifest path {k}: shares sum to {} (Theorem 3 needs 1)", p.gamma_sum);
        }
        // recompute the claim from the noise actually listed: the shares γ·α of a block path's noise
        // entries sum to 1 (every geolevel's every query measured once on the path, Theorem 3); a path
        // whose listed noise carries less has measurements the manifest does not account for
        let listed = p.noise_ids.iter().fold(Rational::from(0), |acc, &i| acc + &share[i]);
        if listed != 1 {
            return fallible!(Input,
                "manifest path {k}: its listed noise carries shares gamma·alpha summing to {listed}, not the recorded {} (noise missing from the manifest?)",
                p.gamma_sum
            );
        }
    }
    // one unit shift per listed noise entry, merged by the one model::merge (equal σ² summed, checked)
    let group = |ids: &[&[usize]]| -> Fallible<Vec<GaussGroup>> {
        let shifts = ids.iter().flat_map(|list| list.iter().map(|&i| crate::model::Group::gaussian(s2[i].clone(), 1, 1)));
        let mut g: Vec<GaussGroup> = crate::model::merge(shifts)?
            .into_iter()
            .map(|x| match x.noise {
                crate::model::Noise::Gaussian { sigma2 } => Ok(GaussGroup {
                    sigma2,
                    count: u32::try_from(x.count).map_err(|_| err!(Input, "too many noise entries on a path"))?,
                    mu: x.mu,
                }),
                _ => fallible!(Input, "internal: a TopDown path holds only discrete Gaussian noise"),
            })
            .collect::<Fallible<_>>()?;
        g.sort_by(|a, b| a.sigma2.cmp(&b.sigma2));
        Ok(g)
    };
    let mut out: Vec<(String, Vec<GaussGroup>)> = Vec::new();
    let n = m.paths.len();
    for i in 0..n {
        match nb {
            Neighbors::AddRemove => out.push((format!("path {i}"), group(&[&m.paths[i].noise_ids])?)),
            Neighbors::Replace => {
                for j in i..n {
                    out.push((format!("paths {i}+{j}"), group(&[&m.paths[i].noise_ids, &m.paths[j].noise_ids])?));
                }
            }
        }
    }
    // identical compositions need one evaluation
    let mut uniq: Vec<(String, Vec<GaussGroup>)> = Vec::new();
    for (l, g) in out {
        if !uniq.iter().any(|(_, h)| *h == g) {
            uniq.push((l, g));
        }
    }
    Ok(uniq)
}

/// The manifest's geolevels must be those its noise entries name: every entry at index i names
/// `levels[i]`, spans the consecutive geolevels after it, carries γ = the sum of their shares β, and
/// every geolevel is measured (or carried by a bypassed span). A manifest with a geolevel removed,
/// added or renamed describes no run `topdown measure` writes and is refused.
pub fn check_levels(m: &TopdownManifest) -> Fallible<()> {
    let names: Vec<&str> = m.levels.iter().map(|l| l.name.as_str()).collect();
    if names.is_empty() {
        return fallible!(Input, "manifest: no geolevels");
    }
    let mut beta = Vec::with_capacity(names.len());
    for (i, l) in m.levels.iter().enumerate() {
        if names[..i].contains(&l.name.as_str()) {
            return fallible!(Input, "manifest: geolevel '{}' listed twice", l.name);
        }
        let b = parse_rational(&l.beta).map_err(|e| e.context(format!("manifest geolevel '{}' beta", l.name)))?;
        if b < 0 {
            return fallible!(Input, "manifest geolevel '{}': negative share beta {}", l.name, l.beta);
        }
        beta.push(b);
    }
    if beta.iter().fold(Rational::from(0), |s, b| s + b) != 1 {
        return fallible!(Input, "manifest: the geolevels' shares beta do not sum to 1 (a geolevel removed or edited?)");
    }
    let mut covered = vec![false; names.len()];
    for (k, e) in m.noise.iter().enumerate() {
        let span = e.span_levels.len();
        let fits = e.level_index < names.len()
            && names[e.level_index] == e.level
            && span >= 1
            && e.level_index + span <= names.len()
            && names[e.level_index..e.level_index + span].iter().zip(&e.span_levels).all(|(a, b)| *a == b);
        if !fits {
            return fallible!(
                Input,
                "manifest noise {k}: geolevel '{}' at index {} spanning {:?} is not in the manifest's geolevels ({})",
                e.level,
                e.level_index,
                e.span_levels,
                names.join(", ")
            );
        }
        let g = parse_rational(&e.gamma).map_err(|x| x.context(format!("manifest noise {k} gamma")))?;
        let want = beta[e.level_index..e.level_index + span].iter().fold(Rational::from(0), |s, b| s + b);
        if g != want {
            return fallible!(Input, "manifest noise {k}: gamma {g} is not the sum {want} of its geolevels' shares beta");
        }
        covered[e.level_index..e.level_index + span].iter_mut().for_each(|c| *c = true);
    }
    if let Some(i) = covered.iter().position(|c| !c) {
        return fallible!(Input, "manifest: geolevel '{}' has no noise entry (its measurements are missing)", names[i]);
    }
    Ok(())
}

pub struct Certificate {
    pub epsilon: Certified,
    pub rho: Rational,
    pub worst: String,
    pub patterns: usize,
}

/// Exact ε(δ): the maximum over neighbour patterns of the lattice accountant's ε.
pub fn certify(m: &TopdownManifest, delta: &Rational, prec: Option<u32>) -> Fallible<Certificate> {
    let sets = mechanism_sets(m)?;
    // ε = max over patterns (Certified::max_of); the reported pattern is the one with max hi
    let mut results = Vec::new();
    for (_, groups) in &sets {
        let comp = crate::model::Composition::new(groups.iter().map(crate::model::Group::from).collect(), Neighbors::AddRemove)?;
        let opts =
            Options { arith: prec.map(crate::num::Arith::from_legacy_prec), width: Some(crate::account::CERT_WIDTH), ..Options::default() };
        results.push(Accountant::new(comp, opts)?.epsilon(delta)?);
    }
    let (e, k) = Certified::max_of(&results)?;
    let rho = crate::model::gauss_rho(&sets[k].1);
    Ok(Certificate { epsilon: e, rho, worst: sets[k].0.clone(), patterns: sets.len() })
}
