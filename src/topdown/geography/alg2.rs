//! Algorithm 2 of [CAK24] (§4, "Redefine_Block_Groups_and_Tract_Groups"): bring
//! off-spine entities (OSEs) closer to the spine by redefining block groups and tract groups.
//!
//! 1. Within each tract, *optimized block groups* combine blocks in the same intersection of OSEs, at
//!    most ⌊√n⌋ + `fanout_cutoff` blocks each (n: blocks in the tract; "the smallest maximum fanout
//!    value among a given tract and its child geounits is ⌈√n⌉").
//! 2. Tract groups start with one tract each; then, county by county, a greedy pass combines two tract
//!    groups whenever the union has at most ⌊√n⌋ + `fanout_cutoff` tracts (n: tracts in the county) and
//!    the OSEDs sorted in descending order do not get lexicographically worse (the paper's ≤_lex, ties
//!    accepted), until no pair can be combined.
//!
//! Read in the production code (uscensusbureau/DAS_2020_Redistricting_Production_Code,
//! `programs/geographic_spines/optimize_spine.py`, ideas only): the search runs per county on the OSEDs
//! of each entity's part in the county (`recursion_through_tracts_entity_k` fixes the tract-level
//! values once, `dist_of_entity_k` recurses through tract groups and the county), the cut-off is
//! `int(sqrt(n) + fanout_cutoff)`, and the loop takes the first improving pair, restarts, and sets aside
//! a tract group that combines with none (`minimize_entity_distance`). Two production details are
//! options (`Alg2Opts`): the pre-pass that first combines tracts containing identical sets of entities
//! (the "outside" of a category counting as an entity), in chunks of at most the cut-off tracts,
//! before the greedy search; and the `entity_threshold` that leaves out of the objective the entities
//! whose distance within the county is at most the threshold even without tract groups (production:
//! 9, with `fanout_cutoff` 12) — when no entity is left, the tract groups are combined in order, the
//! cut-off many at a time, without a search. The production block-group loop opens a new group only
//! once a group has *more* than the cut-off blocks (one more than the paper's "up to"); here the
//! paper's bound holds.
//!
//! The OSED (eqs. 4.1–4.4, Algorithm 1) before and after is computed on the whole spine by
//! `Spine::osed`, independently of the per-county search.

use crate::census::allocation::norm_name;
use crate::error::Fallible;
use crate::record::csv_field;
use crate::topdown::geography::spine::{Spine, NONE};
use crate::{err, fallible};
use std::collections::HashMap;

pub struct Alg2 {
    /// The redefined spine: geolevels up to the county, "Tract Group", the tract level,
    /// "Optimized Block Group", the blocks.
    pub spine: Spine,
    /// The same geography as a geography file (CSV; the tests read it back).
    #[cfg(test)]
    pub csv: String,
    /// OSED of every entity, per OSE category: before (input spine) and after (the tests' measure of what
    /// the redefinition gained).
    #[cfg(test)]
    pub osed_before: Vec<Vec<u64>>,
    #[cfg(test)]
    pub osed_after: Vec<Vec<u64>>,
    pub tract_groups: usize,
    pub block_groups: usize,
    pub merges: usize,
}

/// ⌊√n⌋ + cutoff.
fn cap(n: usize, cutoff: u32) -> usize {
    (n as f64).sqrt().floor() as usize + cutoff as usize
}

/// Per entity and tract: (c_k, c_k') at the tract (eqs. 4.1–4.4 from the blocks through the OBGs).
type TractOsed = Vec<(u64, u64)>;

/// Options of Algorithm 2 beyond the paper's cut-off (module comment): the production pre-pass and
/// entity threshold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alg2Opts {
    pub fanout_cutoff: u32,
    /// Combine tracts with identical entity sets first.
    pub identical_tracts: bool,
    /// Ignore entities whose county-level distance without tract groups is at most this.
    pub entity_threshold: Option<u64>,
}

/// Algorithm 2 as the paper writes it (no pre-pass, every entity in the objective; the tests', the CLI runs
/// [`redefine_with`]).
#[cfg(test)]
pub fn redefine(sp: &Spine, county_level: &str, tract_level: &str, fanout_cutoff: u32) -> Fallible<Alg2> {
    redefine_with(sp, county_level, tract_level, &Alg2Opts { fanout_cutoff, ..Default::default() })
}

/// The production pre-pass over one county's tracts (in order): a tract with later tracts of the same
/// entity set is combined with all of them, `limit` tracts at a time; the others stay alone. Tract
/// groups are lists of tract positions, ordered by their first tract.
pub fn identical_tract_groups(sets: &[Vec<(usize, u32)>], limit: usize) -> Vec<Vec<usize>> {
    let n = sets.len();
    let mut done = vec![false; n];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if done[i] {
            continue;
        }
        let mut all = vec![i];
        all.extend((i + 1..n).filter(|&j| !done[j] && sets[j] == sets[i]));
        for &j in &all {
            done[j] = true;
        }
        out.extend(all.chunks(limit.max(1)).map(|c| c.to_vec()));
    }
    out.sort_by_key(|g| g[0]);
    out
}

pub fn redefine_with(sp: &Spine, county_level: &str, tract_level: &str, opts: &Alg2Opts) -> Fallible<Alg2> {
    let (c, t) = county_and_tract(sp, county_level, tract_level)?;
    // blocks of each tract (block numbers, in file order)
    let mut tract_of_block = vec![0u32; sp.blocks.len()];
    let mut blocks_of: HashMap<u32, Vec<u32>> = HashMap::new();
    for (b, &u) in sp.blocks.iter().enumerate() {
        let tr = sp.path(u)[t];
        tract_of_block[b] = tr;
        blocks_of.entry(tr).or_default().push(b as u32);
    }
    // 1. optimized block groups
    let (obg_of_block, n_obg) = optimized_block_groups(sp, t, &blocks_of, opts.fanout_cutoff);
    // 2. tract groups per county
    let mut tg_of_tract: HashMap<u32, usize> = HashMap::new();
    let mut n_tg = 0usize;
    let mut merges = 0usize;
    let counties: Vec<u32> = (0..sp.n_units() as u32).filter(|&u| sp.level[u as usize] as usize == c).collect();
    for &county in &counties {
        let trs: Vec<u32> = sp.children(county).to_vec();
        let (tgs, m) = tract_groups(sp, &trs, &blocks_of, &obg_of_block, opts);
        merges += m;
        for g in &tgs {
            for &i in g {
                tg_of_tract.insert(trs[i], n_tg);
            }
            n_tg += 1;
        }
    }
    let csv = redefined_geography(sp, (c, t), &tract_of_block, &tg_of_tract, &obg_of_block)?;
    let new = Spine::from_reader(csv.as_bytes()).map_err(|e| e.context("Algorithm 2: the redefined spine is invalid"))?;
    #[cfg(test)]
    let osed = |s: &Spine| -> Vec<Vec<u64>> {
        (0..s.ose.len()).map(|k| (0..s.ose[k].entities.len() as u32).map(|e| s.osed(&s.ose_members(k, e))).collect()).collect()
    };
    Ok(Alg2 {
        #[cfg(test)]
        osed_before: osed(sp),
        #[cfg(test)]
        osed_after: osed(&new),
        #[cfg(test)]
        csv,
        spine: new,
        tract_groups: n_tg,
        block_groups: n_obg,
        merges,
    })
}

/// The county and tract geolevels: the tract level directly below the county level and above the blocks.
fn county_and_tract(sp: &Spine, county_level: &str, tract_level: &str) -> Fallible<(usize, usize)> {
    let c =
        sp.level_index(county_level).ok_or_else(|| err!(Input, "Algorithm 2: no geolevel '{county_level}' ({})", sp.levels.join(", ")))?;
    let t =
        sp.level_index(tract_level).ok_or_else(|| err!(Input, "Algorithm 2: no geolevel '{tract_level}' ({})", sp.levels.join(", ")))?;
    if t != c + 1 || t + 1 >= sp.n_levels() {
        return fallible!(
            Input,
            "Algorithm 2 needs the tract geolevel directly below the county geolevel and above the blocks (spine: {})",
            sp.levels.join(", ")
        );
    }
    Ok((c, t))
}

/// Optimized block groups: per tract, per OSE intersection (the blocks' signature of entities), chunks
/// of at most `cap` blocks. Each block's group, and the number of groups.
fn optimized_block_groups(sp: &Spine, t: usize, blocks_of: &HashMap<u32, Vec<u32>>, fanout_cutoff: u32) -> (Vec<u32>, usize) {
    let sig = |b: usize| -> Vec<u32> { sp.ose.iter().map(|o| o.of_block[b]).collect() };
    let mut obg_of_block = vec![0u32; sp.blocks.len()];
    let mut n_obg = 0usize;
    let mut tracts: Vec<u32> = (0..sp.n_units() as u32).filter(|&u| sp.level[u as usize] as usize == t).collect();
    tracts.sort();
    for &tr in &tracts {
        let bl = &blocks_of[&tr];
        let k = cap(bl.len(), fanout_cutoff).max(1);
        let mut groups: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        for &b in bl {
            let s = sig(b as usize);
            match groups.iter_mut().find(|(g, _)| *g == s) {
                Some((_, v)) => v.push(b),
                None => groups.push((s, vec![b])),
            }
        }
        for (_, members) in groups {
            for chunk in members.chunks(k) {
                for &b in chunk {
                    obg_of_block[b as usize] = n_obg as u32;
                }
                n_obg += 1;
            }
        }
    }
    (obg_of_block, n_obg)
}

/// The tract groups of one county's tracts `trs` (lists of positions in `trs`), greedy, and the number of
/// merges made.
fn tract_groups(
    sp: &Spine,
    trs: &[u32],
    blocks_of: &HashMap<u32, Vec<u32>>,
    obg_of_block: &[u32],
    opts: &Alg2Opts,
) -> (Vec<Vec<usize>>, usize) {
    let per_tract = tract_oseds(sp, trs, blocks_of, obg_of_block);
    let mut merges = 0usize;
    let limit = cap(trs.len(), opts.fanout_cutoff);
    let mut tgs: Vec<Vec<usize>> = if opts.identical_tracts {
        let sets: Vec<Vec<(usize, u32)>> = trs
            .iter()
            .map(|&tr| {
                let mut s: Vec<(usize, u32)> =
                    blocks_of[&tr].iter().flat_map(|&b| sp.ose.iter().enumerate().map(move |(k, o)| (k, o.of_block[b as usize]))).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        let g = identical_tract_groups(&sets, limit);
        merges += trs.len() - g.len();
        g
    } else {
        (0..trs.len()).map(|i| vec![i]).collect()
    };
    // the entities in the objective: all, or those the threshold does not set aside
    let kept: Vec<&TractOsed> = per_tract
        .iter()
        .filter(|pt| {
            opts.entity_threshold.is_none_or(|th| {
                let (a, b) = pt.iter().fold((0u64, 0u64), |(a, b), &(x, y)| (a + x, b + y));
                a.min(1 + b) > th
            })
        })
        .collect();
    if opts.entity_threshold.is_some() && kept.is_empty() {
        // production: no entity to bring closer — the tract groups combined in order, `limit` at a time
        let before = tgs.len();
        tgs = tgs.chunks(limit.max(1)).map(|c| c.concat()).collect();
        let m = merges + before - tgs.len();
        return (tgs, m);
    }
    let (tgs, m) = greedy_merges(tgs, &kept, limit);
    (tgs, merges + m)
}

/// For each entity meeting the county's tracts `trs`, each tract's (c_k, c_k'): the OSED counts of the
/// entity and its complement through the tract's optimized block groups.
fn tract_oseds(sp: &Spine, trs: &[u32], blocks_of: &HashMap<u32, Vec<u32>>, obg_of_block: &[u32]) -> Vec<TractOsed> {
    let mut ents: Vec<(usize, u32)> = Vec::new();
    for &tr in trs {
        for &b in &blocks_of[&tr] {
            for (k, o) in sp.ose.iter().enumerate() {
                let e = o.of_block[b as usize];
                if e != NONE && !ents.contains(&(k, e)) {
                    ents.push((k, e));
                }
            }
        }
    }
    ents.iter()
        .map(|&(k, e)| {
            trs.iter()
                .map(|&tr| {
                    // blocks → OBGs → tract
                    let mut by_obg: HashMap<u32, (u64, u64)> = HashMap::new();
                    for &b in &blocks_of[&tr] {
                        let inside = sp.ose[k].of_block[b as usize] == e;
                        let s = by_obg.entry(obg_of_block[b as usize]).or_insert((0, 0));
                        if inside {
                            s.0 += 1;
                        } else {
                            s.1 += 1;
                        }
                    }
                    let (mut sk, mut skc) = (0u64, 0u64);
                    for (a, bb) in by_obg.into_values() {
                        sk += a.min(1 + bb);
                        skc += bb.min(1 + a);
                    }
                    (sk.min(1 + skc), skc.min(1 + sk))
                })
                .collect()
        })
        .collect()
}

/// Merge tract groups greedily while the descending-sorted OSEDs of the `kept` entities do not grow
/// (lexicographic ≤), at most `limit` tracts a group. The groups and the number of merges.
fn greedy_merges(mut tgs: Vec<Vec<usize>>, kept: &[&TractOsed], limit: usize) -> (Vec<Vec<usize>>, usize) {
    let objective = |tgs: &Vec<Vec<usize>>| -> Vec<u64> {
        let mut v: Vec<u64> = kept
            .iter()
            .map(|pt| {
                let (mut sk, mut skc) = (0u64, 0u64);
                for g in tgs {
                    let a: u64 = g.iter().map(|&i| pt[i].0).sum();
                    let b: u64 = g.iter().map(|&i| pt[i].1).sum();
                    sk += a.min(1 + b);
                    skc += b.min(1 + a);
                }
                sk.min(1 + skc)
            })
            .collect();
        v.sort_by(|a, b| b.cmp(a));
        v
    };
    let mut merges = 0usize;
    let mut current = objective(&tgs);
    let mut finalized = vec![false; tgs.len()];
    loop {
        let mut merged = false;
        'outer: for i in 0..tgs.len() {
            if finalized[i] {
                continue;
            }
            for j in i + 1..tgs.len() {
                if finalized[j] || tgs[i].len() + tgs[j].len() > limit {
                    continue;
                }
                let mut test = tgs.clone();
                let moved = test.remove(j);
                test[i].extend(moved);
                let obj = objective(&test);
                if obj <= current {
                    // lexicographic ≤ on the descending-sorted OSEDs (Vec's Ord is lexicographic)
                    current = obj;
                    tgs = test;
                    finalized.remove(j);
                    merges += 1;
                    merged = true;
                    break 'outer;
                }
            }
            finalized[i] = true;
        }
        if !merged {
            return (tgs, merges);
        }
    }
}

/// The new geography file: the levels down to the county, Tract Group, the tract, Optimized Block Group,
/// the blocks, and the off-spine entities.
fn redefined_geography(
    sp: &Spine,
    (c, t): (usize, usize),
    tract_of_block: &[u32],
    tg_of_tract: &HashMap<u32, usize>,
    obg_of_block: &[u32],
) -> Fallible<String> {
    let nl = sp.n_levels();
    let mut levels: Vec<String> = sp.levels[..=c].to_vec();
    levels.push("Tract Group".into());
    levels.push(sp.levels[t].clone());
    levels.push("Optimized Block Group".into());
    for n in ["Tract Group", "Optimized Block Group"] {
        if levels.iter().filter(|l| norm_name(l) == norm_name(n)).count() > 1 {
            return fallible!(Input, "Algorithm 2: the input spine already has a geolevel named '{n}' above the tracts");
        }
    }
    let mut csv = String::new();
    let mut hdr: Vec<String> = vec![csv_field(&sp.levels[nl - 1]).into_owned()];
    hdr.extend(levels.iter().map(|l| csv_field(l).into_owned()));
    hdr.extend(sp.ose.iter().map(|o| csv_field(&format!("ose:{}", o.name)).into_owned()));
    csv += &hdr.join(",");
    csv.push('\n');
    for (b, &u) in sp.blocks.iter().enumerate() {
        let path = sp.path(u);
        let mut row: Vec<String> = vec![sp.ids[u as usize].clone()];
        for &a in &path[..=c] {
            row.push(sp.ids[a as usize].clone());
        }
        let tr = tract_of_block[b];
        row.push(format!("{}~TG{}", sp.ids[path[c] as usize], tg_of_tract[&tr] + 1));
        row.push(sp.ids[tr as usize].clone());
        row.push(format!("{}~BG{}", sp.ids[tr as usize], obg_of_block[b] + 1));
        for o in &sp.ose {
            let e = o.of_block[b];
            row.push(if e == NONE { String::new() } else { o.entities[e as usize].clone() });
        }
        csv += &row.iter().map(|s| csv_field(s).into_owned()).collect::<Vec<_>>().join(",");
        csv.push('\n');
    }
    Ok(csv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_spanning_two_tracts_gets_one_tract_group() {
        // one county, four tracts A..D of four blocks; entity E covers tracts A and B entirely, and two
        // blocks of C; entity F is one block of D
        let mut g = String::from("Block,US,County,Tract,BG,ose:e\n");
        for (tr, ents) in [("A", ["E", "E", "E", "E"]), ("B", ["E", "E", "E", "E"]), ("C", ["E", "", "E", ""]), ("D", ["F", "", "", ""])] {
            for (i, e) in ents.iter().enumerate() {
                g += &format!("{tr}{i},US,K,{tr},{tr}bg,{e}\n");
            }
        }
        let sp = Spine::from_reader(g.as_bytes()).unwrap();
        // 4 tracts: cap = 2 + 0 tracts per tract group; 4 blocks per tract: cap = 2 + 0 blocks per OBG
        let r = redefine(&sp, "County", "Tract", 0).unwrap();
        assert_eq!(r.spine.levels, vec!["US", "County", "Tract Group", "Tract", "Optimized Block Group", "Block"]);
        // before (eqs. 4.1–4.4 by hand): E = A + B + two blocks of C = 4 units; F = its block = 1
        assert_eq!(r.osed_before[0], vec![4, 1]);
        let s = &r.spine;
        let tg = s.level_index("Tract Group").unwrap();
        let tg_of = |tract: &str| s.parent[s.ids.iter().position(|x| x == tract).unwrap()];
        assert_eq!(tg_of("A"), tg_of("B"), "A and B share a tract group");
        assert!(s.level_stats()[tg].fanout_max <= 2);
        // after: E = TG(A,B) + the OBG of C's E-blocks = 2; F = its OBG of one block = 1
        assert_eq!(r.osed_after[0], vec![2, 1]);
        // OBGs: one OSE signature each, at most 2 blocks
        let obg = s.level_index("Optimized Block Group").unwrap();
        for u in 0..s.n_units() as u32 {
            if s.level[u as usize] as usize == obg {
                let ch = s.children(u);
                assert!(ch.len() <= 2);
                let sigs: std::collections::HashSet<u32> = ch.iter().map(|&b| s.ose[0].of_block[s.block_no[b as usize] as usize]).collect();
                assert_eq!(sigs.len(), 1);
            }
        }
    }

    #[test]
    fn bundled_geography_keeps_blocks_and_does_not_worsen_the_largest_distances() {
        let sp = Spine::from_path(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/topdown/redistricting-small.csv")).unwrap();
        let r = redefine(&sp, "County", "Tract", 2).unwrap();
        assert_eq!(r.spine.blocks.len(), sp.blocks.len());
        for (b, &u) in r.spine.blocks.iter().enumerate() {
            assert_eq!(r.spine.ids[u as usize], sp.ids[sp.blocks[b] as usize]);
            // same county and tract ancestors
            let (p0, p1) = (sp.path(sp.blocks[b]), r.spine.path(u));
            assert_eq!(sp.ids[p0[2] as usize], r.spine.ids[p1[2] as usize]);
            assert_eq!(sp.ids[p0[3] as usize], r.spine.ids[p1[4] as usize]);
        }
        for k in 0..sp.ose.len() {
            let (b, a) = (&r.osed_before[k], &r.osed_after[k]);
            assert!(a.iter().sum::<u64>() <= b.iter().sum::<u64>(), "category {k}: {a:?} vs {b:?}");
        }
        assert!(Spine::from_reader(r.csv.as_bytes()).is_ok());
        assert!(redefine(&sp, "State", "Tract", 2).is_err());
    }

    /// One county K, five tracts of two blocks: T1, T3, T4 entirely in entity E, T2 in F, T5 in none
    /// (cut-off 0: ⌊√5⌋ = 2 tracts per tract group, ⌊√2⌋ = 1 block per optimized block group).
    fn five_tracts() -> Spine {
        let mut g = String::from("Block,US,County,Tract,BG,ose:e\n");
        for (tr, e) in [("T1", "E"), ("T2", "F"), ("T3", "E"), ("T4", "E"), ("T5", "")] {
            for i in 0..2 {
                g += &format!("{tr}{i},US,K,{tr},{tr}bg,{e}\n");
            }
        }
        Spine::from_reader(g.as_bytes()).unwrap()
    }

    fn tract_groups(r: &Alg2) -> Vec<Vec<String>> {
        let s = &r.spine;
        let tg = s.level_index("Tract Group").unwrap();
        let mut v: Vec<Vec<String>> = (0..s.n_units() as u32)
            .filter(|&u| s.level[u as usize] as usize == tg)
            .map(|u| {
                let mut t: Vec<String> = s.children(u).iter().map(|&c| s.ids[c as usize].clone()).collect();
                t.sort();
                t
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_production_pre_pass_combines_tracts_with_identical_entity_sets() {
        // entity sets {E}, {F}, {E}, {E}, {none}: T1 takes T3 and T4, two at a time → [T1, T3], [T4]
        let sets: Vec<Vec<(usize, u32)>> = vec![vec![(0, 0)], vec![(0, 1)], vec![(0, 0)], vec![(0, 0)], vec![(0, NONE)]];
        assert_eq!(identical_tract_groups(&sets, 2), vec![vec![0, 2], vec![1], vec![3], vec![4]]);
        let sp = five_tracts();
        // the paper's greedy alone pairs T1 with T2 first (ties accepted): {T1,T2}, {T3,T4}, {T5}
        let paper = redefine(&sp, "County", "Tract", 0).unwrap();
        assert_eq!(tract_groups(&paper), vec![vec!["T1", "T2"], vec!["T3", "T4"], vec!["T5"]]);
        // with the pre-pass T1 and T3 are one group before the search, which then pairs T2 with T4:
        // E = TG(T1,T3) + TG(T2,T4) − T2 (eqs. 4.1–4.4: 2 after the tie-accepting merge), F = 1
        let opts = Alg2Opts { fanout_cutoff: 0, identical_tracts: true, entity_threshold: None };
        let pre = redefine_with(&sp, "County", "Tract", &opts).unwrap();
        assert_eq!(tract_groups(&pre), vec![vec!["T1", "T3"], vec!["T2", "T4"], vec!["T5"]]);
        assert_eq!(pre.osed_after[0], vec![2, 1]);
    }

    #[test]
    fn the_entity_threshold_sets_close_entities_aside() {
        // within the county without tract groups E = min(3, 1 + 2) = 3 and F = 1: both ≤ 9, so no
        // search: the pre-pass groups [T1,T3], [T2], [T4], [T5] are combined two at a time
        let sp = five_tracts();
        let opts = Alg2Opts { fanout_cutoff: 0, identical_tracts: true, entity_threshold: Some(9) };
        let r = redefine_with(&sp, "County", "Tract", &opts).unwrap();
        assert_eq!(tract_groups(&r), vec![vec!["T1", "T2", "T3"], vec!["T4", "T5"]]);
        // a threshold of 2 keeps E (3 > 2) in the objective: the search runs as with no threshold
        let opts = Alg2Opts { entity_threshold: Some(2), ..opts };
        let r2 = redefine_with(&sp, "County", "Tract", &opts).unwrap();
        assert_eq!(tract_groups(&r2), vec![vec!["T1", "T3"], vec!["T2", "T4"], vec!["T5"]]);
    }
}
