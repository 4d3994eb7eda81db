//! Run manifests and their certification (`tightdp certify`).
//!
//! A manifest records every noise addition of a mechanism run: its distribution and scale, the
//! sensitivity of the query it perturbs, and the composition structure:
//! * levels compose **sequentially** (each level sees the whole data set);
//! * inside a level, groups are disjoint slices of the flat-mapped data, and one person is in at most
//!   `degree` of them (**parallel with degree z**, z = the stability Δ(g_i)): the worst-case neighbour
//!   changes z groups;
//! * inside a group, `stages` run **adaptively** (a later stage's query is chosen from an earlier
//!   stage's noisy output). In SafeTab-P whichever Step-2 table is chosen, one person changes exactly
//!   one cell by one and the noise law is fixed in advance, so the loss law of Step 2 conditional on
//!   Step 1 is the same for every Step-1 outcome: the adaptive composition has exactly the loss law
//!   of the non-adaptive product (its dominating pair is the product of the stages' pairs).
//!
//! Neighbours: add/remove ("add-remove", the Bureau's "unbounded") or replace ("replace",
//! "bounded"): a replacement removes one record and adds another, so up to 2z groups change (safetab-p
//! §4, Theorem 2: bounded 2ρ).
//!
//! A level with groups of two structures (two-stage and total-only) is certified at both extremes —
//! every changed group of the first kind, every changed group of the second — jointly across levels,
//! and the larger ε is reported. (For geometric noise the total-only structure dominates, see
//! safetab_re.rs; for discrete Gaussian noise neither dominates in general.)

use crate::budget::zcdp::{eps_bs, eps_cks};
use crate::mech::account::{GeoComponent, PurePld};
use crate::model::GaussGroup;
use crate::num::{fmt_down, fmt_up, parse_rational, Interval};
use crate::report::output::Record;
use rug::Rational;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Noise {
    /// what the addition perturbs, e.g. "stage1-total", "stage2-cells"
    pub query: String,
    /// "discrete-gaussian" (sigma2) or "discrete-laplace" (scale b: P[y] ∝ e^{−|y|/b})
    pub distribution: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma2: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<String>,
    /// L1 sensitivity of the perturbed query vector to one person (add/remove)
    pub sensitivity: u32,
    /// the earlier stage whose noisy output chose this query (adaptive), if any
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_on: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Structure {
    /// "two-stage-adaptive" or "total-only"
    pub kind: String,
    /// number of groups of this level tabulated with this structure
    pub groups: u64,
    pub stages: Vec<Noise>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LevelManifest {
    pub name: String,
    /// the level budget as configured (zCDP ρ or pure ε), for reference
    pub budget: String,
    /// parallel composition degree: a person is in at most this many groups of the level
    pub degree: u32,
    pub structures: Vec<Structure>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub mechanism: String,
    /// false for --seed runs: reproducible noise, not for release
    pub for_release: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// "add-remove" or "replace"
    pub neighbors: String,
    /// "sequential" over levels
    pub composition: String,
    pub levels: Vec<LevelManifest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl Manifest {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("manifest serialises") + "\n"
    }

    pub fn from_path(p: &std::path::Path) -> Result<Manifest, String> {
        let t = std::fs::read_to_string(p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
        let m: Manifest = serde_json::from_str(&t).map_err(|e| format!("{}: invalid manifest: {e}", p.display()))?;
        m.validate()?;
        Ok(m)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.neighbors != "add-remove" && self.neighbors != "replace" {
            return Err(format!("manifest neighbors must be add-remove or replace, got '{}'", self.neighbors));
        }
        if self.composition != "sequential" {
            return Err("manifest composition must be 'sequential' (over levels)".into());
        }
        if self.levels.is_empty() {
            return Err("manifest has no levels".into());
        }
        for l in &self.levels {
            if l.degree == 0 {
                return Err(format!("level {}: degree must be ≥ 1", l.name));
            }
            if l.structures.is_empty() {
                return Err(format!("level {}: no structures", l.name));
            }
            for s in &l.structures {
                for n in &s.stages {
                    n.parsed()?;
                    if n.sensitivity == 0 {
                        return Err(format!("level {}: sensitivity must be ≥ 1", l.name));
                    }
                }
            }
        }
        Ok(())
    }

    fn factor(&self) -> u32 {
        if self.neighbors == "replace" {
            2
        } else {
            1
        }
    }
}

enum Parsed {
    Dg(Rational),
    Lap(Rational),
}

impl Noise {
    fn parsed(&self) -> Result<Parsed, String> {
        match self.distribution.as_str() {
            "discrete-gaussian" => {
                let s = parse_rational(self.sigma2.as_deref().ok_or("discrete-gaussian noise needs sigma2")?)?;
                if s <= 0 {
                    return Err("sigma2 must be positive".into());
                }
                Ok(Parsed::Dg(s))
            }
            "discrete-laplace" => {
                let b = parse_rational(self.scale.as_deref().ok_or("discrete-laplace noise needs scale")?)?;
                if b <= 0 {
                    return Err("scale must be positive".into());
                }
                Ok(Parsed::Lap(b))
            }
            o => Err(format!("unknown noise distribution '{o}'")),
        }
    }
}

/// The certificate of a manifest: zCDP / pure-DP totals and exact ε at δ.
pub fn certify(m: &Manifest, delta: &Rational, prec: u32) -> Result<Vec<Record>, String> {
    m.validate()?;
    let f = m.factor();
    // Choices: for each level with several structures, which one the worst case uses. Evaluate the
    // "all first" and "all last" extremes jointly (see module docs).
    let n_choices = m.levels.iter().map(|l| l.structures.len()).max().unwrap_or(1);
    let mut rows = Vec::new();
    let mut best: Option<(Interval, String)> = None;
    let mut rho_max = Rational::from(0);
    let mut pure_max: Option<Rational> = Some(Rational::from(0));
    let mut any_dg = false;
    let mut any_lap = false;
    for choice in 0..n_choices {
        let mut dg: Vec<GaussGroup> = Vec::new();
        let mut lap: Vec<GeoComponent> = Vec::new();
        let mut rho = Rational::from(0);
        let mut pure = Rational::from(0);
        let mut label = Vec::new();
        for l in &m.levels {
            let s = &l.structures[choice.min(l.structures.len() - 1)];
            label.push(format!("{}:{}", l.name, s.kind));
            let count = l.degree * f;
            for n in &s.stages {
                match n.parsed()? {
                    Parsed::Dg(s2) => {
                        any_dg = true;
                        let mu = n.sensitivity;
                        rho += Rational::from(count) * Rational::from(mu * mu) / (Rational::from(2) * s2.clone());
                        if let Some(g) = dg.iter_mut().find(|g| g.sigma2 == s2 && g.mu == mu) {
                            g.count += count;
                        } else {
                            dg.push(GaussGroup { sigma2: s2, count, mu });
                        }
                    }
                    Parsed::Lap(b) => {
                        any_lap = true;
                        if n.sensitivity != 1 {
                            return Err("discrete-laplace noise is certified for sensitivity 1 only".into());
                        }
                        let r = Rational::from(1) / b;
                        pure += Rational::from(count) * r.clone();
                        if let Some(g) = lap.iter_mut().find(|g| g.r == r) {
                            g.m += count;
                        } else {
                            lap.push(GeoComponent { r, m: count });
                        }
                    }
                }
            }
        }
        if any_dg && any_lap {
            return Err("manifests mixing discrete Gaussian and discrete Laplace noise are not supported".into());
        }
        let exact = if !dg.is_empty() {
            crate::pld::compose_groups(&dg, prec)?.epsilon(delta)?
        } else {
            PurePld::build(&lap, &Interval::one(prec), prec)?.epsilon(delta)?
        };
        if rho > rho_max {
            rho_max = rho.clone();
        }
        if any_lap {
            if pure_max.as_ref().is_none_or(|p| pure > *p) {
                pure_max = Some(pure.clone());
            }
        } else {
            pure_max = None;
        }
        if best.as_ref().is_none_or(|(b, _)| exact.mid() > b.mid()) {
            best = Some((exact, label.join(",")));
        }
    }
    let (exact, which) = best.unwrap();
    let mut r = Record::new();
    r.push("mechanism", m.mechanism.clone()).push("neighbors", m.neighbors.clone()).push("for_release", m.for_release.to_string());
    r.push("delta", crate::num::format::fmt_nearest(&rug::Float::with_val(prec, delta), 6));
    if any_dg {
        let rq = rho_max.clone();
        r.push("zcdp_rho", crate::mech::calib::dec(&rq, 12));
        let bs = eps_bs(&rq, delta, prec);
        r.push("epsilon_bureau_bs", fmt_up(&bs.hi, 15));
        let (cks, _) = eps_cks(&rq, delta, prec);
        r.push("epsilon_zcdp_cks", fmt_up(&cks.hi, 15));
        r.push("epsilon_pure", "inf");
    } else if let Some(p) = pure_max {
        r.push("epsilon_pure", crate::mech::calib::dec(&p, 12));
    }
    r.push("epsilon_exact_lo", fmt_down(&exact.lo, 20));
    r.push("epsilon_exact_hi", fmt_up(&exact.hi, 20));
    r.push("worst_structure", if n_choices > 1 { which } else { "single structure per level".into() });
    rows.push(r);
    Ok(rows)
}

/// The SafeTab-P production manifest (safetab-p-detailed-dhc-a.txt Table 7, unbounded totals; 11 levels,
/// s = 9, γ = 0.1); `bounded` switches to replace neighbours (bounded ρ = 2 × unbounded).
pub fn safetab_p_production(bounded: bool) -> Manifest {
    let levels = [
        ("USA-detailed", "2.134", true),
        ("STATE-detailed", "2.134", true),
        ("COUNTY-detailed", "0.159", false),
        ("TRACT-detailed", "0.159", false),
        ("PLACE-detailed", "0.159", false),
        ("AIANNH-detailed", "0.159", false),
        ("USA-regional", "0.008", true),
        ("STATE-regional", "0.008", true),
        ("COUNTY-regional", "0.008", false),
        ("TRACT-regional", "0.008", false),
        ("PLACE-regional", "0.008", false),
    ];
    let s = 9u32;
    let gamma = Rational::from((1, 10));
    let lv = levels
        .iter()
        .map(|&(name, rho, _)| {
            let rho = parse_rational(rho).unwrap();
            level_manifest(name, &rho, s, &gamma, 0, 0)
        })
        .collect();
    Manifest {
        mechanism: "safetab-p (production budgets, Table 7)".into(),
        for_release: true,
        seed: None,
        neighbors: if bounded { "replace".into() } else { "add-remove".into() },
        composition: "sequential".into(),
        levels: lv,
        notes: Some(
            "two-stage structure for every group; total-only groups (nation/state) are certified by `safetab-p` run manifests".into(),
        ),
    }
}

/// The three noise variances of a SafeTab-P level (P Alg. 1–3): Stage 1 γρ/s, Stage 2 (1−γ)ρ/s,
/// total-only ρ/s, each σ² = 1/(2ρ_count).
pub fn safetab_p_sigma2(rho: &Rational, s: u32, gamma: &Rational) -> [Rational; 3] {
    let per_group = rho.clone() / Rational::from(s);
    let sig = |r: Rational| Rational::from(1) / (Rational::from(2) * r);
    [sig(gamma.clone() * per_group.clone()), sig((Rational::from(1) - gamma.clone()) * per_group.clone()), sig(per_group)]
}

/// A SafeTab-P level from its budget (production certificate: structure only, group counts 0).
pub fn level_manifest(name: &str, rho: &Rational, s: u32, gamma: &Rational, two_stage: u64, total_only: u64) -> LevelManifest {
    level_manifest_sigma2(name, &format!("rho={}", rat_str(rho)), s, &safetab_p_sigma2(rho, s, gamma), two_stage, total_only)
}

/// A SafeTab-P level from the variances the samplers actually used.
pub fn level_manifest_sigma2(name: &str, budget: &str, s: u32, sig: &[Rational; 3], two_stage: u64, total_only: u64) -> LevelManifest {
    let dg = |query: &str, s2: &Rational, adaptive: Option<&str>| Noise {
        query: query.into(),
        distribution: "discrete-gaussian".into(),
        sigma2: Some(rat_str(s2)),
        scale: None,
        sensitivity: 1,
        adaptive_on: adaptive.map(|x| x.into()),
    };
    let mut structures = vec![Structure {
        kind: "two-stage-adaptive".into(),
        groups: two_stage,
        stages: vec![
            dg("stage1-total", &sig[0], None),
            dg("stage2-cells (total, sex x age4/9/23: one cell changes)", &sig[1], Some("stage1-total")),
        ],
    }];
    if total_only > 0 {
        structures.push(Structure { kind: "total-only".into(), groups: total_only, stages: vec![dg("total", &sig[2], None)] });
    }
    LevelManifest { name: name.into(), budget: budget.into(), degree: s, structures }
}

/// Exact text of a rational: a terminating decimal when it has one, else "p/q".
pub fn rat_str(q: &Rational) -> String {
    let mut d = q.denom().clone();
    let mut places = 0u32;
    for p in [2u32, 5] {
        while d.is_divisible_u(p) {
            d /= p;
        }
    }
    if d == 1 {
        // terminating: find the number of places
        let mut x = q.clone();
        while *x.denom() != 1 {
            x *= Rational::from(10);
            places += 1;
        }
        crate::mech::calib::dec(q, places)
    } else {
        format!("{}/{}", q.numer(), q.denom())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_rat_str() {
        let m = safetab_p_production(false);
        let j = m.to_json();
        let back: Manifest = serde_json::from_str(&j).unwrap();
        assert_eq!(m, back);
        assert_eq!(rat_str(&parse_rational("0.25").unwrap()), "0.25");
        assert_eq!(rat_str(&parse_rational("10/3").unwrap()), "10/3");
        // σ² of stage 1 at ρ = 2.134: 9/(2·0.1·2.134) = 45000/2134 → 22500/1067
        assert_eq!(m.levels[0].structures[0].stages[0].sigma2.as_deref(), Some("22500/1067"));
    }

    /// Changing a budget changes the certificate (small Laplace manifest: fast).
    #[test]
    fn budget_change_moves_certificate() {
        let mk = |b: &str| Manifest {
            mechanism: "t".into(),
            for_release: false,
            seed: Some(1),
            neighbors: "add-remove".into(),
            composition: "sequential".into(),
            levels: vec![LevelManifest {
                name: "L".into(),
                budget: "-".into(),
                degree: 3,
                structures: vec![Structure {
                    kind: "total-only".into(),
                    groups: 5,
                    stages: vec![Noise {
                        query: "total".into(),
                        distribution: "discrete-laplace".into(),
                        sigma2: None,
                        scale: Some(b.into()),
                        sensitivity: 1,
                        adaptive_on: None,
                    }],
                }],
            }],
            notes: None,
        };
        let d = parse_rational("1e-6").unwrap();
        let a = certify(&mk("2"), &d, 128).unwrap();
        let b = certify(&mk("1"), &d, 128).unwrap();
        assert_eq!(a[0].get("epsilon_pure"), Some("1.500000000000"));
        assert_eq!(b[0].get("epsilon_pure"), Some("3.000000000000"));
        let ea: f64 = a[0].get("epsilon_exact_hi").unwrap().parse().unwrap();
        let eb: f64 = b[0].get("epsilon_exact_hi").unwrap().parse().unwrap();
        assert!(ea < 1.5 && eb < 3.0 && ea < eb);
    }
}
