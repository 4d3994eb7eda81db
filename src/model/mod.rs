//! What is composed: groups of additive integer-noise queries.
//!
//! A mechanism releases q(D) + Z for an integer query q of sensitivity μ (|q(D) − q(D')| ≤ μ for
//! neighbours D, D') and integer noise Z: the discrete Gaussian N_Z(0, σ²) ([SSW24]
//! §A.1; Canonne–Kamath–Steinke 2020) or the discrete Laplace / two-sided geometric law, pmf ∝ e^{−|x|/b}
//! ([HSM21, §3], the geometric mechanism). A [`Composition`] is a set of
//! [`Group`]s — `count` independent queries sharing noise and sensitivity — and the neighbour relation:
//!
//! * add/remove: one record added or removed changes each query by at most μ: one shift of μ per query;
//! * replace: one record changes its value, so a histogram query moves μ down in one cell and μ up in
//!   another — two independent shifts of μ per query (the TopDown code's relation, σ² = 1/ρ_q there).
//!
//! Every engine consumes the *shifts* ([`Composition::shifts`]): the privacy loss of the composition is
//! the sum of one loss per shift. This module holds the only group merging and the only ρ sum.

pub mod spec;

use crate::error::{Error, Fallible};
use crate::{err, fallible};
use rug::Rational;

/// The neighbour relation between data sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbors {
    AddRemove,
    Replace,
}

impl Neighbors {
    pub fn as_str(&self) -> &'static str {
        match self {
            Neighbors::AddRemove => "add-remove",
            Neighbors::Replace => "replace",
        }
    }

    pub fn parse(s: &str) -> Fallible<Neighbors> {
        match s.trim() {
            "add-remove" | "add_remove" | "addremove" => Ok(Neighbors::AddRemove),
            "replace" => Ok(Neighbors::Replace),
            other => Err(err!(Input, "neighbors must be 'add-remove' or 'replace', got '{other}'")),
        }
    }

    /// Shifts per query: 1 (add/remove) or 2 (replace).
    pub fn shifts_per_query(&self) -> u64 {
        match self {
            Neighbors::AddRemove => 1,
            Neighbors::Replace => 2,
        }
    }
}

/// The noise of one query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Noise {
    /// Discrete Gaussian N_Z(0, σ²): pmf ∝ exp(−x²/(2σ²)).
    Gaussian { sigma2: Rational },
    /// Discrete Laplace (two-sided geometric) with scale b: pmf ∝ exp(−|x|/b).
    Laplace { scale: Rational },
}

impl Noise {
    pub fn describe(&self) -> String {
        match self {
            Noise::Gaussian { sigma2 } => format!("N_Z(0, {sigma2})"),
            Noise::Laplace { scale } => format!("DLap({scale})"),
        }
    }
}

/// `count` independent queries, each of integer sensitivity `mu`, each with noise `noise`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub noise: Noise,
    pub count: u64,
    pub mu: u32,
}

impl Group {
    pub fn gaussian(sigma2: Rational, count: u64, mu: u32) -> Group {
        Group { noise: Noise::Gaussian { sigma2 }, count, mu }
    }

    pub fn laplace(scale: Rational, count: u64, mu: u32) -> Group {
        Group { noise: Noise::Laplace { scale }, count, mu }
    }

    /// zCDP ρ of the group's shifts: nμ²/(2σ²) for N_Z(0, σ²) (Canonne–Kamath–Steinke Thm 4);
    /// n(μ/b)²/2 for DLap(b), from its pure ε = μ/b (ε-DP implies ε²/2-zCDP, Bun–Steinke Prop. 1.4).
    pub fn rho(&self) -> Rational {
        let n = Rational::from(self.count);
        let mu = Rational::from(self.mu);
        match &self.noise {
            Noise::Gaussian { sigma2 } => n * Rational::from(&mu * &mu) / (Rational::from(2) * sigma2.clone()),
            Noise::Laplace { scale } => {
                let e = mu / scale.clone();
                n * Rational::from(&e * &e) / 2u32
            }
        }
    }

    /// Pure ε of the group's shifts, if it has one: nμ/b for DLap(b); None for the discrete Gaussian.
    pub fn pure_epsilon(&self) -> Option<Rational> {
        match &self.noise {
            Noise::Gaussian { .. } => None,
            Noise::Laplace { scale } => Some(Rational::from(self.count) * Rational::from(self.mu) / scale.clone()),
        }
    }
}

/// A discrete Gaussian group in the form the Gaussian-only engines take (count fits their u32).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaussGroup {
    pub sigma2: Rational,
    pub count: u32,
    pub mu: u32,
}

impl GaussGroup {
    pub fn rho(&self) -> Rational {
        Group::gaussian(self.sigma2.clone(), self.count as u64, self.mu).rho()
    }
}

/// Σ ρ over Gaussian groups.
pub fn gauss_rho(groups: &[GaussGroup]) -> Rational {
    groups.iter().fold(Rational::from(0), |a, g| a + g.rho())
}

/// Largest number of shifts a composition may hold (counts are u64; this keeps every product of a
/// count with a small integer far from overflow).
pub const MAX_COUNT: u64 = 1 << 40;

/// Merge groups with equal noise and sensitivity, summing counts (checked), in order of first appearance.
pub fn merge(groups: impl IntoIterator<Item = Group>) -> Fallible<Vec<Group>> {
    // an index by (kind, parameter, μ): a million distinct queries merge in linear time (a scan of the
    // groups so far made it quadratic: `certify --allocation` with very many queries did not finish)
    let mut index: std::collections::HashMap<(bool, Rational, u32), usize> = std::collections::HashMap::new();
    let mut out: Vec<Group> = Vec::new();
    for g in groups {
        let key = match &g.noise {
            Noise::Gaussian { sigma2 } => (true, sigma2.clone(), g.mu),
            Noise::Laplace { scale } => (false, scale.clone(), g.mu),
        };
        match index.get(&key) {
            Some(&i) => {
                let x = &mut out[i];
                x.count = x.count.checked_add(g.count).filter(|&c| c <= MAX_COUNT).ok_or_else(|| too_many(&g))?;
            }
            None => {
                index.insert(key, out.len());
                out.push(g);
            }
        }
    }
    Ok(out)
}

fn too_many(g: &Group) -> Error {
    err!(Input, "too many queries of {} (more than {MAX_COUNT})", g.noise.describe())
}

/// A composition: groups of queries and the neighbour relation. Validated on construction: every σ² and
/// b positive, every count and sensitivity at least 1; groups with equal noise and sensitivity merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composition {
    groups: Vec<Group>,
    neighbors: Neighbors,
}

impl Composition {
    pub fn new(groups: Vec<Group>, neighbors: Neighbors) -> Fallible<Composition> {
        if groups.is_empty() {
            return fallible!(Input, "nothing to compose: no mechanism given");
        }
        for g in &groups {
            match &g.noise {
                Noise::Gaussian { sigma2 } if *sigma2 <= 0 => return fallible!(Input, "sigma2 must be positive, got {sigma2}"),
                Noise::Laplace { scale } if *scale <= 0 => {
                    return fallible!(Input, "the discrete Laplace scale must be positive, got {scale}")
                }
                _ => {}
            }
            if g.count == 0 || g.count > MAX_COUNT {
                return fallible!(Input, "the number of queries must be between 1 and {MAX_COUNT}, got {}", g.count);
            }
            if g.mu == 0 {
                return fallible!(Input, "the sensitivity must be at least 1");
            }
        }
        Ok(Composition { groups: merge(groups)?, neighbors })
    }

    /// `n` queries of sensitivity `mu` with noise N_Z(0, σ²), add/remove neighbours.
    pub fn gaussian(sigma2: Rational, n: u64, mu: u32) -> Fallible<Composition> {
        Composition::new(vec![Group::gaussian(sigma2, n, mu)], Neighbors::AddRemove)
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    pub fn neighbors(&self) -> Neighbors {
        self.neighbors
    }

    /// The composition of both (dp_accounting's `compose`): same neighbour relation required.
    pub fn compose(&self, other: &Composition) -> Fallible<Composition> {
        if self.neighbors != other.neighbors {
            return fallible!(Input, "cannot compose a {} composition with a {} one", self.neighbors.as_str(), other.neighbors.as_str());
        }
        Ok(Composition { groups: merge(self.groups.iter().chain(&other.groups).cloned())?, neighbors: self.neighbors })
    }

    /// k-fold composition with itself (dp_accounting's `self_compose`).
    pub fn self_compose(&self, k: u64) -> Fallible<Composition> {
        if k == 0 {
            return fallible!(Input, "self_compose needs k >= 1");
        }
        let groups = self
            .groups
            .iter()
            .map(|g| {
                let count = g.count.checked_mul(k).filter(|&c| c <= MAX_COUNT).ok_or_else(|| too_many(g))?;
                Ok(Group { count, ..g.clone() })
            })
            .collect::<Fallible<Vec<_>>>()?;
        Ok(Composition { groups, neighbors: self.neighbors })
    }

    /// The unit shifts whose privacy losses add up to the composition's: each query under add/remove,
    /// two per query under replace.
    pub fn shifts(&self) -> Vec<Group> {
        let k = self.neighbors.shifts_per_query();
        self.groups.iter().map(|g| Group { count: g.count * k, ..g.clone() }).collect()
    }

    /// The shifts as Gaussian groups, if every noise is Gaussian and every count fits an engine's u32.
    pub fn gauss_shifts(&self) -> Fallible<Vec<GaussGroup>> {
        self.shifts()
            .into_iter()
            .map(|g| match g.noise {
                Noise::Gaussian { sigma2 } => {
                    let count = u32::try_from(g.count).map_err(|_| {
                        let s2 = crate::num::format::fmt_rational(&sigma2);
                        err!(Declined, "{} queries of N_Z(0, {s2}) are too many for this engine", g.count).over_limits()
                    })?;
                    Ok(GaussGroup { sigma2, count, mu: g.mu })
                }
                Noise::Laplace { .. } => Err(err!(Declined, "this method handles discrete Gaussian noise only")),
            })
            .collect()
    }

    /// True if some group has discrete Laplace noise.
    pub fn has_laplace(&self) -> bool {
        self.groups.iter().any(|g| matches!(g.noise, Noise::Laplace { .. }))
    }

    /// zCDP ρ of the composition (sum over shifts).
    pub fn rho(&self) -> Rational {
        self.shifts().iter().fold(Rational::from(0), |a, g| a + g.rho())
    }

    /// Pure ε of the composition when every noise is discrete Laplace.
    pub fn pure_epsilon(&self) -> Option<Rational> {
        self.shifts().iter().map(|g| g.pure_epsilon()).try_fold(Rational::from(0), |a, e| e.map(|e| a + e))
    }

    /// All variances (σ²) and scales (b) multiplied by c (calibration): noise scaled, counts kept.
    pub fn scaled(&self, c: &Rational) -> Fallible<Composition> {
        if *c <= 0 {
            return fallible!(Input, "the noise factor must be positive");
        }
        let groups = self
            .groups
            .iter()
            .map(|g| {
                let noise = match &g.noise {
                    Noise::Gaussian { sigma2 } => Noise::Gaussian { sigma2: Rational::from(sigma2 * c) },
                    Noise::Laplace { scale } => Noise::Laplace { scale: Rational::from(scale * c) },
                };
                Group { noise, ..g.clone() }
            })
            .collect();
        Ok(Composition { groups, neighbors: self.neighbors })
    }

    /// One line: "10 x N_Z(0, 5) sensitivity 1 + …".
    pub fn describe(&self) -> String {
        self.groups.iter().map(|g| format!("{} x {} sensitivity {}", g.count, g.noise.describe(), g.mu)).collect::<Vec<_>>().join(" + ")
    }
}

impl From<&GaussGroup> for Group {
    fn from(g: &GaussGroup) -> Group {
        Group::gaussian(g.sigma2.clone(), g.count as u64, g.mu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    #[test]
    fn merging_validation_and_rho() {
        let c = Composition::new(
            vec![Group::gaussian(q("5"), 3, 1), Group::laplace(q("2"), 1, 1), Group::gaussian(q("10/2"), 7, 1)],
            Neighbors::AddRemove,
        )
        .unwrap();
        assert_eq!(c.groups().len(), 2);
        assert_eq!(c.groups()[0].count, 10);
        // ρ = 10/(2·5) + (1/2)²/2 = 1 + 1/8
        assert_eq!(c.rho(), q("9/8"));
        assert!(c.pure_epsilon().is_none());
        let r = Composition::new(c.groups().to_vec(), Neighbors::Replace).unwrap();
        assert_eq!(r.rho(), q("9/4"));
        assert_eq!(r.shifts()[0].count, 20);
        assert!(Composition::new(vec![Group::gaussian(q("0"), 1, 1)], Neighbors::AddRemove).is_err());
        assert!(Composition::new(vec![Group::laplace(q("1"), 0, 1)], Neighbors::AddRemove).is_err());
        assert!(Composition::new(vec![], Neighbors::AddRemove).is_err());
    }

    #[test]
    fn compose_and_self_compose() {
        let a = Composition::gaussian(q("5"), 10, 1).unwrap();
        let b = Composition::new(vec![Group::laplace(q("3/2"), 20, 1)], Neighbors::AddRemove).unwrap();
        assert_eq!(b.pure_epsilon(), Some(q("40/3")));
        let ab = a.compose(&b).unwrap();
        assert_eq!(ab.groups().len(), 2);
        assert_eq!(a.self_compose(3).unwrap().groups()[0].count, 30);
        assert!(a.self_compose(MAX_COUNT).is_err());
        let r = Composition::new(vec![Group::gaussian(q("5"), 1, 1)], Neighbors::Replace).unwrap();
        assert!(a.compose(&r).is_err());
        // merged counts are checked, not wrapped
        let big = Group::gaussian(q("1"), MAX_COUNT, 1);
        assert!(Composition::new(vec![big.clone(), big], Neighbors::AddRemove).is_err());
    }
}
