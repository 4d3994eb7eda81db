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
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

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
}

impl Bypass {
    pub fn as_str(&self) -> &'static str {
        match self {
            Bypass::None => "none",
            Bypass::Zcdp => "zcdp-single-child",
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
    pub fn from_path(path: &Path) -> Result<Spine, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("cannot read geography file '{}': {e}", path.display()))?;
        Spine::from_reader(std::io::BufReader::new(f)).map_err(|e| format!("geography file '{}': {e}", path.display()))
    }

    pub fn from_reader<R: std::io::Read>(r: R) -> Result<Spine, String> {
        let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(r);
        let header = rdr.headers().map_err(|e| format!("bad header: {e}"))?.clone();
        if header.len() < 2 {
            return Err("the header needs a block column and at least one ancestor column".into());
        }
        let first_ose = header.iter().position(|h| h.starts_with("ose:")).unwrap_or(header.len());
        if first_ose < 2 {
            return Err("the header needs a block column and at least one ancestor column before the ose: columns".into());
        }
        if header.iter().skip(first_ose).any(|h| !h.starts_with("ose:")) {
            return Err("ancestor columns must come before all ose: columns".into());
        }
        // levels: ancestors top..bottom, then the block level
        let mut levels: Vec<String> = header.iter().skip(1).take(first_ose - 1).map(|s| s.trim().to_string()).collect();
        levels.push(header[0].trim().to_string());
        {
            let mut seen = std::collections::HashSet::new();
            for l in &levels {
                if l.is_empty() {
                    return Err("empty geolevel name in the header".into());
                }
                if !seen.insert(norm_name(l)) {
                    return Err(format!("geolevel '{l}' appears twice in the header"));
                }
            }
        }
        if levels.len() > 250 {
            return Err("too many geolevels".into());
        }
        let nl = levels.len();
        let ose_names: Vec<String> = header.iter().skip(first_ose).map(|h| h["ose:".len()..].trim().to_string()).collect();
        for (i, o) in ose_names.iter().enumerate() {
            if o.is_empty() || ose_names[..i].iter().any(|p| norm_name(p) == norm_name(o)) {
                return Err(format!("off-spine category 'ose:{o}' is empty or appears twice in the header"));
            }
        }

        let mut index: HashMap<String, u32> = HashMap::new();
        let mut ids: Vec<String> = Vec::new();
        let mut level: Vec<u8> = Vec::new();
        let mut parent: Vec<u32> = Vec::new();
        let mut blocks: Vec<u32> = Vec::new();
        let mut ose_maps: Vec<HashMap<String, u32>> = vec![HashMap::new(); ose_names.len()];
        let mut ose_ents: Vec<Vec<String>> = vec![Vec::new(); ose_names.len()];
        let mut ose_of: Vec<Vec<u32>> = vec![Vec::new(); ose_names.len()];
        let mut rec = csv::StringRecord::new();
        let mut row = 1usize;
        let mut chain: Vec<u32> = Vec::with_capacity(nl);
        while rdr.read_record(&mut rec).map_err(|e| format!("line {}: {e}", row + 1))? {
            row += 1;
            chain.clear();
            // fields in order top..bottom: ancestors 1..first_ose, then block 0
            for li in 0..nl {
                let col = if li + 1 == nl { 0 } else { li + 1 };
                let id = rec[col].trim();
                if id.is_empty() {
                    return Err(format!("line {row}: block '{}' has an unknown parent: empty {} id", rec[0].trim(), levels[li]));
                }
                if let Some(&prev) = chain.iter().find(|&&u| ids[u as usize] == id) {
                    return Err(format!(
                        "line {row}: geounit '{id}' is its own ancestor ({} and {}): the spine would contain a cycle",
                        levels[level[prev as usize] as usize], levels[li]
                    ));
                }
                let par = chain.last().copied().unwrap_or(NONE);
                let u = match index.get(id) {
                    Some(&u) => {
                        if level[u as usize] as usize != li {
                            return Err(format!(
                                "line {row}: geounit '{id}' appears at two geolevels ({} and {}): the spine would not be a tree",
                                levels[level[u as usize] as usize], levels[li]
                            ));
                        }
                        if li + 1 == nl {
                            return Err(format!("line {row}: duplicate block '{id}'"));
                        }
                        if parent[u as usize] != par {
                            return Err(format!(
                                "line {row}: {} '{id}' has two parents, '{}' and '{}'",
                                levels[li], ids[parent[u as usize] as usize], ids[par as usize]
                            ));
                        }
                        u
                    }
                    None => {
                        if li == 0 && !ids.is_empty() {
                            return Err(format!("line {row}: a second root '{id}' at {} (the spine needs a single root)", levels[0]));
                        }
                        let u = ids.len() as u32;
                        if u == NONE {
                            return Err("too many geounits".into());
                        }
                        ids.push(id.to_string());
                        level.push(li as u8);
                        parent.push(par);
                        index.insert(id.to_string(), u);
                        u
                    }
                };
                chain.push(u);
            }
            let b = *chain.last().unwrap();
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
            return Err("no blocks".into());
        }
        let ose = ose_names
            .into_iter()
            .zip(ose_ents)
            .zip(ose_of)
            .map(|((name, entities), of_block)| OseCategory { name, entities, of_block })
            .collect();
        Spine::assemble(levels, ids, level, parent, blocks, ose)
    }

    fn assemble(
        levels: Vec<String>,
        ids: Vec<String>,
        level: Vec<u8>,
        parent: Vec<u32>,
        blocks: Vec<u32>,
        ose: Vec<OseCategory>,
    ) -> Result<Spine, String> {
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
            return Err(format!("the spine needs exactly one root, found {}", roots.len()));
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
    pub fn path_signatures(&self) -> Result<BTreeMap<Vec<(u8, u8)>, u64>, String> {
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
                        return Err(format!("block '{}': budget path does not cover geolevel {} exactly once", self.ids[u], next));
                    }
                    next += k as u32;
                }
                if next as usize != self.n_levels() {
                    return Err(format!("block '{}': budget path covers {} of {} geolevels", self.ids[u], next, self.n_levels()));
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

/// Most blocks a generated geography may have (the maximal fan-outs multiplied): 5×10⁷, six times the
/// ~8 million blocks of the US.
pub const MAX_BLOCKS: u64 = 50_000_000;

/// Parameters of a synthetic geography.
#[derive(Clone, Debug)]
pub struct GeoSpec {
    pub levels: Vec<String>,
    /// Fan-out range (min, max) for each level except the blocks.
    pub fanout: Vec<(u32, u32)>,
    pub seed: u64,
    /// Off-spine entity categories: name → fraction of blocks inside some entity.
    pub ose: Vec<(String, f64)>,
}

impl GeoSpec {
    pub fn parse(levels: &str, fanout: &str, seed: u64, ose: &str) -> Result<GeoSpec, String> {
        let levels: Vec<String> = levels.split(',').map(|s| s.trim().to_string()).collect();
        if levels.len() < 2 || levels.iter().any(|l| l.is_empty() || l.starts_with("ose:")) {
            return Err("--levels needs at least two non-empty geolevel names, top first".into());
        }
        // what the reader (from_reader) refuses is refused here, before anything is written
        if levels.len() > 250 {
            return Err("--levels: at most 250 geolevels".into());
        }
        for (i, l) in levels.iter().enumerate() {
            if levels[..i].iter().any(|m| norm_name(m) == norm_name(l)) {
                return Err(format!("--levels names geolevel '{l}' twice"));
            }
        }
        let mut fan: Vec<&str> = fanout.split(',').map(|s| s.trim()).collect();
        // one entry per geolevel is accepted too when the first is 1: the number of roots
        if fan.len() == levels.len() && fan[0] == "1" {
            fan.remove(0);
        }
        if fan.len() != levels.len() - 1 {
            return Err(format!(
                "--fanout needs {} entries (one per geolevel above the blocks), or {} starting with 1 (the single root), got {}",
                levels.len() - 1,
                levels.len(),
                fan.len()
            ));
        }
        let mut fanout = Vec::new();
        for f in fan {
            let (a, b) = f.split_once('-').unwrap_or((f, f));
            let a: u32 = a.trim().parse().map_err(|_| format!("bad fan-out '{f}'"))?;
            let b: u32 = b.trim().parse().map_err(|_| format!("bad fan-out '{f}'"))?;
            if a < 1 || b < a || b > 100_000 {
                return Err(format!("bad fan-out '{f}': need 1 ≤ min ≤ max ≤ 100000"));
            }
            fanout.push((a, b));
        }
        // the largest possible number of blocks (product of the maximal fan-outs), before anything is
        // drawn or written: each block is one CSV line of ~60 bytes
        let most: f64 = fanout.iter().map(|&(_, b)| b as f64).product();
        if most > MAX_BLOCKS as f64 {
            return Err(format!(
                "--fanout allows up to {most:.3e} blocks (about {:.1} GB of geography); the limit is {MAX_BLOCKS:e} (the US has about 8e6 blocks)",
                most * 60.0 / 1e9
            ));
        }
        let mut oses = Vec::new();
        if !ose.trim().is_empty() {
            for part in ose.split(',') {
                let (n, fr) = part.split_once(':').ok_or_else(|| format!("bad --ose entry '{part}': expected NAME:FRACTION"))?;
                let fr: f64 = fr.trim().parse().map_err(|_| format!("bad --ose fraction in '{part}'"))?;
                if !(0.0..=1.0).contains(&fr) || n.trim().is_empty() {
                    return Err(format!("bad --ose entry '{part}'"));
                }
                if oses.iter().any(|(m, _): &(String, f64)| norm_name(m) == norm_name(n)) {
                    return Err(format!("--ose names category '{}' twice", n.trim()));
                }
                oses.push((n.trim().to_string(), fr));
            }
        }
        Ok(GeoSpec { levels, fanout, seed, ose: oses })
    }

    /// Write the geography CSV (streamed, deterministic from the seed).
    pub fn write<W: Write>(&self, w: W) -> Result<u64, String> {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
        let nl = self.levels.len();
        let mut hdr = vec![self.levels[nl - 1].clone()];
        hdr.extend(self.levels[..nl - 1].iter().cloned());
        hdr.extend(self.ose.iter().map(|(n, _)| format!("ose:{n}")));
        let e = |e: std::io::Error| format!("write failed: {e}");
        writeln!(w, "{}", hdr.join(",")).map_err(e)?;
        let width: Vec<usize> = self.fanout.iter().map(|&(_, b)| (b.max(2) as f64 - 1.0).log10().floor() as usize + 1).collect();
        // OSE state per category: current entity id (run-length model along the block order)
        let mut ose_cur: Vec<Option<String>> = vec![None; self.ose.len()];
        let mut ose_count: Vec<u64> = vec![0; self.ose.len()];
        let mut nblocks = 0u64;
        // iterative DFS: stack of (level, id, remaining children)
        let mut path: Vec<String> = vec![self.levels[0].clone()];
        fn rec<W: Write>(
            spec: &GeoSpec,
            rng: &mut rand_chacha::ChaCha8Rng,
            w: &mut W,
            path: &mut Vec<String>,
            width: &[usize],
            ose_cur: &mut [Option<String>],
            ose_count: &mut [u64],
            nblocks: &mut u64,
        ) -> std::io::Result<()> {
            let l = path.len() - 1; // level of the last element
            let nl = spec.levels.len();
            if l + 1 == nl {
                *nblocks += 1;
                let mut line = String::with_capacity(128);
                line.push_str(&path[nl - 1]);
                for p in &path[..nl - 1] {
                    line.push(',');
                    line.push_str(p);
                }
                for (k, (name, frac)) in spec.ose.iter().enumerate() {
                    // a run model: leave the current entity w.p. 1/8, start one w.p. frac/(8(1-frac))
                    let stay = match &ose_cur[k] {
                        Some(_) => rng.gen::<f64>() >= 0.125,
                        None => rng.gen::<f64>() < frac / (8.0 * (1.0 - frac).max(1e-9)),
                    };
                    if stay && ose_cur[k].is_none() {
                        ose_count[k] += 1;
                        ose_cur[k] = Some(format!("{}-{}", &name[..name.len().min(1)].to_uppercase(), ose_count[k]));
                    } else if !stay {
                        ose_cur[k] = None;
                    }
                    line.push(',');
                    if let Some(id) = &ose_cur[k] {
                        line.push_str(id);
                    }
                }
                line.push('\n');
                return w.write_all(line.as_bytes());
            }
            let (a, b) = spec.fanout[l];
            let n = if a == b { a } else { rng.gen_range(a..=b) };
            for i in 0..n {
                let id = if l == 0 { format!("{:0w$}", i + 1, w = width[l]) } else { format!("{}{:0w$}", path[l], i + 1, w = width[l]) };
                path.push(id);
                rec(spec, rng, w, path, width, ose_cur, ose_count, nblocks)?;
                path.pop();
            }
            Ok(())
        }
        rec(self, &mut rng, &mut w, &mut path, &width, &mut ose_cur, &mut ose_count, &mut nblocks).map_err(e)?;
        w.flush().map_err(e)?;
        Ok(nblocks)
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
            assert!(e.contains(want), "{e:?} should mention {want:?}");
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

    #[test]
    fn fanout_may_count_the_root() {
        let a = GeoSpec::parse("US,State,County", "1,2,3", 1, "").unwrap();
        let b = GeoSpec::parse("US,State,County", "2,3", 1, "").unwrap();
        assert_eq!(a.fanout, b.fanout);
        assert!(GeoSpec::parse("US,State,County", "2,2,3", 1, "").unwrap_err().contains("starting with 1"));
        assert!(GeoSpec::parse("US,State,County", "3", 1, "").is_err());
    }

    #[test]
    fn generator_is_deterministic_and_readable() {
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,2-4,1-3,2-6", 11, "place:0.3,aian:0.1").unwrap();
        let mut a = Vec::new();
        let mut b = Vec::new();
        let na = spec.write(&mut a).unwrap();
        spec.write(&mut b).unwrap();
        assert_eq!(a, b);
        let s = Spine::from_reader(&a[..]).unwrap();
        assert_eq!(s.blocks.len() as u64, na);
        assert_eq!(s.ose.len(), 2);
        assert!(!s.ose[0].entities.is_empty());
    }
}
