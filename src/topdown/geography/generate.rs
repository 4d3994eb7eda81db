//! Synthetic geographies for `topdown gen-geography`: a tree with the given geolevels and fan-outs,
//! drawn deterministically from a seed and streamed as a geography file (the format of `spine.rs`),
//! with off-spine entity columns.

use crate::census::allocation::norm_name;
use crate::error::Fallible;
use crate::{err, fallible};
use rand::{Rng, SeedableRng};
use std::io::Write;

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
    /// Off-spine entity categories: name → fraction of blocks inside some entity (see `Kind`).
    pub ose: Vec<(String, f64)>,
    /// Write the AIAN spine (`with_aian_branch`).
    pub aian_branch: bool,
    /// States whose MCDs the `mcd` category draws (default: `STRONG_MCD_STATES`).
    pub strong_mcd: Vec<String>,
}

impl GeoSpec {
    pub fn parse(levels: &str, fanout: &str, seed: u64, ose: &str) -> Fallible<GeoSpec> {
        let levels: Vec<String> = levels.split(',').map(|s| s.trim().to_string()).collect();
        if levels.len() < 2 || levels.iter().any(|l| l.is_empty() || l.starts_with("ose:")) {
            return fallible!(Input, "--levels needs at least two non-empty geolevel names, top first");
        }
        // what the reader (from_reader) refuses is refused here, before anything is written
        if levels.len() > 250 {
            return fallible!(Input, "--levels: at most 250 geolevels");
        }
        for (i, l) in levels.iter().enumerate() {
            if levels[..i].iter().any(|m| norm_name(m) == norm_name(l)) {
                return fallible!(Input, "--levels names geolevel '{l}' twice");
            }
        }
        let mut fan: Vec<&str> = fanout.split(',').map(|s| s.trim()).collect();
        // one entry per geolevel is accepted too when the first is 1: the number of roots
        if fan.len() == levels.len() && fan[0] == "1" {
            fan.remove(0);
        }
        if fan.len() != levels.len() - 1 {
            return fallible!(
                Input,
                "--fanout needs {} entries (one per geolevel above the blocks), or {} starting with 1 (the single root), got {}",
                levels.len() - 1,
                levels.len(),
                fan.len()
            );
        }
        let mut fanout = Vec::new();
        for f in fan {
            let (a, b) = f.split_once('-').unwrap_or((f, f));
            let a: u32 = a.trim().parse().map_err(|_| err!(Input, "bad fan-out '{f}'"))?;
            let b: u32 = b.trim().parse().map_err(|_| err!(Input, "bad fan-out '{f}'"))?;
            if a < 1 || b < a || b > 100_000 {
                return fallible!(Input, "bad fan-out '{f}': need 1 ≤ min ≤ max ≤ 100000");
            }
            fanout.push((a, b));
        }
        // the largest possible number of blocks (product of the maximal fan-outs), before anything is
        // drawn or written: each block is one CSV line of ~60 bytes
        let most: f64 = fanout.iter().map(|&(_, b)| b as f64).product();
        if most > MAX_BLOCKS as f64 {
            return fallible!(Resource,
                "--fanout allows up to {most:.3e} blocks (about {:.1} GB of geography); the limit is {MAX_BLOCKS:e} (the US has about 8e6 blocks)",
                most * 60.0 / 1e9
            );
        }
        let mut oses = Vec::new();
        if !ose.trim().is_empty() {
            for part in ose.split(',') {
                let (n, fr) = match part.split_once(':') {
                    Some((n, fr)) => (n, fr.trim().parse::<f64>().map_err(|_| err!(Input, "bad --ose fraction in '{part}'"))?),
                    // the categories whose extent is fixed by the geography itself need no fraction
                    None if matches!(norm_name(part).as_str(), "mcd" | "cbg") => (part, 1.0),
                    None => return fallible!(Input, "bad --ose entry '{part}': expected NAME:FRACTION (or mcd, cbg)"),
                };
                if !(0.0..=1.0).contains(&fr) || n.trim().is_empty() {
                    return fallible!(Input, "bad --ose entry '{part}'");
                }
                if oses.iter().any(|(m, _): &(String, f64)| norm_name(m) == norm_name(n)) {
                    return fallible!(Input, "--ose names category '{}' twice", n.trim());
                }
                oses.push((n.trim().to_string(), fr));
            }
        }
        Ok(GeoSpec {
            levels,
            fanout,
            seed,
            ose: oses,
            aian_branch: false,
            strong_mcd: STRONG_MCD_STATES.iter().map(|s| s.to_string()).collect(),
        })
    }

    /// The production off-spine categories of [CAK24, §6] as `--ose` lists: `redistricting` (AIAN,
    /// GQ, MCD, place) and `dhc` (AIAN, school district, conventional block group).
    pub fn preset(name: &str) -> Fallible<&'static str> {
        match norm_name(name).as_str() {
            "redistricting" => Ok("aian:0.05,gq:0.02,mcd,place:0.3"),
            "dhc" => Ok("aian:0.05,sd:0.95,cbg"),
            o => fallible!(Input, "unknown --ose-preset '{o}' (redistricting, dhc)"),
        }
    }

    /// Write the AIAN spine ([CAK24, §1 and §6]): every geounit from the state geolevel down to the
    /// blocks' parents is split into its part inside the AIAN areas (id suffix `~A`) and its part
    /// outside (`~N`), by the `aian` category; the original state becomes the off-spine category
    /// `ose:<state geolevel>` (its totals stay invariant: the sum of the two parts).
    pub fn with_aian_branch(mut self) -> Fallible<GeoSpec> {
        if !self.ose.iter().any(|(n, _)| norm_name(n) == "aian") {
            return fallible!(Input, "the AIAN branch needs an `aian` off-spine category (e.g. --ose aian:0.05,...)");
        }
        let st = self.state_level();
        if self.ose.iter().any(|(n, _)| norm_name(n) == norm_name(&self.levels[st])) {
            return fallible!(Input, "the AIAN branch writes the category ose:{}, which --ose already names", self.levels[st]);
        }
        self.aian_branch = true;
        Ok(self)
    }

    /// The states whose MCDs are off-spine entities (`mcd`): ids as the geography writes them.
    pub fn with_strong_mcd_states(mut self, list: &str) -> GeoSpec {
        self.strong_mcd = list.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        self
    }

    /// The state geolevel: the one named State, else the root's children.
    fn state_level(&self) -> usize {
        self.levels.iter().position(|l| norm_name(l) == "state").unwrap_or(1).min(self.levels.len() - 1)
    }

    /// Write the geography CSV (streamed, deterministic from the seed).
    pub fn write<W: Write>(&self, w: W) -> Fallible<u64> {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        let nl = self.levels.len();
        let mut hdr = vec![self.levels[nl - 1].clone()];
        hdr.extend(self.levels[..nl - 1].iter().cloned());
        hdr.extend(self.ose.iter().map(|(n, _)| format!("ose:{n}")));
        if self.aian_branch {
            hdr.push(format!("ose:{}", self.levels[self.state_level()]));
        }
        let e = |e: std::io::Error| err!(Io, "write failed: {e}");
        writeln!(w, "{}", hdr.join(",")).map_err(e)?;
        let mut g = Gen::new(self);
        let mut path: Vec<String> = vec![self.levels[0].clone()];
        g.rec(&mut w, &mut path).map_err(e)?;
        w.flush().map_err(e)?;
        Ok(g.nblocks)
    }
}

/// The states with strong minor civil divisions ([CAK24, §6]: CT, ME, MA, MI, MN, NH, NJ, NY, PA, RI,
/// VT, WI), by FIPS code.
pub const STRONG_MCD_STATES: [&str; 12] = ["09", "23", "25", "26", "27", "33", "34", "36", "42", "44", "50", "55"];

/// How a category's entities are drawn along the blocks (in file order).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Runs: leave the current entity w.p. 1/8, start one w.p. f/(8(1−f)) (any name, and `aian`).
    Run,
    /// Group quarters: a block with GQs (w.p. f) is in the entity of its combination of the seven major
    /// GQ types (a 7-character 0/1 string, as the production spine names it).
    Gq,
    /// Minor civil divisions: every block of a strong-MCD state outside the AIAN areas, runs within
    /// a county (a new MCD at each county and w.p. 1/8 per block).
    Mcd,
    /// Places, when `mcd` is listed too: runs that do not cross a state line, outside the blocks an
    /// MCD covers.
    Place,
    /// School districts: runs within a state, leaving w.p. 1/32.
    Sd,
    /// Conventional block groups: runs of 12 consecutive blocks of a tract.
    Cbg,
}

struct Gen<'a> {
    spec: &'a GeoSpec,
    rng: rand_chacha::ChaCha8Rng,
    width: Vec<usize>,
    kinds: Vec<Kind>,
    cur: Vec<Option<String>>,
    count: Vec<u64>,
    /// The scope (state, county or tract id) each category's current entity lives in.
    scope: Vec<String>,
    aian: Option<usize>,
    state: usize,
    county: Option<usize>,
    tract: usize,
    last_tract: String,
    pos_in_tract: u64,
    nblocks: u64,
    vals: Vec<Option<String>>,
}

impl<'a> Gen<'a> {
    fn new(spec: &'a GeoSpec) -> Gen<'a> {
        let nl = spec.levels.len();
        let has_mcd = spec.ose.iter().any(|(n, _)| norm_name(n) == "mcd");
        let kinds = spec
            .ose
            .iter()
            .map(|(n, _)| match norm_name(n).as_str() {
                "gq" => Kind::Gq,
                "mcd" => Kind::Mcd,
                "place" if has_mcd => Kind::Place,
                "sd" => Kind::Sd,
                "cbg" => Kind::Cbg,
                _ => Kind::Run,
            })
            .collect();
        let find = |n: &str| spec.levels[..nl - 1].iter().position(|l| norm_name(l) == n);
        let k = spec.ose.len();
        Gen {
            spec,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed),
            width: spec.fanout.iter().map(|&(_, b)| (b.max(2) as f64 - 1.0).log10().floor() as usize + 1).collect(),
            kinds,
            cur: vec![None; k],
            count: vec![0; k],
            scope: vec![String::new(); k],
            aian: spec.ose.iter().position(|(n, _)| norm_name(n) == "aian"),
            state: spec.state_level(),
            county: find("county"),
            tract: find("tract").unwrap_or(nl.saturating_sub(3)),
            last_tract: String::new(),
            pos_in_tract: 0,
            nblocks: 0,
            vals: vec![None; k],
        }
    }

    fn rec<W: Write>(&mut self, w: &mut W, path: &mut Vec<String>) -> std::io::Result<()> {
        let l = path.len() - 1; // level of the last element
        let nl = self.spec.levels.len();
        if l + 1 == nl {
            self.nblocks += 1;
            self.block_entities(path);
            let in_aian = self.aian.is_some_and(|k| self.vals[k].is_some());
            let mut line = String::with_capacity(128);
            line.push_str(&path[nl - 1]);
            for (i, p) in path[..nl - 1].iter().enumerate() {
                line.push(',');
                line.push_str(p);
                if self.spec.aian_branch && i >= self.state {
                    line.push_str(if in_aian { "~A" } else { "~N" });
                }
            }
            for v in &self.vals {
                line.push(',');
                if let Some(id) = v {
                    line.push_str(id);
                }
            }
            if self.spec.aian_branch {
                line.push(',');
                line.push_str(&path[self.state]);
            }
            line.push('\n');
            return w.write_all(line.as_bytes());
        }
        let (a, b) = self.spec.fanout[l];
        let n = if a == b { a } else { self.rng.gen_range(a..=b) };
        for i in 0..n {
            let id =
                if l == 0 { format!("{:0w$}", i + 1, w = self.width[l]) } else { format!("{}{:0w$}", path[l], i + 1, w = self.width[l]) };
            path.push(id);
            self.rec(w, path)?;
            path.pop();
        }
        Ok(())
    }

    /// The entity of every category for the next block (`path`: its ancestors, then the block). The
    /// run categories are drawn first, in order (so that a list of only those draws exactly what it
    /// always did), then the production ones, which may depend on the AIAN area.
    fn block_entities(&mut self, path: &[String]) {
        let tract_id = &path[self.tract.min(path.len() - 1)];
        if *tract_id != self.last_tract {
            self.last_tract = tract_id.clone();
            self.pos_in_tract = 0;
        }
        let pos = self.pos_in_tract;
        self.pos_in_tract += 1;
        for k in 0..self.kinds.len() {
            if self.kinds[k] != Kind::Run {
                continue;
            }
            let frac = self.spec.ose[k].1;
            self.run(k, 0.125, frac, None);
            self.vals[k] = self.cur[k].clone();
        }
        let in_aian = self.aian.is_some_and(|k| self.vals[k].is_some());
        let state = path[self.state.min(path.len() - 1)].clone();
        let strong = self.spec.strong_mcd.contains(&state);
        for k in 0..self.kinds.len() {
            let frac = self.spec.ose[k].1;
            self.vals[k] = match self.kinds[k] {
                Kind::Run => continue,
                Kind::Gq => (self.rng.gen::<f64>() < frac).then(|| {
                    let mut bits = [b'0'; 7];
                    bits[self.rng.gen_range(0..7)] = b'1';
                    if self.rng.gen::<f64>() < 0.1 {
                        bits[self.rng.gen_range(0..7)] = b'1';
                    }
                    String::from_utf8(bits.to_vec()).expect("invariant: ASCII digits")
                }),
                Kind::Mcd => {
                    if strong && !in_aian {
                        let county = self.county.map_or(state.clone(), |c| path[c].clone());
                        if self.scope[k] != county || self.cur[k].is_none() || self.rng.gen::<f64>() < 0.125 {
                            self.count[k] = if self.scope[k] == county { self.count[k] + 1 } else { 1 };
                            self.scope[k] = county.clone();
                            self.cur[k] = Some(format!("{county}~M{}", self.count[k]));
                        }
                        self.cur[k].clone()
                    } else {
                        self.cur[k] = None;
                        None
                    }
                }
                Kind::Place => {
                    self.run(k, 0.125, frac, Some(&state));
                    if strong && !in_aian {
                        None
                    } else {
                        self.cur[k].clone()
                    }
                }
                Kind::Sd => {
                    self.run(k, 1.0 / 32.0, frac, Some(&state));
                    self.cur[k].clone()
                }
                Kind::Cbg => Some(format!("{tract_id}~BG{}", 1 + pos / 12)),
            };
        }
    }

    /// One step of the run model of category k: leave the current entity w.p. `leave`, start one
    /// w.p. leave·f/(1−f) (so that a fraction f of the blocks is inside); a run ends where `scope`
    /// changes.
    fn run(&mut self, k: usize, leave: f64, frac: f64, scope: Option<&str>) {
        if let Some(s) = scope {
            if self.scope[k] != s {
                self.scope[k] = s.to_string();
                self.cur[k] = None;
            }
        }
        let stay = match &self.cur[k] {
            Some(_) => self.rng.gen::<f64>() >= leave,
            None => self.rng.gen::<f64>() < frac * leave / (1.0 - frac).max(1e-9),
        };
        if stay && self.cur[k].is_none() {
            self.count[k] += 1;
            let name = &self.spec.ose[k].0;
            self.cur[k] = Some(format!("{}-{}", &name[..name.len().min(1)].to_uppercase(), self.count[k]));
        } else if !stay {
            self.cur[k] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::geography::spine::{Spine, NONE};

    #[test]
    fn fanout_may_count_the_root() {
        let a = GeoSpec::parse("US,State,County", "1,2,3", 1, "").unwrap();
        let b = GeoSpec::parse("US,State,County", "2,3", 1, "").unwrap();
        assert_eq!(a.fanout, b.fanout);
        assert!(GeoSpec::parse("US,State,County", "2,2,3", 1, "").unwrap_err().to_string().contains("starting with 1"));
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

    fn spine_of(spec: &GeoSpec) -> (Spine, Vec<u8>) {
        let mut buf = Vec::new();
        spec.write(&mut buf).unwrap();
        (Spine::from_reader(&buf[..]).unwrap(), buf)
    }

    #[test]
    fn the_aian_branch_generated_is_the_aian_spine_of_the_conventional_one() {
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,2-4,1-3,2-6", 5, "place:0.3,aian:0.2").unwrap();
        let (conv, _) = spine_of(&spec);
        let (gen, buf) = spine_of(&spec.clone().with_aian_branch().unwrap());
        let (want, csv) = crate::topdown::geography::aian::aian_branch(&conv, "aian").unwrap();
        assert_eq!(String::from_utf8(buf).unwrap(), csv);
        assert_eq!(gen.ids, want.ids);
        // some state has both parts
        let st = gen.level_index("State").unwrap();
        let parts: Vec<&String> = (0..gen.n_units()).filter(|&u| gen.level[u] as usize == st).map(|u| &gen.ids[u]).collect();
        assert!(parts.iter().any(|p| p.ends_with("~A")) && parts.iter().any(|p| p.ends_with("~N")));
        assert!(GeoSpec::parse("US,State,Block", "2,2", 1, "place:0.3").unwrap().with_aian_branch().is_err());
    }

    #[test]
    fn production_categories_follow_their_definitions() {
        // 51 states (ids 01..51: eleven of the twelve strong-MCD FIPS codes), the redistricting preset
        let ose = GeoSpec::preset("redistricting").unwrap();
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "51,1-2,1-2,3-8", 3, ose).unwrap();
        let (sp, _) = spine_of(&spec);
        let cat = |n: &str| sp.ose.iter().position(|o| o.name == n).unwrap();
        let (aian, gq, mcd, place) = (cat("aian"), cat("gq"), cat("mcd"), cat("place"));
        let mut mcd_blocks = 0;
        for (b, &u) in sp.blocks.iter().enumerate() {
            let path = sp.path(u);
            let state = &sp.ids[path[1] as usize];
            let county = &sp.ids[path[2] as usize];
            let strong = STRONG_MCD_STATES.contains(&state.as_str());
            let in_aian = sp.ose[aian].of_block[b] != NONE;
            let m = sp.ose[mcd].of_block[b];
            // an MCD exactly where the state is strong-MCD and the block outside the AIAN areas,
            // inside one county; a place only elsewhere
            assert_eq!(m != NONE, strong && !in_aian, "block {b}");
            if m != NONE {
                mcd_blocks += 1;
                assert!(sp.ose[mcd].entities[m as usize].starts_with(&format!("{county}~M")));
                assert_eq!(sp.ose[place].of_block[b], NONE);
            }
            let g = sp.ose[gq].of_block[b];
            if g != NONE {
                let id = &sp.ose[gq].entities[g as usize];
                assert!(id.len() == 7 && id.chars().all(|c| c == '0' || c == '1') && id.contains('1'));
            }
        }
        assert!(mcd_blocks > 0);
        // a place never crosses a state line
        let mut state_of: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for (b, &u) in sp.blocks.iter().enumerate() {
            let p = sp.ose[place].of_block[b];
            if p != NONE {
                let s = sp.path(u)[1];
                assert_eq!(*state_of.entry(p).or_insert(s), s);
            }
        }
        // the DHC preset: school districts within a state, conventional block groups of ≤ 12 blocks in a tract
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,1-2,1-2,5-30", 3, GeoSpec::preset("dhc").unwrap()).unwrap();
        let (sp, _) = spine_of(&spec);
        let cbg = sp.ose.iter().position(|o| o.name == "cbg").unwrap();
        let mut size: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        for (b, &u) in sp.blocks.iter().enumerate() {
            let e = sp.ose[cbg].of_block[b];
            assert!(sp.ose[cbg].entities[e as usize].starts_with(&format!("{}~BG", sp.ids[sp.path(u)[3] as usize])));
            *size.entry(e).or_insert(0) += 1;
        }
        assert!(size.values().all(|&n| n <= 12) && size.values().any(|&n| n == 12));
        assert!(GeoSpec::preset("sf1").is_err());
    }
}
