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
//!
//! Beyond the two lattice laws, any mechanism enters as [`Noise::Law`]: its privacy-loss law
//! (`noise::loss::LossLaw`, one file per law under `src/noise/`: the continuous Gaussian, Laplace,
//! randomized response, subsampled mechanisms, stated guarantees), which carries its own sensitivity and
//! says how many copies one record's change makes under each neighbour relation.

pub mod spec;

use crate::error::{Error, Fallible};
use crate::{err, fallible};
use rug::Rational;

pub use crate::noise::neighbors::Neighbors;

/// The noise of one query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Noise {
    /// Discrete Gaussian N_Z(0, σ²): pmf ∝ exp(−x²/(2σ²)).
    Gaussian { sigma2: Rational },
    /// Discrete Laplace (two-sided geometric) with scale b: pmf ∝ exp(−|x|/b).
    Laplace { scale: Rational },
    /// Any other mechanism, through its privacy-loss law (its sensitivity inside; the group's μ is 1).
    Law(LawRef),
}

/// A shared privacy-loss law, compared by its `--mech` spelling.
#[derive(Clone, Debug)]
pub struct LawRef(pub std::sync::Arc<dyn crate::noise::loss::LossLaw>);

impl PartialEq for LawRef {
    fn eq(&self, o: &LawRef) -> bool {
        self.0.spec() == o.0.spec()
    }
}

impl Eq for LawRef {}

impl Noise {
    pub fn describe(&self) -> String {
        match self {
            Noise::Gaussian { sigma2 } => format!("N_Z(0, {sigma2})"),
            Noise::Laplace { scale } => format!("DLap({scale})"),
            Noise::Law(l) => l.0.spec(),
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

    /// `count` copies of a mechanism given by its privacy-loss law.
    pub fn law(law: std::sync::Arc<dyn crate::noise::loss::LossLaw>, count: u64) -> Group {
        Group { noise: Noise::Law(LawRef(law)), count, mu: 1 }
    }

    /// zCDP ρ of the group's shifts: nμ²/(2σ²) for N_Z(0, σ²) (Canonne–Kamath–Steinke Thm 4);
    /// n(μ/b)²/2 for DLap(b), from its pure ε = μ/b (ε-DP implies ε²/2-zCDP, Bun–Steinke Prop. 1.4);
    /// n times the law's own ρ for a [`Noise::Law`] (None if it has none).
    pub fn rho(&self) -> Option<Rational> {
        let n = Rational::from(self.count);
        let mu = Rational::from(self.mu);
        Some(match &self.noise {
            Noise::Gaussian { sigma2 } => n * Rational::from(&mu * &mu) / (Rational::from(2) * sigma2.clone()),
            Noise::Laplace { scale } => {
                let e = mu / scale.clone();
                n * Rational::from(&e * &e) / 2u32
            }
            Noise::Law(l) => n * l.0.rho()?,
        })
    }

    /// Pure ε of the group's shifts, if it has one: nμ/b for DLap(b); None for the discrete Gaussian.
    pub fn pure_epsilon(&self) -> Option<Rational> {
        match &self.noise {
            Noise::Gaussian { .. } => None,
            Noise::Laplace { scale } => Some(Rational::from(self.count) * Rational::from(self.mu) / scale.clone()),
            Noise::Law(l) => Some(Rational::from(self.count) * l.0.pure_epsilon()?),
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
        let mu = Rational::from(self.mu);
        Rational::from(self.count) * Rational::from(&mu * &mu) / (Rational::from(2) * self.sigma2.clone())
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
    let mut index: std::collections::HashMap<(u8, Rational, u32, String), usize> = std::collections::HashMap::new();
    let mut out: Vec<Group> = Vec::new();
    for g in groups {
        let key = match &g.noise {
            Noise::Gaussian { sigma2 } => (0, sigma2.clone(), g.mu, String::new()),
            Noise::Laplace { scale } => (1, scale.clone(), g.mu, String::new()),
            Noise::Law(l) => (2, Rational::from(0), g.mu, l.0.spec()),
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
    pub fn new(mut groups: Vec<Group>, neighbors: Neighbors) -> Fallible<Composition> {
        if groups.is_empty() {
            return fallible!(Input, "nothing to compose: no mechanism given");
        }
        // a law with a pair of its own under these neighbours (the Poisson-subsampled Gaussian under replace)
        for g in groups.iter_mut() {
            if let Noise::Law(l) = &g.noise {
                if let Some(r) = l.0.under(neighbors) {
                    g.noise = Noise::Law(LawRef(r?));
                }
            }
        }
        for g in &groups {
            match &g.noise {
                Noise::Gaussian { sigma2 } if *sigma2 <= 0 => return fallible!(Input, "sigma2 must be positive, got {sigma2}"),
                Noise::Laplace { scale } if *scale <= 0 => {
                    return fallible!(Input, "the discrete Laplace scale must be positive, got {scale}")
                }
                Noise::Law(l) => {
                    if g.mu != 1 {
                        return fallible!(Internal, "a law group with sensitivity {} (the law carries its own)", g.mu);
                    }
                    // the law must be defined for the relation (Poisson subsampling: add/remove only)
                    l.0.shifts(neighbors)?;
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
        let _ = Composition::new(other.groups.clone(), self.neighbors)?;
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
        let nb = self.neighbors;
        self.groups
            .iter()
            .map(|g| {
                // a law's shifts were checked on construction
                let k = match &g.noise {
                    Noise::Law(l) => l.0.shifts(nb).unwrap_or(1),
                    _ => nb.shifts_per_query(),
                };
                Group { count: g.count * k, ..g.clone() }
            })
            .collect()
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
                Noise::Laplace { .. } | Noise::Law(_) => Err(err!(Declined, "this method handles discrete Gaussian noise only")),
            })
            .collect()
    }

    /// True if some group has discrete Laplace noise.
    pub fn has_laplace(&self) -> bool {
        self.groups.iter().any(|g| matches!(g.noise, Noise::Laplace { .. }))
    }

    /// True if some group is a mechanism beyond the two lattice laws ([`Noise::Law`]): the lattice, smoothed
    /// and zCDP-conversion engines then decline, and the law engines (closed forms, the grid) answer.
    /// True if some group is known only through its ρ (a stated zCDP guarantee, `noise::blackbox::Zcdp`).
    pub fn has_rho_only(&self) -> bool {
        self.groups.iter().any(|g| matches!(&g.noise, Noise::Law(l) if l.0.rho_only()))
    }

    /// True if some group is known only by a bound on its Rényi divergences (repeat-and-select,
    /// `noise::repeat`).
    pub fn has_renyi_only(&self) -> bool {
        self.groups.iter().any(|g| matches!(&g.noise, Noise::Law(l) if l.0.rdp_only()))
    }

    /// True if some group's law has a sharper Rényi bound than its loss law ([`LossLaw::renyi_sharper`]:
    /// the exponential mechanism's bounded range).
    ///
    /// [`LossLaw::renyi_sharper`]: crate::noise::loss::LossLaw::renyi_sharper
    pub fn has_renyi_sharper(&self) -> bool {
        self.groups.iter().any(|g| matches!(&g.noise, Noise::Law(l) if l.0.renyi_sharper()))
    }

    pub fn has_law(&self) -> bool {
        self.groups.iter().any(|g| matches!(g.noise, Noise::Law(_)))
    }

    /// The laws of the composition's shifts with their counts, every group as a law: the lattice laws as
    /// their loss laws (`noise::dgauss_loss`, `noise::dlaplace_loss`) with the group's sensitivity.
    pub fn law_shifts(&self) -> Fallible<Vec<(std::sync::Arc<dyn crate::noise::loss::LossLaw>, u64)>> {
        use crate::noise::loss::LossLaw;
        use std::sync::Arc;
        self.shifts()
            .into_iter()
            .map(|g| {
                let law: Arc<dyn LossLaw> = match g.noise {
                    Noise::Law(l) => l.0,
                    Noise::Gaussian { sigma2 } => Arc::new(crate::noise::dgauss_loss::DiscreteGaussianLoss::new(sigma2, g.mu)?),
                    Noise::Laplace { scale } => Arc::new(crate::noise::dlaplace_loss::DiscreteLaplaceLoss::new(scale, g.mu)?),
                };
                Ok((law, g.count))
            })
            .collect()
    }

    /// zCDP ρ of the composition (sum over shifts); None if some mechanism has none (randomized response,
    /// an (ε, δ) guarantee).
    pub fn rho(&self) -> Option<Rational> {
        self.shifts().iter().try_fold(Rational::from(0), |a, g| g.rho().map(|r| a + r))
    }

    /// The zCDP ρ, refused (as bad input for the conversion asked) when some mechanism has none.
    pub fn rho_required(&self) -> Fallible<Rational> {
        self.rho().ok_or_else(|| err!(Input, "no zCDP rho is defined for {}: a mechanism in it has none", self.describe()))
    }

    /// True if every mechanism stands for itself (no stated guarantee among the laws).
    pub fn is_exact(&self) -> bool {
        !self.groups.iter().any(|g| matches!(&g.noise, Noise::Law(l) if l.0.is_bound()))
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
                    Noise::Law(l) => match l.0.scaled(c) {
                        Some(s) => Noise::Law(LawRef(s?)),
                        None => return fallible!(Input, "{} has no noise scale to calibrate", l.0.spec()),
                    },
                };
                Ok(Group { noise, ..g.clone() })
            })
            .collect::<Fallible<Vec<Group>>>()?;
        Ok(Composition { groups, neighbors: self.neighbors })
    }

    /// One line: "10 x N_Z(0, 5) sensitivity 1 + …".
    pub fn describe(&self) -> String {
        self.groups
            .iter()
            .map(|g| match &g.noise {
                Noise::Law(l) => format!("{} x {}", g.count, l.0.spec()),
                n => format!("{} x {} sensitivity {}", g.count, n.describe(), g.mu),
            })
            .collect::<Vec<_>>()
            .join(" + ")
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
        assert_eq!(c.rho(), Some(q("9/8")));
        assert!(c.pure_epsilon().is_none());
        let r = Composition::new(c.groups().to_vec(), Neighbors::Replace).unwrap();
        assert_eq!(r.rho(), Some(q("9/4")));
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
