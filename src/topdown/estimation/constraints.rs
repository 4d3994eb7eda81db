//! The data-independent and data-dependent constraints of TopDown's production estimation beyond the
//! parent and the invariant totals ([CAK24, §2]: "TDA does not protect each state's total population or
//! the locations of each group quarter type"; the production code, read for the ideas, no code taken:
//! uscensusbureau/DAS_2020_Redistricting_Production_Code, `programs/constraints/Constraints_PL94.py`
//! and `querybase_constraints.py`, the configuration `configs/production/pl94/person_default.ini`):
//!
//! * **structural zeros** (data independent): histogram cells that are 0 in every geounit — the
//!   production `nurse_nva_0`, "no minors in nursing facilities" (hhgq code 3 of the PL94 schema, the
//!   nursing facilities, × votingage 0). Here a list of attribute conjunctions;
//! * **group-quarters bounds** (from the `gqhh_vect` invariant: the number of facilities of each
//!   hhgq type in a block, published exactly): in every geounit, persons of type t ≥ lb_t · units_t
//!   and ≤ 99999 · units_t (0 without a facility of the type), lb_0 = 0 (vacant housing units count,
//!   the `PL94_2020` schema) and lb_t = 1 for a group quarters type (`hhgq_total_lb`,
//!   `hhgq_total_ub`). The block constraints are summed up the tree (`addInReduce`), so every geounit
//!   has the bounds of its blocks' facilities. (The State level's own versions with the state total
//!   are implied by these and the total);
//! * **group invariants**: a total on a group of sibling geounits — the AIAN and non-AIAN parts of a
//!   state, whose sum the state total fixes (`makeChildGroups`).

use crate::error::Fallible;
use crate::topdown::measurement::schema::{Schema, ATTRS};
use crate::topdown::spine::{Spine, NONE};
use crate::{err, fallible};

/// Production's cap on the persons of one facility or housing unit.
pub const UNIT_CAP: i64 = 99_999;

/// The constraints of a run beyond parent consistency and unit invariants.
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    /// Structural zero per histogram cell (empty: none).
    pub structural_zero: Vec<bool>,
    /// Facilities (housing units for type 0) of each hhgq type per geounit, unit-major, summed over
    /// the blocks below (empty: no group-quarters bounds).
    pub units: Vec<u32>,
    /// hhgq types (the schema's hhgq cardinality) when `units` is given.
    pub types: usize,
    /// Invariant totals of groups of sibling geounits.
    pub groups: Vec<(Vec<u32>, i64)>,
}

impl Constraints {
    pub fn is_zero(&self, cell: usize) -> bool {
        self.structural_zero.get(cell).copied().unwrap_or(false)
    }

    /// The bounds of hhgq type t in geounit u: (lo, hi), or None without group-quarters bounds.
    pub fn gq_bounds(&self, u: usize, t: usize) -> Option<(i64, i64)> {
        if self.units.is_empty() {
            return None;
        }
        let units = self.units[u * self.types + t] as i64;
        Some((if t == 0 { 0 } else { units }, units * UNIT_CAP))
    }

    /// The group invariants over children of `parent`, as (positions in `ch`, total).
    pub fn groups_of(&self, sp: &Spine, ch: &[u32]) -> Vec<(Vec<usize>, i64)> {
        let Some(&c0) = ch.first() else { return Vec::new() };
        let p = sp.parent[c0 as usize];
        self.groups
            .iter()
            .filter(|(us, _)| us.first().is_some_and(|&u| sp.parent[u as usize] == p))
            .map(|(us, t)| (us.iter().filter_map(|u| ch.iter().position(|c| c == u)).collect(), *t))
            .collect()
    }
}

/// Parse structural zeros: `none`, `nurse-nva` (hhgq=3 & votingage=0, the production `nurse_nva_0`;
/// needs hhgq ≥ 4 codes and votingage 2) or conjunctions `ATTR=V&ATTR=V`, several separated by `;`.
pub fn parse_structural_zeros(spec: &str, schema: &Schema) -> Fallible<Vec<bool>> {
    let spec = spec.trim();
    if spec.is_empty() || spec == "none" {
        return Ok(Vec::new());
    }
    let text = if spec == "nurse-nva" {
        if schema.card[0] < 4 || schema.card[1] < 2 {
            return fallible!(
                Input,
                "--structural-zeros nurse-nva needs hhgq ≥ 4 codes (3: nursing facilities) and votingage 2; the schema is {}",
                schema.describe()
            );
        }
        "hhgq=3&votingage=0"
    } else {
        spec
    };
    let mut zero = vec![false; schema.cells()];
    for conj in text.split(';') {
        let mut want: Vec<(usize, u32)> = Vec::new();
        for term in conj.split('&') {
            let (a, v) =
                term.split_once('=').ok_or_else(|| err!(Input, "--structural-zeros: expected ATTR=VALUE, got '{}'", term.trim()))?;
            let i = ATTRS
                .iter()
                .position(|x| x.eq_ignore_ascii_case(a.trim()))
                .ok_or_else(|| err!(Input, "--structural-zeros: unknown attribute '{}' ({})", a.trim(), ATTRS.join(", ")))?;
            let v: u32 = v.trim().parse().map_err(|_| err!(Input, "--structural-zeros: bad value in '{}'", term.trim()))?;
            if v >= schema.card[i] {
                return fallible!(Input, "--structural-zeros: {} = {v} is outside the schema (0..{})", ATTRS[i], schema.card[i]);
            }
            want.push((i, v));
        }
        for (c, z) in zero.iter_mut().enumerate() {
            let d = schema.decode(c);
            if want.iter().all(|&(i, v)| d[i] == v) {
                *z = true;
            }
        }
    }
    if zero.iter().all(|&z| z) {
        return fallible!(Input, "--structural-zeros would make every cell zero");
    }
    Ok(zero)
}

/// Sum block facilities (block-major, `types` per block) up the spine: every geounit's facilities.
pub fn aggregate_units(sp: &Spine, block_units: &[u32], types: usize) -> Vec<u32> {
    let mut units = vec![0u32; sp.n_units() * types];
    for (b, &u) in sp.blocks.iter().enumerate() {
        units[u as usize * types..(u as usize + 1) * types].copy_from_slice(&block_units[b * types..(b + 1) * types]);
    }
    // parents come before children in unit order (the reader and Algorithm 3 number them so)
    for u in (0..sp.n_units()).rev() {
        let p = sp.parent[u];
        if p != NONE {
            for t in 0..types {
                units[p as usize * types + t] = units[p as usize * types + t].saturating_add(units[u * types + t]);
            }
        }
    }
    units
}

/// The sibling geounits whose blocks are exactly the `members` (blocks of an off-spine entity), as
/// the highest geolevel where that holds; None when the entity is not such a union.
pub fn sibling_union(sp: &Spine, members: &[bool]) -> Option<Vec<u32>> {
    let mut blocks_below = vec![0u64; sp.n_units()];
    for &u in &sp.blocks {
        blocks_below[u as usize] = 1;
    }
    for u in (0..sp.n_units()).rev() {
        let p = sp.parent[u];
        if p != NONE {
            blocks_below[p as usize] += blocks_below[u];
        }
    }
    let n_members = members.iter().filter(|&&m| m).count() as u64;
    if n_members == 0 {
        return None;
    }
    let paths: Vec<Vec<u32>> = sp.blocks.iter().zip(members).filter(|(_, &m)| m).map(|(&u, _)| sp.path(u)).collect();
    for l in 0..sp.n_levels() {
        let mut units: Vec<u32> = paths.iter().map(|p| p[l]).collect();
        units.sort_unstable();
        units.dedup();
        let covered: u64 = units.iter().map(|&u| blocks_below[u as usize]).sum();
        let parent = sp.parent[units[0] as usize];
        if covered == n_members && units.iter().all(|&u| sp.parent[u as usize] == parent) {
            return Some(units);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structural_zeros_of_the_production_schema() {
        let pl94 = Schema::parse("pl94").unwrap();
        let z = parse_structural_zeros("nurse-nva", &pl94).unwrap();
        // hhgq = 3, votingage = 0: 2 · 63 cells (hispanic × cenrace)
        assert_eq!(z.iter().filter(|&&x| x).count(), 2 * 63);
        assert!(z[pl94.cell([3, 0, 1, 17])] && !z[pl94.cell([3, 1, 1, 17])] && !z[pl94.cell([2, 0, 0, 0])]);
        let s = Schema::parse("hhgq=5,votingage=2").unwrap();
        assert_eq!(parse_structural_zeros("hhgq=3&votingage=0;hhgq=4&votingage=0", &s).unwrap(), {
            let mut v = vec![false; 10];
            v[6] = true;
            v[8] = true;
            v
        });
        assert!(parse_structural_zeros("nurse-nva", &Schema::parse("small").unwrap()).is_err());
        assert!(parse_structural_zeros("hhgq=9", &s).is_err());
        assert!(parse_structural_zeros("age=1", &s).is_err());
        assert!(parse_structural_zeros("votingage=0;votingage=1", &s).is_err());
        assert!(parse_structural_zeros("none", &s).unwrap().is_empty());
    }

    #[test]
    fn facilities_add_up_the_tree_and_give_the_bounds() {
        let sp = Spine::from_reader("block,US,C\nb1,US,C1\nb2,US,C1\nb3,US,C2\n".as_bytes()).unwrap();
        // two types: housing units, one group quarters type
        let block_units = [2, 0, 0, 1, 5, 2];
        let units = aggregate_units(&sp, &block_units, 2);
        let id = |s: &str| sp.ids.iter().position(|x| x == s).unwrap();
        assert_eq!(&units[id("C1") * 2..id("C1") * 2 + 2], &[2, 1]);
        assert_eq!(&units[id("US") * 2..id("US") * 2 + 2], &[7, 3]);
        let c = Constraints { units, types: 2, ..Default::default() };
        assert_eq!(c.gq_bounds(id("US"), 1), Some((3, 3 * UNIT_CAP)));
        assert_eq!(c.gq_bounds(id("b2"), 0), Some((0, 0))); // no housing unit: no household persons
        assert_eq!(c.gq_bounds(id("b1"), 0), Some((0, 2 * UNIT_CAP))); // vacant units allowed
    }

    #[test]
    fn an_entity_made_of_siblings_is_found() {
        let sp = Spine::from_reader("block,US,S,C\nb1,US,S1~A,C1\nb2,US,S1~N,C2\nb3,US,S2~N,C3\n".as_bytes()).unwrap();
        let g = sibling_union(&sp, &[true, true, false]).unwrap();
        assert_eq!(g.iter().map(|&u| sp.ids[u as usize].as_str()).collect::<Vec<_>>(), vec!["S1~A", "S1~N"]);
        assert_eq!(sibling_union(&sp, &[false, false, true]).unwrap().len(), 1);
        // b1 and b3: under different parents only at the root's children, which are S1~A and S2~N
        assert!(sibling_union(&sp, &[true, false, true]).is_some());
        let sp2 = Spine::from_reader("block,US,S,C\nb1,US,S1,C1\nb2,US,S1,C1\nb3,US,S2,C3\n".as_bytes()).unwrap();
        // b1 alone: C1 also holds b2, so only the block itself
        let b1 = sp2.ids.iter().position(|x| x == "b1").unwrap() as u32;
        assert_eq!(sibling_union(&sp2, &[true, false, false]).unwrap(), vec![b1]);
    }
}
