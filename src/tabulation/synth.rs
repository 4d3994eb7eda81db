//! Synthetic persons for SafeTab-P (`tightdp synth`): a geography of states → counties → tracts →
//! blocks (with places and AIANNH areas), and persons with plausible age, sex, race and ethnicity mixes
//! drawn from the synthetic code universe of data/safetab/ (race codes 1000–1049, ethnicity 2000–2009)
//! or, with [`CodePools`], from the real 2020 code list (data/safetab/production/) with real state
//! codes, and optionally Puerto Rico (state 72, [HBC25, §5.4.2]). Deterministic from the seed
//! (ChaCha20); streamed to CSV. Not census data: the persons are invented.

use crate::error::Fallible;
use crate::noise::sampler::{uniform_below_u64, NoiseSource};
use crate::{err, fallible};
use rand_chacha::rand_core::RngCore;
use std::io::{BufWriter, Write};
use std::path::Path;

#[derive(Clone, Debug)]
pub struct SynthParams {
    pub states: u32,
    pub counties_per_state: u32,
    pub tracts_per_county: u32,
    pub blocks_per_tract: u32,
    pub persons: u64,
    pub seed: u64,
    /// draw race and ethnicity codes from these pools (the real code list) instead of the synthetic
    /// codes 1000–1049 / 2000–2009
    pub codes: Option<CodePools>,
    /// state codes of the US states (None: 01, 02, …)
    pub state_codes: Option<Vec<String>>,
    /// add Puerto Rico (state 72, no AIANNH areas) with the same counties/tracts/blocks as a state
    pub puerto_rico: bool,
}

/// The codes persons are drawn from: race codes (in some tabulated race group), Hispanic origin codes
/// (in some tabulated ethnicity group) and the non-Hispanic codes (valid, in no tabulated group of
/// either kind: 9950 "Not Hispanic (checkbox)" in the 2020 files).
#[derive(Clone, Debug)]
pub struct CodePools {
    pub race: Vec<String>,
    pub hispanic: Vec<String>,
    pub not_hispanic: Vec<String>,
}

impl CodePools {
    /// The pools of a parameter set, in the order of its code list.
    pub fn from_iterations(its: &crate::tabulation::safetab_spec::Iterations) -> Fallible<CodePools> {
        let race: Vec<String> = its.codes.iter().filter(|c| its.race.contains_key(*c)).cloned().collect();
        let hispanic: Vec<String> = its.codes.iter().filter(|c| its.eth.contains_key(*c)).cloned().collect();
        let not_hispanic: Vec<String> = its
            .codes
            .iter()
            .filter(|c| !its.race.contains_key(*c) && !its.eth.contains_key(*c) && its.eth_groups(c).is_some())
            .cloned()
            .collect();
        if race.is_empty() || hispanic.is_empty() || not_hispanic.is_empty() {
            return fallible!(Input, "synth: the code list needs race codes, Hispanic origin codes and a code in no group (not Hispanic)");
        }
        Ok(CodePools { race, hispanic, not_hispanic })
    }
}

/// Share of persons with a Hispanic origin code, per mille (2020 Census: 18.7 %).
const HISPANIC_PER_MILLE: u64 = 187;

/// A Zipf-like popularity (weight 1/(k+1) by rank) over a seeded shuffle of `n` items, so that the
/// popular codes are spread over the groups rather than the first lines of the code list.
fn zipf_shuffled<R: RngCore>(n: usize, rng: &mut R) -> (Vec<usize>, Weighted) {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = uniform_below_u64(rng, i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let w: Vec<u64> = (0..n as u64).map(|k| 1_000_000 / (k + 1)).collect();
    (order, Weighted::new(&w))
}

/// Draw an index with probability proportional to integer weights (cumulative table).
struct Weighted {
    cum: Vec<u64>,
}

impl Weighted {
    fn new(w: &[u64]) -> Self {
        let mut cum = Vec::with_capacity(w.len());
        let mut s = 0;
        for &x in w {
            s += x;
            cum.push(s);
        }
        Weighted { cum }
    }
    fn draw<R: RngCore>(&self, rng: &mut R) -> usize {
        let u = uniform_below_u64(rng, *self.cum.last().expect("invariant: a non-empty table"));
        self.cum.partition_point(|&c| c <= u)
    }
}

/// Most blocks of a synthetic geography (six times the US's ~8 million).
pub const MAX_BLOCKS: u64 = 50_000_000;
/// Most synthetic persons (three times the US population; persons.csv of ~45 GB).
pub const MAX_PERSONS: u64 = 1_000_000_000;

/// Write `geography.txt` and `persons.csv` into `out`; returns (blocks, persons).
pub fn synth(p: &SynthParams, out: &Path, progress: bool) -> Fallible<(u64, u64)> {
    let states = checked_states(p)?;
    std::fs::create_dir_all(out).map_err(|e| err!(Io, "cannot create '{}': {e}", out.display()))?;
    let mut src = NoiseSource::seeded(p.seed);
    let rng = &mut src.rng;
    let (blocks, block_w) = write_geography(p, &states, out, rng)?;
    let law = PersonLaw::new(p, &block_w, rng);
    let ppath = out.join("persons.csv");
    let f = std::fs::File::create(&ppath).map_err(|e| err!(Io, "cannot write '{}': {e}", ppath.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    writeln!(w, "{}", crate::tabulation::safetab_p::PERSON_COLUMNS.join(",")).map_err(crate::error::Error::from)?;
    let pb = if progress { Some(indicatif::ProgressBar::new(p.persons)) } else { None };
    let mut line = String::with_capacity(128);
    for i in 0..p.persons {
        law.person(&blocks, &states, rng, &mut line);
        w.write_all(line.as_bytes()).map_err(|e| err!(Io, "cannot write '{}': {e}", ppath.display()))?;
        if let Some(pb) = &pb {
            if i % 65536 == 0 {
                pb.set_position(i);
            }
        }
    }
    w.flush().map_err(|e| err!(Io, "cannot write '{}': {e}", ppath.display()))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok((blocks.len() as u64, p.persons))
}

/// The states' codes (given real FIPS codes, else 01, 02, …; Puerto Rico, 72, last), the sizes checked
/// before anything is written.
fn checked_states(p: &SynthParams) -> Fallible<Vec<String>> {
    if p.states == 0
        || p.states > 99
        || p.counties_per_state == 0
        || p.counties_per_state > 999
        || p.tracts_per_county == 0
        || p.blocks_per_tract == 0
        || p.blocks_per_tract > 9999
    {
        return fallible!(Input, "synth: need 1–99 states, 1–999 counties per state, ≥ 1 tract per county, 1–9999 blocks per tract");
    }
    // the states' codes: given (real FIPS codes), else 01, 02, …; Puerto Rico (72) last
    let mut states: Vec<String> = match &p.state_codes {
        Some(c) => {
            if p.states as usize > c.len() {
                return fallible!(Input, "synth: --states {} exceeds the {} state codes of the configuration", p.states, c.len());
            }
            c[..p.states as usize].to_vec()
        }
        None => (1..=p.states).map(|s| format!("{s:02}")).collect(),
    };
    if p.puerto_rico {
        if states.iter().any(|s| s == crate::tabulation::safetab_spec::PR_STATE) {
            return fallible!(Input, "synth: with --puerto-rico the US states must not include code 72 (at most 71 states)");
        }
        states.push(crate::tabulation::safetab_spec::PR_STATE.to_string());
    }
    // sizes before anything is written: one geography line per block (~40 bytes, held in memory too),
    // one CSV line per person (~45 bytes)
    let blocks = states.len() as u128 * p.counties_per_state as u128 * p.tracts_per_county as u128 * p.blocks_per_tract as u128;
    if blocks > MAX_BLOCKS as u128 {
        return fallible!(
            Input,
            "synth: {blocks} blocks (about {:.1} GB) exceed the limit of {MAX_BLOCKS} (the US has about 8e6 blocks)",
            blocks as f64 * 40.0 / 1e9
        );
    }
    if p.persons > MAX_PERSONS {
        return fallible!(
            Input,
            "synth: {} persons (about {:.0} GB of persons.csv) exceed the limit of {MAX_PERSONS} (the US has about 3.3e8)",
            p.persons,
            p.persons as f64 * 45.0 / 1e9
        );
    }
    Ok(states)
}

/// One synthetic block: its state's index, county, tract and block numbers.
type SynthBlock = (usize, u32, u32, u32);

/// `geography.txt`: one line per block, a third of the tracts in a place and one in twenty in an AIANNH
/// area; the blocks and their population weights.
fn write_geography<R: RngCore>(p: &SynthParams, states: &[String], out: &Path, rng: &mut R) -> Fallible<(Vec<SynthBlock>, Vec<u64>)> {
    // geography
    let gpath = out.join("geography.txt");
    let mut g = BufWriter::new(std::fs::File::create(&gpath).map_err(|e| err!(Io, "cannot write '{}': {e}", gpath.display()))?);
    let mut blocks: Vec<SynthBlock> = Vec::new();
    let mut block_w: Vec<u64> = Vec::new();
    writeln!(g, "TABBLKST|TABBLKCOU|TABTRACTCE|TABBLK|PLACEFP|AIANNHCE").map_err(crate::error::Error::from)?;
    let mut place_n = 0u32;
    let mut aian_n = 0u32;
    for (si, st) in states.iter().enumerate() {
        let pr = st == crate::tabulation::safetab_spec::PR_STATE;
        let st_w = 1 + uniform_below_u64(rng, 9); // states differ in size
        for co in 1..=p.counties_per_state {
            let co_w = 1 + uniform_below_u64(rng, 9);
            for tr in 1..=p.tracts_per_county {
                // about a third of tracts lie in a place, about 1 in 20 in an AIANNH area
                let place = if uniform_below_u64(rng, 3) == 0 {
                    place_n += 1;
                    Some(place_n)
                } else {
                    None
                };
                let aian = if uniform_below_u64(rng, 20) == 0 && !pr {
                    aian_n += 1;
                    Some(aian_n % 9999 + 1)
                } else {
                    None
                };
                let tr_w = 1 + uniform_below_u64(rng, 4);
                for bl in 1..=p.blocks_per_tract {
                    let plc = place.map(|x| format!("{:05}", x % 99999)).unwrap_or_else(|| "99999".into());
                    let plc = if plc == "99999" && place.is_some() { "00001".into() } else { plc };
                    let ai = aian.map(|x| format!("{:04}", x.min(9998))).unwrap_or_else(|| "9999".into());
                    writeln!(g, "{st}|{co:03}|{tr:06}|{bl:04}|{plc}|{ai}").map_err(crate::error::Error::from)?;
                    blocks.push((si, co, tr, bl));
                    block_w.push(st_w * co_w * tr_w * (1 + uniform_below_u64(rng, 3)));
                }
            }
        }
    }
    g.flush().map_err(crate::error::Error::from)?;
    drop(g);
    Ok((blocks, block_w))
}

/// The law of one synthetic person: block by population weight, age, sex, race codes and ethnicity (the
/// real code list's, by seeded popularity, when given).
struct PersonLaw<'a> {
    bw: Weighted,
    aw: Weighted,
    cw: Weighted,
    nr: Weighted,
    eth: Weighted,
    /// the real code list with the popularity orders of its race and Hispanic origin codes
    real: Option<RealCodes<'a>>,
}

type RealCodes<'a> = (&'a CodePools, (Vec<usize>, Weighted), (Vec<usize>, Weighted));

impl<'a> PersonLaw<'a> {
    fn new<R: RngCore>(p: &'a SynthParams, block_w: &[u64], rng: &mut R) -> PersonLaw<'a> {
        let bw = Weighted::new(block_w);
        // age: roughly the US pyramid, weight per single year 0..=115
        let age_w: Vec<u64> = (0..=115u64)
            .map(|a| {
                if a < 65 {
                    130
                } else if a < 85 {
                    130 - (a - 64) * 5
                } else if a < 100 {
                    25 - (a - 85)
                } else {
                    1
                }
            })
            .collect();
        let aw = Weighted::new(&age_w);
        // race codes 1000..1049: Zipf-like popularity; number of races 1 (90 %), 2 (8 %), 3–8 (2 %)
        let code_w: Vec<u64> = (0..50u64).map(|k| 100_000 / (k + 1)).collect();
        let cw = Weighted::new(&code_w);
        let nr = Weighted::new(&[900, 80, 8, 5, 3, 2, 1, 1]);
        let eth = Weighted::new(&[800, 60, 40, 30, 20, 15, 12, 10, 8, 5]);
        // the real code list: popularity over seeded shuffles of the race and the Hispanic origin codes
        let real = p.codes.as_ref().map(|c| (c, zipf_shuffled(c.race.len(), rng), zipf_shuffled(c.hispanic.len(), rng)));
        PersonLaw { bw, aw, cw, nr, eth, real }
    }

    /// One person's line of `persons.csv` into `line`.
    fn person<R: RngCore>(&self, blocks: &[SynthBlock], states: &[String], rng: &mut R, line: &mut String) {
        use std::fmt::Write as _;
        let (bw, aw, cw, nr, eth, real) = (&self.bw, &self.aw, &self.cw, &self.nr, &self.eth, &self.real);
        let (si, co, tr, bl) = blocks[bw.draw(rng)];
        let st = &states[si];
        let age = aw.draw(rng);
        let sex = 1 + uniform_below_u64(rng, 2);
        let k = nr.draw(rng) + 1;
        let mut codes: Vec<usize> = Vec::with_capacity(k);
        let k = match &real {
            Some((c, _, _)) => k.min(c.race.len()),
            None => k,
        };
        while codes.len() < k {
            let c = match &real {
                Some((_, (order, w), _)) => order[w.draw(rng)],
                None => cw.draw(rng),
            };
            if !codes.contains(&c) {
                codes.push(c);
            }
        }
        line.clear();
        let _ = write!(line, "{age},{sex},{st},{co:03},{tr:06},{bl:04}");
        for j in 0..8 {
            match (j < k, &real) {
                (true, Some((c, _, _))) => {
                    let _ = write!(line, ",{}", c.race[codes[j]]);
                }
                (true, None) => {
                    let _ = write!(line, ",{}", 1000 + codes[j]);
                }
                (false, _) => line.push(','),
            }
        }
        match &real {
            Some((c, _, (order, w))) => {
                let e = if uniform_below_u64(rng, 1000) < HISPANIC_PER_MILLE {
                    &c.hispanic[order[w.draw(rng)]]
                } else {
                    &c.not_hispanic[uniform_below_u64(rng, c.not_hispanic.len() as u64) as usize]
                };
                let _ = writeln!(line, ",{e}");
            }
            None => {
                let _ = writeln!(line, ",{}", 2000 + eth.draw(rng));
            }
        }
    }
}
