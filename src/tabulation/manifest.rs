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

use crate::account::{Accountant, Certified, Options};
use crate::budget::zcdp::{eps_bs, eps_cks};
use crate::error::Fallible;
use crate::model::{Composition, Group, Neighbors, Noise};
use crate::num::{fmt_down, fmt_up, parse_rational};
use crate::record::Record;
use crate::{err, fallible};
use rug::Rational;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StageNoise {
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
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// "two-stage-adaptive" or "total-only"
    pub kind: String,
    /// number of groups of this level tabulated with this structure
    pub groups: u64,
    pub stages: Vec<StageNoise>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LevelManifest {
    pub name: String,
    /// the level budget as configured (zCDP ρ or pure ε), for reference
    pub budget: String,
    /// parallel composition degree: a person is in at most this many groups of the level
    pub degree: u32,
    pub structures: Vec<Structure>,
    /// the pass of a "disjoint-passes" manifest this level belongs to (e.g. "US", "PR")
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub mechanism: String,
    /// false for --seed runs: reproducible noise, not for release
    pub for_release: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// "add-remove" or "replace"
    pub neighbors: String,
    /// "sequential" over levels, or "disjoint-passes": levels of one pass compose sequentially, and
    /// the passes tabulate disjoint sets of persons (SafeTab-P's US and Puerto Rico passes)
    pub composition: String,
    pub levels: Vec<LevelManifest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// Most structures one level may list (`certify` evaluates one composition per structure index).
pub const MAX_STRUCTURES: usize = 8;
/// Most noise stages a manifest may list in all (levels × structures × stages).
pub const MAX_STAGES: usize = 100_000;

impl Manifest {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("invariant: manifest serialises") + "\n"
    }

    pub fn from_path(p: &std::path::Path) -> Fallible<Manifest> {
        let t = std::fs::read_to_string(p).map_err(|e| err!(Io, "cannot read '{}': {e}", p.display()))?;
        let m: Manifest = serde_json::from_str(&t)
            .map_err(|e| err!(Input, "{}", crate::record::one_line(&format!("{}: invalid manifest: {e}", p.display()))))?;
        m.validate().map_err(|e| e.context(format!("{}", p.display())))?;
        Ok(m)
    }

    pub fn validate(&self) -> Fallible<()> {
        if self.neighbors != "add-remove" && self.neighbors != "replace" {
            return fallible!(Input, "manifest neighbors must be add-remove or replace, got '{}'", self.neighbors);
        }
        match self.composition.as_str() {
            "sequential" => {
                if self.levels.iter().any(|l| l.pass.is_some()) {
                    return fallible!(
                        Input,
                        "manifest: a 'sequential' manifest has no passes (levels with 'pass' need composition 'disjoint-passes')"
                    );
                }
            }
            "disjoint-passes" => {
                if let Some(l) = self.levels.iter().find(|l| l.pass.as_deref().is_none_or(|p| p.is_empty())) {
                    return fallible!(Input, "manifest: level {} has no pass (composition 'disjoint-passes')", l.name);
                }
            }
            _ => return fallible!(Input, "manifest composition must be 'sequential' (over levels) or 'disjoint-passes'"),
        }
        if self.levels.is_empty() {
            return fallible!(Input, "manifest has no levels");
        }
        // the certificate evaluates one composition per structure index (every stage of every level):
        // refuse up front what would take minutes and gigabytes rather than hang
        if let Some(l) = self.levels.iter().find(|l| l.structures.len() > MAX_STRUCTURES) {
            return fallible!(
                Input,
                "level {} lists {} structures; at most {MAX_STRUCTURES} are certified (each is a separate worst case; SafeTab uses 2)",
                l.name,
                l.structures.len()
            );
        }
        let stages: usize = self.levels.iter().flat_map(|l| &l.structures).map(|s| s.stages.len()).sum();
        if stages > MAX_STAGES {
            return fallible!(Input, "the manifest lists {stages} noise stages; at most {MAX_STAGES} are certified");
        }
        for l in &self.levels {
            if l.degree == 0 {
                return fallible!(Input, "level {}: degree must be ≥ 1", l.name);
            }
            if l.structures.is_empty() {
                return fallible!(Input, "level {}: no structures", l.name);
            }
            for s in &l.structures {
                if s.stages.is_empty() {
                    return fallible!(Input, "level {} structure '{}': no stages", l.name, s.kind);
                }
                for (k, n) in s.stages.iter().enumerate() {
                    n.parsed().map_err(|e| e.context(format!("level {} stage '{}'", l.name, n.query)))?;
                    if n.sensitivity == 0 {
                        return fallible!(Input, "level {}: sensitivity must be ≥ 1", l.name);
                    }
                    // an adaptive stage must name an earlier stage of its own structure
                    if let Some(on) = &n.adaptive_on {
                        if !s.stages[..k].iter().any(|e| &e.query == on) {
                            return fallible!(
                                Input,
                                "level {} stage '{}': adaptive_on '{on}' names no earlier stage of its structure",
                                l.name,
                                n.query
                            );
                        }
                    }
                }
            }
            l.check_budget()?;
        }
        Ok(())
    }
}

impl LevelManifest {
    /// A recorded budget `rho=R` (zCDP) or `eps=E` (pure DP) must be what the listed noise spends: for
    /// every structure, degree × Σ_stages Δ²/(2σ²) = R (a discrete Gaussian of variance σ² and
    /// sensitivity Δ is Δ²/(2σ²)-zCDP, Canonne–Kamath–Steinke 2020 Thm 14), or degree × Σ Δ/b = E (a
    /// discrete Laplace of scale b is Δ/b-DP). The certificate is computed from the noise; a budget that
    /// contradicts it means the file was edited or written by something else, and is refused, as is
    /// any other budget text.
    fn check_budget(&self) -> Fallible<()> {
        let (kind, want) = if let Some(r) = self.budget.strip_prefix("rho=") {
            ("rho", parse_rational(r).map_err(|e| e.context(format!("level {}: budget", self.name)))?)
        } else if let Some(e) = self.budget.strip_prefix("eps=") {
            ("eps", parse_rational(e).map_err(|e| e.context(format!("level {}: budget", self.name)))?)
        } else {
            return fallible!(
                Input,
                "level {}: budget must be 'rho=R' (discrete Gaussian noise) or 'eps=E' (discrete Laplace noise), got '{}'",
                self.name,
                self.budget
            );
        };
        for (k, st) in self.structures.iter().enumerate() {
            let mut spent = Rational::from(0);
            for n in &st.stages {
                let d = Rational::from(n.sensitivity);
                match (kind, n.parsed()?) {
                    ("rho", Parsed::Dg(s2)) => spent += Rational::from(&d * &d) / (Rational::from(2) * s2),
                    ("eps", Parsed::Lap(b)) => spent += d / b,
                    _ => {
                        return fallible!(
                            Input,
                            "level {}: budget '{}' does not fit its {} noise (rho= is for discrete Gaussian, eps= for discrete Laplace)",
                            self.name,
                            self.budget,
                            n.distribution
                        )
                    }
                }
            }
            spent *= Rational::from(self.degree);
            if spent != want {
                return fallible!(
                    Input,
                    "level {} structure {k} ({}): its noise spends {kind} = {} per person, not the recorded budget '{}'",
                    self.name,
                    st.kind,
                    crate::num::format::fmt_rational(&spent),
                    self.budget
                );
            }
        }
        Ok(())
    }
}

enum Parsed {
    Dg(Rational),
    Lap(Rational),
}

impl StageNoise {
    fn parsed(&self) -> Fallible<Parsed> {
        match self.distribution.as_str() {
            "discrete-gaussian" => {
                if self.scale.is_some() {
                    return fallible!(Input, "discrete-gaussian noise takes sigma2, not scale");
                }
                let s = parse_rational(self.sigma2.as_deref().ok_or_else(|| err!(Input, "discrete-gaussian noise needs sigma2"))?)?;
                if s <= 0 {
                    return fallible!(Input, "sigma2 must be positive");
                }
                Ok(Parsed::Dg(s))
            }
            "discrete-laplace" => {
                if self.sigma2.is_some() {
                    return fallible!(Input, "discrete-laplace noise takes scale, not sigma2");
                }
                let b = parse_rational(self.scale.as_deref().ok_or_else(|| err!(Input, "discrete-laplace noise needs scale"))?)?;
                if b <= 0 {
                    return fallible!(Input, "scale must be positive");
                }
                Ok(Parsed::Lap(b))
            }
            o => fallible!(Input, "unknown noise distribution '{o}'"),
        }
    }
}

/// The composition a manifest describes when each level uses its `choice`-th structure (the last one
/// where a level has fewer), with the structure labels; counts are per query of the add/remove relation,
/// the model doubles them under replace (safetab-p §4, Theorem 2).
pub fn composition(m: &Manifest, choice: usize) -> Fallible<(Composition, String)> {
    let levels: Vec<&LevelManifest> = m.levels.iter().collect();
    composition_of(&levels, choice, Neighbors::parse(&m.neighbors)?)
}

/// [`composition`] of some of a manifest's levels under the given neighbour relation.
fn composition_of(levels: &[&LevelManifest], choice: usize, neighbors: Neighbors) -> Fallible<(Composition, String)> {
    let mut groups = Vec::new();
    let mut label = Vec::new();
    for l in levels {
        let s = &l.structures[choice.min(l.structures.len() - 1)];
        label.push(format!("{}:{}", l.name, s.kind));
        for n in &s.stages {
            let noise = match n.parsed()? {
                Parsed::Dg(sigma2) => Noise::Gaussian { sigma2 },
                Parsed::Lap(scale) => Noise::Laplace { scale },
            };
            groups.push(Group { noise, count: u64::from(l.degree), mu: n.sensitivity });
        }
    }
    Ok((Composition::new(groups, neighbors)?, label.join(",")))
}

/// The neighbouring cases a manifest's certificate takes the worst of: (description, levels, relation).
///
/// "sequential": one case, every level under the manifest's relation. "disjoint-passes": the passes
/// tabulate disjoint persons, so adding or removing one person changes one pass — one case per pass
/// (parallel composition). Under `replace` a record may also move between passes: it is removed from
/// pass p and added to pass q, which changes p's groups as a removal and q's as an addition. The noise
/// is symmetric about its unit-shifted mean (discrete Gaussian, discrete Laplace), so the addition's
/// pair (Q, P) maps to (P, Q) by y ↦ 2c + Δ − y and the mixed product has the privacy profile of the
/// add/remove composition of p's and q's levels: one case per pair of passes, besides each pass under
/// `replace`.
fn cases(m: &Manifest) -> Fallible<Vec<(String, Vec<&LevelManifest>, Neighbors)>> {
    let nb = Neighbors::parse(&m.neighbors)?;
    if m.composition != "disjoint-passes" {
        return Ok(vec![(String::new(), m.levels.iter().collect(), nb)]);
    }
    let mut passes: Vec<&str> = Vec::new();
    for l in &m.levels {
        let p = l.pass.as_deref().unwrap_or("");
        if !passes.contains(&p) {
            passes.push(p);
        }
    }
    let of = |ps: &[&str]| -> Vec<&LevelManifest> { m.levels.iter().filter(|l| ps.contains(&l.pass.as_deref().unwrap_or(""))).collect() };
    let mut out = Vec::new();
    for p in &passes {
        out.push((format!("{p} pass"), of(&[p]), nb));
    }
    if nb == Neighbors::Replace {
        for (i, p) in passes.iter().enumerate() {
            for q in &passes[i + 1..] {
                out.push((format!("a record moved between the {p} and {q} passes"), of(&[p, q]), Neighbors::AddRemove));
            }
        }
    }
    Ok(out)
}

/// The certificate of a manifest: zCDP / pure-DP totals and exact ε at δ (the accountant, `prec` an
/// expert override). A level with several structures is certified at each extreme, jointly across
/// levels; a manifest of disjoint passes at each neighbouring case ([`cases`]); the worst case is taken
/// by the one combinator `Certified::max_of`.
pub fn certify(m: &Manifest, delta: &Rational, prec: Option<u32>) -> Fallible<Vec<Record>> {
    m.validate()?;
    let n_choices = m.levels.iter().map(|l| l.structures.len()).max().unwrap_or(1);
    let cases = cases(m)?;
    let mut results = Vec::new();
    let mut labels = Vec::new();
    let mut case_of = Vec::new();
    let mut rho_max = Rational::from(0);
    let mut pure_max: Option<Rational> = None;
    let mut any_dg = false;
    let mut seen: Vec<Composition> = Vec::new();
    for (ci, (_, levels, nb)) in cases.iter().enumerate() {
        for choice in 0..n_choices {
            let (comp, label) = composition_of(levels, choice, *nb)?;
            // structures that give the same composition need one evaluation (the later label is kept, as
            // the worst case of equal brackets is the last)
            if let Some(i) = seen.iter().position(|c| *c == comp) {
                labels[i] = label;
                case_of[i] = ci;
                continue;
            }
            seen.push(comp.clone());
            any_dg |= comp.groups().iter().any(|g| matches!(g.noise, Noise::Gaussian { .. }));
            let rho = comp.rho_required()?;
            if rho > rho_max {
                rho_max = rho;
            }
            if let Some(p) = comp.pure_epsilon() {
                if pure_max.as_ref().is_none_or(|q| p > *q) {
                    pure_max = Some(p);
                }
            }
            let opts = Options { arith: prec.map(crate::num::Arith::from_legacy_prec), ..Options::default() };
            results.push(Accountant::new(comp, opts)?.epsilon(delta)?);
            labels.push(label);
            case_of.push(ci);
        }
    }
    let (exact, k) = Certified::max_of(&results)?;
    let p = exact.lo().prec().max(128);
    let mut r = Record::new();
    r.push("mechanism", m.mechanism.clone()).push("neighbors", m.neighbors.clone()).push("for_release", m.for_release.to_string());
    r.push("delta", crate::num::format::fmt_nearest(&rug::Float::with_val(p, delta), 6));
    if any_dg {
        r.push("zcdp_rho", crate::tabulation::calib::dec(&rho_max, 12));
        r.push("epsilon_bureau_bs", fmt_up(eps_bs(&rho_max, delta, p).hi(), 15));
        r.push("epsilon_zcdp_cks", fmt_up(eps_cks(&rho_max, delta, p).0.hi(), 15));
        r.push("epsilon_pure", "inf");
    } else if let Some(pe) = pure_max {
        r.push("epsilon_pure", crate::tabulation::calib::dec(&pe, 12));
    }
    r.push("epsilon_exact_lo", fmt_down(exact.lo(), 20));
    r.push("epsilon_exact_hi", fmt_up(exact.hi(), 20));
    r.push("method", exact.engine().as_str());
    r.push("detail", exact.describe());
    r.push("worst_structure", if n_choices > 1 { labels[k].clone() } else { "single structure per level".into() });
    if cases.len() > 1 || m.composition == "disjoint-passes" {
        r.push("worst_case", cases[case_of[k]].0.clone());
    }
    Ok(vec![r])
}

/// The SafeTab-P production manifest ([HBC25, Table 7], unbounded totals; 11 levels,
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
            let rho = parse_rational(rho).expect("invariant: a decimal constant");
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
    let dists = [0, 1, 2].map(|k| NoiseLaw::DiscreteGaussian { sigma2: sig[k].clone() });
    level_manifest_noise(name, budget, s, &dists, two_stage, total_only)
}

/// The law of one noise addition, as a manifest records it.
#[derive(Clone, Debug, PartialEq)]
pub enum NoiseLaw {
    /// N_Z(0, σ²)
    DiscreteGaussian { sigma2: Rational },
    /// P[y] ∝ e^{−|y|/b} (the two-sided geometric of RE Alg. 4 with b = 1/ε)
    DiscreteLaplace { scale: Rational },
}

impl NoiseLaw {
    /// The manifest entry of a sensitivity-1 count perturbed by this law.
    pub fn entry(&self, query: &str, adaptive_on: Option<&str>) -> StageNoise {
        let (distribution, sigma2, scale) = match self {
            NoiseLaw::DiscreteGaussian { sigma2 } => ("discrete-gaussian", Some(rat_str(sigma2)), None),
            NoiseLaw::DiscreteLaplace { scale } => ("discrete-laplace", None, Some(rat_str(scale))),
        };
        StageNoise {
            query: query.into(),
            distribution: distribution.into(),
            sigma2,
            scale,
            sensitivity: 1,
            adaptive_on: adaptive_on.map(|x| x.into()),
        }
    }
}

/// A level of a two-stage adaptive tabulation (SafeTab-P / SafeTab Alg. 2) from the laws its samplers
/// used: `law` = [Stage 1 total, Stage 2 cells, TotalOnly total]; the total-only structure is listed
/// when the level has total-only groups.
pub fn level_manifest_noise(name: &str, budget: &str, s: u32, law: &[NoiseLaw; 3], two_stage: u64, total_only: u64) -> LevelManifest {
    let mut structures = vec![Structure {
        kind: "two-stage-adaptive".into(),
        groups: two_stage,
        stages: vec![
            law[0].entry("stage1-total", None),
            law[1].entry("stage2-cells (total, sex x age4/9/23: one cell changes)", Some("stage1-total")),
        ],
    }];
    if total_only > 0 {
        structures.push(Structure { kind: "total-only".into(), groups: total_only, stages: vec![law[2].entry("total", None)] });
    }
    LevelManifest { name: name.into(), budget: budget.into(), degree: s, structures, pass: None }
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
        crate::tabulation::calib::dec(q, places)
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
        let mk = |b: &str, budget: &str| Manifest {
            mechanism: "t".into(),
            for_release: false,
            seed: Some(1),
            neighbors: "add-remove".into(),
            composition: "sequential".into(),
            levels: vec![LevelManifest {
                name: "L".into(),
                budget: budget.into(),
                degree: 3,
                structures: vec![Structure {
                    kind: "total-only".into(),
                    groups: 5,
                    stages: vec![StageNoise {
                        query: "total".into(),
                        distribution: "discrete-laplace".into(),
                        sigma2: None,
                        scale: Some(b.into()),
                        sensitivity: 1,
                        adaptive_on: None,
                    }],
                }],
                pass: None,
            }],
            notes: None,
        };
        let d = parse_rational("1e-6").unwrap();
        let a = certify(&mk("2", "eps=3/2"), &d, None).unwrap();
        let b = certify(&mk("1", "eps=3"), &d, None).unwrap();
        assert_eq!(a[0].get("epsilon_pure"), Some("1.500000000000"));
        assert_eq!(b[0].get("epsilon_pure"), Some("3.000000000000"));
        let ea: f64 = a[0].get("epsilon_exact_hi").unwrap().parse().unwrap();
        let eb: f64 = b[0].get("epsilon_exact_hi").unwrap().parse().unwrap();
        assert!(ea < 1.5 && eb < 3.0 && ea < eb);
    }

    /// Disjoint passes: add/remove takes the worse pass, replace also a record moved between passes
    /// (pure ε: max(ε_US, ε_PR) = 3 and max(2·3, 2·2, 3 + 2) = 6); a pass on a level of a 'sequential'
    /// manifest, or a level without one in a 'disjoint-passes' manifest, is refused.
    #[test]
    fn disjoint_passes_take_the_worst_case() {
        let level = |name: &str, eps: &str, pass: &str| LevelManifest {
            name: name.into(),
            budget: format!("eps={eps}"),
            degree: 1,
            structures: vec![Structure {
                kind: "total-only".into(),
                groups: 1,
                stages: vec![NoiseLaw::DiscreteLaplace { scale: Rational::from(1) / parse_rational(eps).unwrap() }.entry("total", None)],
            }],
            pass: Some(pass.into()),
        };
        let mut m = Manifest {
            mechanism: "t".into(),
            for_release: false,
            seed: None,
            neighbors: "add-remove".into(),
            composition: "disjoint-passes".into(),
            levels: vec![level("A", "2", "US"), level("B", "1", "US"), level("C", "2", "PR")],
            notes: None,
        };
        let d = parse_rational("1e-6").unwrap();
        let r = certify(&m, &d, None).unwrap();
        assert_eq!(r[0].get("epsilon_pure"), Some("3.000000000000"));
        assert_eq!(r[0].get("worst_case"), Some("US pass"));
        m.neighbors = "replace".into();
        let r = certify(&m, &d, None).unwrap();
        assert_eq!(r[0].get("epsilon_pure"), Some("6.000000000000"));
        let mut bad = m.clone();
        bad.composition = "sequential".into();
        assert!(bad.validate().unwrap_err().to_string().contains("has no passes"));
        let mut bad = m.clone();
        bad.levels[1].pass = None;
        assert!(bad.validate().unwrap_err().to_string().contains("level B has no pass"));
    }

    /// SafeTab's geometric variant: the manifest path (the accountant's lattice with discrete Laplace
    /// shifts) gives the same exact ε as the pure-DP privacy-loss law of the geometric counts
    /// (`account::geometric`, the engine src/pld/pure.rs), which sums the geometric losses directly; the
    /// brackets must intersect and both be narrow.
    #[test]
    fn laplace_manifest_matches_pure_pld() {
        use crate::account::geometric::{self, GeoComponent};
        for (nb, f) in [("add-remove", 1u32), ("replace", 2)] {
            let mut m = safetab_p_production(false);
            m.neighbors = nb.into();
            m.levels.truncate(2);
            for (i, l) in m.levels.iter_mut().enumerate() {
                l.degree = 2 + i as u32;
                l.structures.truncate(1);
                // the budget the edited noise spends: degree × (two stages of 3/(7+i))
                let stages = l.structures[0].stages.len() as u32;
                l.budget = format!("eps={}", Rational::from(((2 + i as u32) * stages * 3, 7 + i as u32)));
                for st in &mut l.structures {
                    for n in &mut st.stages {
                        n.distribution = "discrete-laplace".into();
                        n.sigma2 = None;
                        n.scale = Some(format!("{}/3", 7 + i));
                        n.sensitivity = 1;
                    }
                }
            }
            let d = parse_rational("1e-9").unwrap();
            let rows = certify(&m, &d, None).unwrap();
            let lo: f64 = rows[0].get("epsilon_exact_lo").unwrap().parse().unwrap();
            let hi: f64 = rows[0].get("epsilon_exact_hi").unwrap().parse().unwrap();
            let mut comps = Vec::new();
            for (i, l) in m.levels.iter().enumerate() {
                let stages = l.structures[0].stages.len() as u32;
                comps.push(GeoComponent { r: Rational::from((3, 7 + i as u32)), m: l.degree * f * stages });
            }
            let e = geometric::epsilon(&comps, &d, 256).unwrap();
            assert!(lo <= e.hi().to_f64() && e.lo().to_f64() <= hi, "{nb}: [{lo}, {hi}] vs {}", e.describe());
            assert!(hi - lo < 1e-12 && (e.hi().to_f64() - e.lo().to_f64()) < 1e-12);
        }
    }
}
