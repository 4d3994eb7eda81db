//! Geographic spines ([CAK24, §1], §3, §4, §5).
//!
//! Input: a block-level geography CSV, one row per block:
//!
//! ```text
//! block,US,State,County,Tract,Optimized Block Group,ose:place,ose:aian
//! 0100100010001,US,01,01001,0100100010,01001000100A,01-P3,
//! ```
//!
//! The first column is the block GEOID; its header names the block geolevel. The following
//! columns, up to the first `ose:` column, are the block's ancestors from the top of the spine
//! (a single root, the US) down to its parent; their headers name the geolevels. Columns named
//! `ose:CATEGORY` give the id of the off-spine entity of that category containing the block
//! (empty: none). Geounit ids are global (as GEOIDs are): an id used at two geolevels makes the
//! parent relation cyclic or ambiguous and is rejected, as are a geounit with two parents, an empty
//! (unknown) parent, a second root, and duplicate blocks.
//!
//! The tree is stored with children contiguous (CSR). Budget shares per geounit are kept as a
//! *span* of geolevels: a measured geounit at level l with span k has share
//! γ = β[l] + … + β[l+k−1]; span 0 means not measured (bypassed). Without bypass every span is 1.

use crate::census::allocation::norm_name;
use crate::error::Fallible;
use crate::{err, fallible};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub use crate::topdown::geography::generate::GeoSpec;

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct OseCategory {
    pub name: String,
    /// Entity ids.
    pub entities: Vec<String>,
    /// For each block (in block order), the entity index or NONE.
    pub of_block: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Spine {
    /// Geolevel names, top (root) to bottom (blocks).
    pub levels: Vec<String>,
    pub ids: Vec<String>,
    pub level: Vec<u8>,
    pub parent: Vec<u32>,
    /// Children of unit u: child_idx[child_start[u]..child_start[u+1]].
    pub child_start: Vec<u32>,
    pub child_idx: Vec<u32>,
    pub root: u32,
    /// Unit index of each block, in file order.
    pub blocks: Vec<u32>,
    /// Block number (position in `blocks`) of each unit, or NONE for non-blocks.
    pub block_no: Vec<u32>,
    pub ose: Vec<OseCategory>,
    /// Budget span per unit (see module doc).
    pub span: Vec<u8>,
    pub bypass: Bypass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Bypass {
    /// No bypass: every geounit measured with its level's share (Theorem 1)
    None,
    /// zCDP rule (§5, Observation 1, Algorithm 3): bypass parents with a single child
    Zcdp,
    /// Pure-DP rule (Theorem 2, Algorithm 3's pure-DP branch, `alg3.rs`): also parents whose c
    /// children each have share ≥ (c − 1)/2 of theirs (the tree is restructured)
    PureDp,
}

impl Bypass {
    pub fn as_str(&self) -> &'static str {
        match self {
            Bypass::None => "none",
            Bypass::Zcdp => "zcdp-single-child",
            Bypass::PureDp => "pure-dp-theorem2",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LevelStats {
    pub name: String,
    pub units: usize,
    pub measured: usize,
    pub fanout_min: usize,
    pub fanout_max: usize,
    pub fanout_mean: f64,
}

impl Spine {
    pub fn n_units(&self) -> usize {
        self.ids.len()
    }
    pub fn n_levels(&self) -> usize {
        self.levels.len()
    }
    pub fn children(&self, u: u32) -> &[u32] {
        &self.child_idx[self.child_start[u as usize] as usize..self.child_start[u as usize + 1] as usize]
    }
    pub fn level_index(&self, name: &str) -> Option<usize> {
        let k = norm_name(name);
        self.levels.iter().position(|l| norm_name(l) == k)
    }

    /// Read and validate a geography file.
    pub fn from_path(path: &Path) -> Fallible<Spine> {
        let f = std::fs::File::open(path).map_err(|e| err!(Io, "cannot read geography file '{}': {e}", path.display()))?;
        Spine::from_reader(std::io::BufReader::new(f)).map_err(|e| e.context(format!("geography file '{}'", path.display())))
    }

    pub fn from_reader<R: std::io::Read>(r: R) -> Fallible<Spine> {
        let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(r);
        let header = rdr.headers().map_err(|e| crate::error::Error::from(e).context("bad header"))?.clone();
        let (levels, first_ose, ose_names) = parse_header(&header)?;
        let nl = levels.len();
        let mut tree = TreeBuilder::default();
        let mut blocks: Vec<u32> = Vec::new();
        let mut ose_maps: Vec<HashMap<String, u32>> = vec![HashMap::new(); ose_names.len()];
        let mut ose_ents: Vec<Vec<String>> = vec![Vec::new(); ose_names.len()];
        let mut ose_of: Vec<Vec<u32>> = vec![Vec::new(); ose_names.len()];
        let mut rec = csv::StringRecord::new();
        let mut row = 1usize;
        let mut chain: Vec<u32> = Vec::with_capacity(nl);
        while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("line {}", row + 1)))? {
            row += 1;
            chain.clear();
            // fields in order top..bottom: ancestors 1..first_ose, then block 0
            for li in 0..nl {
                let col = if li + 1 == nl { 0 } else { li + 1 };
                let id = rec[col].trim();
                if id.is_empty() {
                    return fallible!(Input, "line {row}: block '{}' has an unknown parent: empty {} id", rec[0].trim(), levels[li]);
                }
                let u = tree.add(id, li, &chain, row, &levels)?;
                chain.push(u);
            }
            let b = *chain.last().expect("invariant: a non-empty chain");
            blocks.push(b);
            for (k, col) in (first_ose..header.len()).enumerate() {
                let e = rec[col].trim();
                if e.is_empty() {
                    ose_of[k].push(NONE);
                } else {
                    let n = ose_ents[k].len() as u32;
                    let idx = *ose_maps[k].entry(e.to_string()).or_insert_with(|| {
                        ose_ents[k].push(e.to_string());
                        n
                    });
                    ose_of[k].push(idx);
                }
            }
        }
        if blocks.is_empty() {
            return fallible!(Input, "no blocks");
        }
        let ose = ose_names
            .into_iter()
            .zip(ose_ents)
            .zip(ose_of)
            .map(|((name, entities), of_block)| OseCategory { name, entities, of_block })
            .collect();
        let TreeBuilder { ids, level, parent, .. } = tree;
        Spine::assemble(levels, ids, level, parent, blocks, ose)
    }

    pub(crate) fn assemble(
        levels: Vec<String>,
        ids: Vec<String>,
        level: Vec<u8>,
        parent: Vec<u32>,
        blocks: Vec<u32>,
        ose: Vec<OseCategory>,
    ) -> Fallible<Spine> {
        let n = ids.len();
        let mut count = vec![0u32; n + 1];
        for &p in &parent {
            if p != NONE {
                count[p as usize] += 1;
            }
        }
        let mut child_start = vec![0u32; n + 1];
        for u in 0..n {
            child_start[u + 1] = child_start[u] + count[u];
        }
        let mut fill = child_start.clone();
        let mut child_idx = vec![0u32; n.saturating_sub(1)];
        for (u, &p) in parent.iter().enumerate() {
            if p != NONE {
                child_idx[fill[p as usize] as usize] = u as u32;
                fill[p as usize] += 1;
            }
        }
        let mut block_no = vec![NONE; n];
        for (i, &b) in blocks.iter().enumerate() {
            block_no[b as usize] = i as u32;
        }
        let roots: Vec<usize> = (0..n).filter(|&u| parent[u] == NONE).collect();
        if roots.len() != 1 {
            return fallible!(Input, "the spine needs exactly one root, found {}", roots.len());
        }
        let span = vec![1u8; n];
        Ok(Spine {
            levels,
            ids,
            level,
            parent,
            child_start,
            child_idx,
            root: roots[0] as u32,
            blocks,
            block_no,
            ose,
            span,
            bypass: Bypass::None,
        })
    }

    /// Apply a bypass rule (Algorithm 3 of the spines paper, zCDP branch): from the level above the
    /// blocks up to the root, every geounit with a single child absorbs that child's budget span
    /// (the TDA's operation: the parent's copy is measured with γ_parent + γ_child, the child with
    /// γ = 0). Bottom-up order makes one pass sufficient; path sums are unchanged (Theorem 3).
    /// `PureDp` does the same here: its multi-child bypasses change the tree and are made by
    /// `alg3::pareto_frontier`, whose spine this rule then reproduces (a run reloads it so).
    pub fn apply_bypass(&mut self, rule: Bypass) -> usize {
        self.span.iter_mut().for_each(|s| *s = 1);
        self.bypass = rule;
        if rule == Bypass::None {
            return 0;
        }
        let mut by_level: Vec<Vec<u32>> = vec![Vec::new(); self.n_levels()];
        for u in 0..self.n_units() {
            by_level[self.level[u] as usize].push(u as u32);
        }
        let mut n = 0;
        for l in (0..self.n_levels() - 1).rev() {
            for &u in &by_level[l] {
                let ch = self.children(u);
                if ch.len() == 1 {
                    let c = ch[0] as usize;
                    self.span[u as usize] += self.span[c];
                    self.span[c] = 0;
                    n += 1;
                }
            }
        }
        n
    }

    /// Path of a block from the root: unit indices, root first.
    pub fn path(&self, block_unit: u32) -> Vec<u32> {
        let mut p = vec![block_unit];
        let mut u = block_unit;
        while self.parent[u as usize] != NONE {
            u = self.parent[u as usize];
            p.push(u);
        }
        p.reverse();
        p
    }

    /// Theorem 3: along every root-to-block path the measured geounits' spans tile the geolevels
    /// exactly once, so their shares sum to Σ_l β[l] = 1. Returns the distinct path signatures
    /// ((level, span) of the measured units) with their block counts.
    pub fn path_signatures(&self) -> Fallible<BTreeMap<Vec<(u8, u8)>, u64>> {
        let mut sig: Vec<Vec<(u8, u8)>> = vec![Vec::new(); self.n_units()];
        // preorder: parents before children (ids were created top-down per row, so parent < child)
        let mut out = BTreeMap::new();
        for u in 0..self.n_units() {
            let p = self.parent[u];
            let mut s = if p == NONE { Vec::new() } else { sig[p as usize].clone() };
            if self.span[u] > 0 {
                s.push((self.level[u], self.span[u]));
            }
            if self.block_no[u] != NONE {
                let mut next = 0u32;
                for &(l, k) in &s {
                    if l as u32 != next {
                        return fallible!(Input, "block '{}': budget path does not cover geolevel {} exactly once", self.ids[u], next);
                    }
                    next += k as u32;
                }
                if next as usize != self.n_levels() {
                    return fallible!(Input, "block '{}': budget path covers {} of {} geolevels", self.ids[u], next, self.n_levels());
                }
                *out.entry(s).or_insert(0u64) += 1;
                sig[u] = Vec::new();
            } else {
                sig[u] = s;
            }
        }
        Ok(out)
    }

    pub fn level_stats(&self) -> Vec<LevelStats> {
        let nl = self.n_levels();
        let mut st: Vec<LevelStats> = self
            .levels
            .iter()
            .map(|n| LevelStats { name: n.clone(), units: 0, measured: 0, fanout_min: usize::MAX, fanout_max: 0, fanout_mean: 0.0 })
            .collect();
        for u in 0..self.n_units() {
            let s = &mut st[self.level[u] as usize];
            s.units += 1;
            if self.span[u] > 0 {
                s.measured += 1;
            }
            if (self.level[u] as usize) + 1 < nl {
                let c = self.children(u as u32).len();
                s.fanout_min = s.fanout_min.min(c);
                s.fanout_max = s.fanout_max.max(c);
                s.fanout_mean += c as f64;
            }
        }
        for s in st.iter_mut() {
            if s.fanout_min == usize::MAX {
                s.fanout_min = 0;
            }
            if s.units > 0 {
                s.fanout_mean /= s.units as f64;
            }
        }
        st[nl - 1].fanout_mean = 0.0;
        st
    }

    /// Post-order of all units (children before parents), iterative.
    pub fn postorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.n_units());
        let mut stack: Vec<(u32, u32)> = vec![(self.root, 0)];
        while let Some(&mut (u, ref mut i)) = stack.last_mut() {
            let ch = self.children(u);
            if (*i as usize) < ch.len() {
                let c = ch[*i as usize];
                *i += 1;
                stack.push((c, 0));
            } else {
                out.push(u);
                stack.pop();
            }
        }
        out
    }

    /// Off-spine entity distance (eqs. 4.1–4.4): the minimum number of on-spine geounits to add or
    /// subtract to form the entity. `member[b]` says whether block number b is in the entity.
    /// Geounits that are bypassed (span 0) are not on the measured spine and cannot be used, except
    /// that a bypassed single child has the same extent as its measured parent.
    pub fn osed(&self, member: &[bool]) -> u64 {
        let order = self.postorder();
        let mut c = vec![(0u64, 0u64); self.n_units()];
        for &u in &order {
            let ui = u as usize;
            let b = self.block_no[ui];
            let (ck, ckc) = if b != NONE {
                if member[b as usize] {
                    (1, 0)
                } else {
                    (0, 1)
                }
            } else {
                let (mut sk, mut skc) = (0u64, 0u64);
                for &ch in self.children(u) {
                    sk += c[ch as usize].0;
                    skc += c[ch as usize].1;
                }
                ((sk).min(1 + skc), (skc).min(1 + sk))
            };
            c[ui] = (ck, ckc);
        }
        c[self.root as usize].0
    }

    /// Members (by block number) of entity e of OSE category k.
    pub fn ose_members(&self, k: usize, e: u32) -> Vec<bool> {
        self.ose[k].of_block.iter().map(|&x| x == e).collect()
    }
}

/// The geography file's header: the geolevels (ancestors top to bottom, then the block level), the index
/// of the first `ose:` column and the off-spine categories' names, validated.
fn parse_header(header: &csv::StringRecord) -> Fallible<(Vec<String>, usize, Vec<String>)> {
    if header.len() < 2 {
        return fallible!(Input, "the header needs a block column and at least one ancestor column");
    }
    let first_ose = header.iter().position(|h| h.starts_with("ose:")).unwrap_or(header.len());
    if first_ose < 2 {
        return fallible!(Input, "the header needs a block column and at least one ancestor column before the ose: columns");
    }
    if header.iter().skip(first_ose).any(|h| !h.starts_with("ose:")) {
        return fallible!(Input, "ancestor columns must come before all ose: columns");
    }
    // levels: ancestors top..bottom, then the block level
    let mut levels: Vec<String> = header.iter().skip(1).take(first_ose - 1).map(|s| s.trim().to_string()).collect();
    levels.push(header[0].trim().to_string());
    let mut seen = std::collections::HashSet::new();
    for l in &levels {
        if l.is_empty() {
            return fallible!(Input, "empty geolevel name in the header");
        }
        if !seen.insert(norm_name(l)) {
            return fallible!(Input, "geolevel '{l}' appears twice in the header");
        }
    }
    if levels.len() > 250 {
        return fallible!(Input, "too many geolevels");
    }
    let ose_names: Vec<String> = header.iter().skip(first_ose).map(|h| h["ose:".len()..].trim().to_string()).collect();
    for (i, o) in ose_names.iter().enumerate() {
        if o.is_empty() || ose_names[..i].iter().any(|p| norm_name(p) == norm_name(o)) {
            return fallible!(Input, "off-spine category 'ose:{o}' is empty or appears twice in the header");
        }
    }
    Ok((levels, first_ose, ose_names))
}

/// The geounits read so far: ids, geolevels and parents, indexed by id.
#[derive(Default)]
struct TreeBuilder {
    index: HashMap<String, u32>,
    ids: Vec<String>,
    level: Vec<u8>,
    parent: Vec<u32>,
}

impl TreeBuilder {
    /// The geounit `id` at geolevel `li` below the row's `chain` of ancestors (new, or the one seen before,
    /// which must sit at the same level under the same parent): the spine stays a tree with one root.
    fn add(&mut self, id: &str, li: usize, chain: &[u32], row: usize, levels: &[String]) -> Fallible<u32> {
        let (ids, level, parent) = (&self.ids, &self.level, &self.parent);
        if let Some(&prev) = chain.iter().find(|&&u| ids[u as usize] == id) {
            return fallible!(
                Input,
                "line {row}: geounit '{id}' is its own ancestor ({} and {}): the spine would contain a cycle",
                levels[level[prev as usize] as usize],
                levels[li]
            );
        }
        let par = chain.last().copied().unwrap_or(NONE);
        if let Some(&u) = self.index.get(id) {
            if level[u as usize] as usize != li {
                return fallible!(
                    Input,
                    "line {row}: geounit '{id}' appears at two geolevels ({} and {}): the spine would not be a tree",
                    levels[level[u as usize] as usize],
                    levels[li]
                );
            }
            if li + 1 == levels.len() {
                return fallible!(Input, "line {row}: duplicate block '{id}'");
            }
            if parent[u as usize] != par {
                return fallible!(
                    Input,
                    "line {row}: {} '{id}' has two parents, '{}' and '{}'",
                    levels[li],
                    ids[parent[u as usize] as usize],
                    ids[par as usize]
                );
            }
            return Ok(u);
        }
        if li == 0 && !ids.is_empty() {
            return fallible!(Input, "line {row}: a second root '{id}' at {} (the spine needs a single root)", levels[0]);
        }
        let u = ids.len() as u32;
        if u == NONE {
            return fallible!(Input, "too many geounits");
        }
        self.ids.push(id.to_string());
        self.level.push(li as u8);
        self.parent.push(par);
        self.index.insert(id.to_string(), u);
        Ok(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEO: &str = "block,US,State,County\n\
        b1,US,S1,C1\nb2,US,S1,C1\nb3,US,S1,C2\nb4,US,S2,C3\nb5,US,S2,C3\nb6,US,S2,C3\n";

    #[test]
    fn builds_tree_with_fanouts() {
        let s = Spine::from_reader(GEO.as_bytes()).unwrap();
        assert_eq!(s.levels, vec!["US", "State", "County", "block"]);
        assert_eq!(s.n_units(), 1 + 2 + 3 + 6);
        assert_eq!(s.blocks.len(), 6);
        let st = s.level_stats();
        assert_eq!((st[0].fanout_min, st[0].fanout_max), (2, 2));
        assert_eq!((st[2].fanout_min, st[2].fanout_max), (1, 3));
        assert_eq!(s.postorder().len(), s.n_units());
        assert_eq!(*s.postorder().last().unwrap(), s.root);
    }

    #[test]
    fn zcdp_bypass_keeps_path_sums() {
        let mut s = Spine::from_reader(GEO.as_bytes()).unwrap();
        let sig0 = s.path_signatures().unwrap();
        assert_eq!(sig0.len(), 1);
        // C2 has one child (b3): b3's span moves up to C2; S2 has one child (C3): C3's span moves to S2
        let n = s.apply_bypass(Bypass::Zcdp);
        assert_eq!(n, 2);
        let sig = s.path_signatures().unwrap();
        assert_eq!(sig.len(), 3);
        assert_eq!(sig[&vec![(0, 1), (1, 1), (2, 2)]], 1);
        assert_eq!(sig[&vec![(0, 1), (1, 2), (3, 1)]], 3);
        assert_eq!(sig[&vec![(0, 1), (1, 1), (2, 1), (3, 1)]], 2);
        // a chain of single children accumulates at its top
        let g = "block,US,A,B\nb1,US,a1,x1\n";
        let mut s = Spine::from_reader(g.as_bytes()).unwrap();
        s.apply_bypass(Bypass::Zcdp);
        assert_eq!(s.span, vec![4, 0, 0, 0]);
        assert_eq!(s.path_signatures().unwrap().into_keys().next().unwrap(), vec![(0, 4)]);
    }

    #[test]
    fn bad_geographies_are_rejected() {
        let cases = [
            ("block,US,State\nb1,US,S1\nb1,US,S1\n", "duplicate block"),
            ("block,US,State\nb1,US,S1\nb2,US2,S2\n", "second root"),
            ("block,US,State,County\nb1,US,S1,C1\nb2,US,S2,C1\n", "two parents"),
            ("block,US,State,County\nb1,US,S1,S1\n", "cycle"),
            ("block,US,State,County\nb1,US,S1,C1\nb2,US,C1,C2\n", "two geolevels"),
            ("block,US,State\nb1,US,\n", "unknown parent"),
            ("block,US,State\n", "no blocks"),
            ("block,US,State\nb1,US\n", "line 2"),
        ];
        for (g, want) in cases {
            let e = Spine::from_reader(g.as_bytes()).unwrap_err();
            assert!(e.to_string().contains(want), "{e:?} should mention {want:?}");
        }
    }

    #[test]
    fn osed_examples_of_the_research_notes() {
        // root → A{a1,a2,a3}, B{b1..b4}
        let g = "block,US,T\na1,US,A\na2,US,A\na3,US,A\nb1,US,B\nb2,US,B\nb3,US,B\nb4,US,B\n";
        let s = Spine::from_reader(g.as_bytes()).unwrap();
        let m = |v: &[usize]| {
            let mut x = vec![false; 7];
            for &i in v {
                x[i] = true;
            }
            x
        };
        assert_eq!(s.osed(&m(&[0, 1, 2])), 1);
        assert_eq!(s.osed(&m(&[0, 1])), 2);
        assert_eq!(s.osed(&m(&[0, 1, 2, 3])), 2);
        assert_eq!(s.osed(&m(&[0, 3, 4, 5])), 3);
        assert_eq!(s.osed(&m(&[0, 1, 2, 3, 4, 5, 6])), 1);
    }
}
