//! The AIAN spine ([CAK24, §1]; §6 for the production runs): "TDA placed the state-level aggregate of
//! all AIAN tribal areas on the spine. Then, TDA redefined each geounit at the state geolevel and below
//! by the intersection of this geounit's original definition and either the on-spine AIAN areas or
//! their complement" — an AIAN and a non-AIAN branch below the root.
//!
//! From a conventional geography with an AIAN off-spine category (a block is in an AIAN area when its
//! entity in that category is not empty): every geounit from the state geolevel down to the blocks'
//! parents becomes its part inside the AIAN areas (id suffix `~A`) and its part outside (`~N`); a
//! geounit with blocks on one side only keeps one part. Blocks are unchanged. The original states
//! become the off-spine category `ose:<state geolevel>`, the group of (at most two) geounits whose
//! total the production run keeps invariant: in the Bureau's code (`manipulate_nodes.py`,
//! `makeChildGroups`; read for the idea, no code taken) the state totals constrain the sum of a
//! state's AIAN and non-AIAN parts, not each part.

use crate::census::allocation::norm_name;
use crate::error::Fallible;
use crate::record::csv_field;
use crate::topdown::geography::spine::{Spine, NONE};
use crate::{err, fallible};

/// The id of the AIAN (`in_aian`) or non-AIAN part of geounit `id`.
pub fn part_id(id: &str, in_aian: bool) -> String {
    format!("{id}~{}", if in_aian { "A" } else { "N" })
}

/// The state geolevel of a spine: the one named State, else the root's children.
pub fn state_level(sp: &Spine) -> usize {
    sp.level_index("State").unwrap_or(1).min(sp.n_levels() - 1)
}

/// The AIAN spine of `sp` by the off-spine category `category`, as a spine and as a geography file.
pub fn aian_branch(sp: &Spine, category: &str) -> Fallible<(Spine, String)> {
    let k = sp
        .ose
        .iter()
        .position(|o| norm_name(&o.name) == norm_name(category))
        .ok_or_else(|| err!(Input, "AIAN branch: the geography has no off-spine category 'ose:{category}'"))?;
    let nl = sp.n_levels();
    let st = state_level(sp);
    if st + 1 >= nl {
        return fallible!(Input, "AIAN branch: the spine needs a geolevel between the root and the blocks ({})", sp.levels.join(", "));
    }
    let state_name = sp.levels[st].clone();
    if sp.ose.iter().any(|o| norm_name(&o.name) == norm_name(&state_name)) {
        return fallible!(Input, "AIAN branch: the geography already has a category 'ose:{state_name}'");
    }
    let mut csv = String::new();
    let mut hdr: Vec<String> = vec![csv_field(&sp.levels[nl - 1]).into_owned()];
    hdr.extend(sp.levels[..nl - 1].iter().map(|l| csv_field(l).into_owned()));
    hdr.extend(sp.ose.iter().map(|o| csv_field(&format!("ose:{}", o.name)).into_owned()));
    hdr.push(csv_field(&format!("ose:{state_name}")).into_owned());
    csv += &hdr.join(",");
    csv.push('\n');
    for (b, &u) in sp.blocks.iter().enumerate() {
        let in_aian = sp.ose[k].of_block[b] != NONE;
        let path = sp.path(u);
        let mut row: Vec<String> = vec![sp.ids[u as usize].clone()];
        for (l, &a) in path[..nl - 1].iter().enumerate() {
            let id = &sp.ids[a as usize];
            row.push(if l >= st { part_id(id, in_aian) } else { id.clone() });
        }
        for o in &sp.ose {
            let e = o.of_block[b];
            row.push(if e == NONE { String::new() } else { o.entities[e as usize].clone() });
        }
        row.push(sp.ids[path[st] as usize].clone());
        csv += &row.iter().map(|s| csv_field(s).into_owned()).collect::<Vec<_>>().join(",");
        csv.push('\n');
    }
    let new = Spine::from_reader(csv.as_bytes()).map_err(|e| e.context("AIAN branch: the redefined spine is invalid"))?;
    Ok((new, csv))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two states; S1 has AIAN areas A1 (blocks b1, b3) and A2 (b4), S2 none. By hand, the AIAN spine
    /// is: State S1~A {b1, b3, b4}, S1~N {b2}, S2~N {b5, b6}; County C1~A {b1} and C2~A {b3, b4} under
    /// S1~A, C1~N {b2} under S1~N, C3~N under S2~N.
    const GEO: &str = "Block,US,State,County,ose:aian\n\
        b1,US,S1,C1,A1\nb2,US,S1,C1,\nb3,US,S1,C2,A1\nb4,US,S1,C2,A2\nb5,US,S2,C3,\nb6,US,S2,C3,\n";

    fn members(sp: &Spine, blocks: &[&str]) -> Vec<bool> {
        sp.blocks.iter().map(|&u| blocks.contains(&sp.ids[u as usize].as_str())).collect()
    }

    #[test]
    fn the_state_and_county_parts_are_the_hand_derived_ones() {
        let sp = Spine::from_reader(GEO.as_bytes()).unwrap();
        let (a, _) = aian_branch(&sp, "aian").unwrap();
        assert_eq!(a.levels, sp.levels);
        assert_eq!(a.n_units(), 1 + 3 + 4 + 6);
        let id = |s: &str| a.ids.iter().position(|x| x == s).unwrap() as u32;
        let kids = |s: &str| -> Vec<&str> { a.children(id(s)).iter().map(|&c| a.ids[c as usize].as_str()).collect() };
        assert_eq!(kids("US"), vec!["S1~A", "S1~N", "S2~N"]);
        assert_eq!(kids("S1~A"), vec!["C1~A", "C2~A"]);
        assert_eq!(kids("S1~N"), vec!["C1~N"]);
        assert_eq!(kids("S2~N"), vec!["C3~N"]);
        assert_eq!(kids("C1~A"), vec!["b1"]);
        assert_eq!(kids("C2~A"), vec!["b3", "b4"]);
        // the original state is an off-spine entity made of its two parts
        let o = a.ose.iter().position(|o| o.name == "State").unwrap();
        assert_eq!(a.ose[o].entities, vec!["S1", "S2"]);
        assert_eq!(a.osed(&a.ose_members(o, 0)), 2);
        assert_eq!(a.osed(&a.ose_members(o, 1)), 1);
    }

    #[test]
    fn the_aian_aggregate_of_a_state_is_on_the_spine() {
        // eqs. 4.1-4.4 by hand: all AIAN blocks of S1 = {b1, b3, b4}: S1 − b2 (2 geounits) on the
        // conventional spine, S1~A (1) on the AIAN spine; A1 = {b1, b3}: b1 + b3 (2) on both
        let sp = Spine::from_reader(GEO.as_bytes()).unwrap();
        let (a, _) = aian_branch(&sp, "aian").unwrap();
        assert_eq!(sp.osed(&members(&sp, &["b1", "b3", "b4"])), 2);
        assert_eq!(a.osed(&members(&a, &["b1", "b3", "b4"])), 1);
        assert_eq!(sp.osed(&members(&sp, &["b1", "b3"])), 2);
        assert_eq!(a.osed(&members(&a, &["b1", "b3"])), 2);
    }

    #[test]
    fn refusals() {
        let sp = Spine::from_reader(GEO.as_bytes()).unwrap();
        assert!(aian_branch(&sp, "place").unwrap_err().to_string().contains("no off-spine category"));
        let (a, _) = aian_branch(&sp, "aian").unwrap();
        assert!(aian_branch(&a, "aian").unwrap_err().to_string().contains("already has"));
    }
}
