//! A composition with one unknown: `--mech` terms, one of which holds a `?` (`gauss:sigma=?,…` for the
//! noise multiplier, `…,n=?` for the number of steps, `…,q=?` for the sampling rate, `epsilon=?` for one
//! mechanism's ε), all under one
//! neighbour relation. The searches (`calibrate::sigma`, `calibrate::steps`, `calibrate::rate`) fill the
//! hole with each value they probe.

use crate::error::Fallible;
use crate::fallible;
use crate::model::spec::parse_mech;
use crate::model::{Composition, Group, Neighbors};

/// The terms, which of them holds the one `?`, and their relation.
pub struct Hole {
    terms: Vec<String>,
    hole: usize,
    neighbors: Neighbors,
}

impl Hole {
    /// Exactly one `?` in all the terms, and `check` accepts its term (else its message); every term is
    /// parsed up front with `probe` in the hole, so a bad key is refused before the search.
    pub fn parse(terms: &[String], neighbors: Neighbors, check: impl Fn(&str) -> Fallible<()>, probe: &str) -> Fallible<Hole> {
        let holes: Vec<usize> = (0..terms.len()).filter(|&i| terms[i].contains('?')).collect();
        let [hole] = holes[..] else {
            return fallible!(
                Input,
                "calibrate --mech needs exactly one term with an unknown: the noise multiplier as sigma=? (e.g. gauss:sigma=?,q=256/60000,n=14070), the number of steps as n=? (e.g. gauss:sigma=1.1,q=256/60000,n=?), the sampling rate as q=? (e.g. gauss:sigma=1.1,q=?,n=14070) or a mechanism's epsilon as epsilon=? (e.g. dp:epsilon=?,q=1/100,n=1000), got {}",
                holes.len()
            );
        };
        let t = terms[hole].trim();
        if t.matches('?').count() != 1 {
            return fallible!(
                Input,
                "'{t}': one unknown at a time: the noise multiplier sigma=?, the number of steps n=?, the sampling rate q=? or the epsilon epsilon=?"
            );
        }
        check(t)?;
        let h = Hole { terms: terms.to_vec(), hole, neighbors };
        h.composition(probe)?;
        Ok(h)
    }

    /// The keys of the hole's term (`key=value` pieces after the kind).
    pub fn keys(term: &str) -> Vec<&str> {
        term.split_once(':').map(|(_, r)| r.split(',').map(str::trim).collect()).unwrap_or_default()
    }

    /// The composition with `value` in the hole.
    pub fn composition(&self, value: &str) -> Fallible<Composition> {
        let groups: Vec<Group> = (0..self.terms.len())
            .map(|i| if i == self.hole { parse_mech(&self.terms[i].replace('?', value)) } else { parse_mech(&self.terms[i]) })
            .collect::<Result<_, _>>()?;
        Composition::new(groups, self.neighbors)
    }
}
