//! SafeTab-P ([HBC25, Algorithms 1–3], §4–6): person records → population groups
//! per level → adaptive two-stage discrete Gaussian tabulation → post-processing and suppression.
//!
//! * Alg. 1: for each population-group level i (geography level × iteration level) with budget ρ_i,
//!   each group gets ρ_i/s, s = Δ(g_i) = stability (9: 8 race codes + 1 ethnicity).
//! * Alg. 2: TotalOnly groups (nation/state only): one noisy total with ρ_i/s. Others: Stage 1 noisy
//!   total with γρ_i/s; then, by the Stage-1 value against Θ₁ < Θ₂ < Θ₃: total, Sex × Age4 (T02001),
//!   Sex × Age9 (T02002) or Sex × Age23 (T02003), each with (1−γ)ρ_i/s.
//! * Alg. 3: NoisyCount adds N_Z(0, 1/(2ρ)) to each cell (exact sampler, `sampler.rs`).
//! * §5.3 post-processing: sex marginals and the T01001 total summed from the noisy cells; sub-state
//!   groups receiving only a total are suppressed when the noisy total is ≤ T (eq. 12, Table 6);
//!   then Algorithm 4 (§5.3.3, `coterminous.rs`): each set of coterminous population groups takes
//!   the counts of its hierarchically highest unsuppressed member.
//!
//! The whole input is validated (and tabulated exactly) in one streaming pass before any noise is
//! drawn; any error aborts with the file line number, and nothing is written.

use crate::mech::calib::suppression_threshold;
use crate::mech::coterminous;
use crate::mech::manifest::{level_manifest_sigma2, Manifest};
use crate::mech::safetab_spec::{block_key, Config, GeoLevel, Geography, Iterations, LevelSpec, NONE};
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use rayon::prelude::*;
use rug::Rational;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Start ages of the Age23 bins (T02003); Age9 (T02002) and Age4 (T02001) bins are unions of them.
pub const AGE23: [u32; 23] = [0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85];
pub const AGE9: [u32; 9] = [0, 5, 18, 25, 35, 45, 55, 65, 75];
pub const AGE4: [u32; 4] = [0, 18, 45, 65];
pub const MAX_AGE: u32 = 115;
/// Sex × Age23 cells of one group.
pub const CELLS: usize = 46;

pub const PERSON_COLUMNS: [&str; 15] = [
    "QAGE",
    "QSEX",
    "TABBLKST",
    "TABBLKCOU",
    "TABTRACTCE",
    "TABBLK",
    "QRACE1",
    "QRACE2",
    "QRACE3",
    "QRACE4",
    "QRACE5",
    "QRACE6",
    "QRACE7",
    "QRACE8",
    "QSPAN",
];

/// Inputs of a run.
pub struct Inputs {
    pub config: Config,
    pub iterations: Iterations,
    pub geography: Geography,
}

impl Inputs {
    pub fn load(config: &Path, iterations: &Path, codes: &Path, geography: &Path) -> Result<Inputs, String> {
        use crate::mech::safetab_spec::Spec;
        let p = |x: &Path| Spec::Path(x.to_path_buf());
        Self::from_specs(&p(config), &p(iterations), &p(codes), geography)
    }

    /// The inputs from a configuration and iteration files that may be built-in defaults.
    pub fn from_files(
        config: &crate::mech::safetab_spec::Spec,
        files: &crate::mech::safetab_prod::IterationFiles,
        geography: &Path,
    ) -> Result<Inputs, String> {
        Ok(Inputs { config: Config::from_spec(config)?, iterations: files.load()?, geography: Geography::load(geography)? })
    }

    /// The inputs from specification files that may be built-in defaults (`Spec`).
    pub fn from_specs(
        config: &crate::mech::safetab_spec::Spec,
        iterations: &crate::mech::safetab_spec::Spec,
        codes: &crate::mech::safetab_spec::Spec,
        geography: &Path,
    ) -> Result<Inputs, String> {
        Ok(Inputs {
            config: Config::from_spec(config)?,
            iterations: Iterations::from_specs(iterations, codes)?,
            geography: Geography::load(geography)?,
        })
    }
}

/// Which population groups one level tabulates (shared by SafeTab-P and SafeTab): the level's geography
/// and iteration level, and whether TOTAL_ONLY iterations are tabulated at it (SafeTab-P: only at
/// USA/STATE; SafeTab (race & ethnicity): everywhere, RE Alg. 2 has no geographic restriction).
#[derive(Clone, Copy, Debug)]
pub struct TabLevel {
    pub geo: GeoLevel,
    pub detailed: bool,
    pub include_total_only: bool,
    /// a level of the Puerto Rico pass: REGION_TYPE PR-STATE, PR-COUNTY, … ([HBC25, §5.4.2])
    pub pr: bool,
}

impl TabLevel {
    /// REGION_TYPE of the released rows.
    pub fn region_type(&self) -> String {
        if self.pr {
            format!("PR-{}", self.geo.name())
        } else {
            self.geo.name().to_string()
        }
    }
}

/// One pass of a run: its levels and its geography (None: the whole geography file).
pub struct PassTab<'a> {
    pub levels: &'a [TabLevel],
    pub geo: Option<&'a Geography>,
}

/// Exact tabulation of one level: counts[(geo·n_iter + it)·46 + sex·23 + age23].
pub struct LevelCounts {
    pub level: TabLevel,
    /// global iteration index → local index (None: not tabulated at this level)
    pub local: Vec<Option<u32>>,
    /// local → global
    pub iters: Vec<u32>,
    pub n_geo: usize,
    pub counts: Vec<u32>,
}

/// Summary of a run.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub persons: u64,
    /// records of states no pass of this run tabulates (production `state_filter_us`, or Puerto Rico
    /// without its pass): validated, not counted
    pub skipped: u64,
    /// the passes run ("US", "PR")
    pub passes: Vec<String>,
    pub groups: u64,
    pub t1_rows: u64,
    pub t2_rows: u64,
    pub suppressed: u64,
    pub noise_draws: u64,
    /// Algorithm 4: sets of coterminous population groups, and groups whose counts were replaced
    pub coterminous_sets: u64,
    pub coterminous_replaced: u64,
    pub manifest: Manifest,
}

fn age_bin_table() -> [u8; 116] {
    let mut t = [0u8; 116];
    for (a, slot) in t.iter_mut().enumerate() {
        *slot = (AGE23.iter().rposition(|&s| s as usize <= a).unwrap()) as u8;
    }
    t
}

/// Validate and tabulate the persons file for the given levels (one streaming pass; no noise): header,
/// QAGE 0–115, QSEX 1/2, block in the geography, race/ethnicity codes known, ≤ `stability` groups per
/// record and level. Errors name the file line. Shared by SafeTab-P and SafeTab (race & ethnicity).
pub fn tabulate_levels(
    specs: &[TabLevel],
    stability: u32,
    its: &Iterations,
    geo: &Geography,
    persons: &Path,
    progress: bool,
) -> Result<(Vec<LevelCounts>, u64), String> {
    let (mut out, n, _) = tabulate_passes(&[PassTab { levels: specs, geo: None }], stability, its, geo, persons, progress)?;
    Ok((out.remove(0), n))
}

/// [`tabulate_levels`] for several passes in one read of the persons file: a record counts in the pass
/// whose geography holds its block; a record whose block is in `full` but in no pass's geography is
/// validated and skipped (its state is tabulated by no pass of this run). Returns the counts per pass,
/// the records read and the records skipped.
pub fn tabulate_passes(
    passes: &[PassTab],
    stability: u32,
    its: &Iterations,
    full: &Geography,
    persons: &Path,
    progress: bool,
) -> Result<(Vec<Vec<LevelCounts>>, u64, u64), String> {
    let mut out: Vec<Vec<LevelCounts>> = Vec::new();
    let mut cells_total: u64 = 0;
    for pass in passes {
        let geo = pass.geo.unwrap_or(full);
        let mut levels: Vec<LevelCounts> = Vec::new();
        for spec in pass.levels {
            let mut local = vec![None; its.list.len()];
            let mut iters = Vec::new();
            for (g, it) in its.list.iter().enumerate() {
                // TotalOnly (DETAILED_ONLY) iterations below state only where the level includes them,
                // COARSE_ONLY iterations never at nation/state
                let here = if spec.geo.substate() { spec.include_total_only || !it.total_only } else { !it.coarse_only };
                if it.detailed == spec.detailed && here {
                    local[g] = Some(iters.len() as u32);
                    iters.push(g as u32);
                }
            }
            let n_geo = geo.ids[&spec.geo].len();
            let n = n_geo * iters.len() * CELLS;
            cells_total += n as u64;
            if cells_total > 400_000_000 {
                return Err("population-group universe too large for the dense tabulation (> 400M cells)".into());
            }
            levels.push(LevelCounts { level: *spec, local, iters, n_geo, counts: vec![0u32; n] });
        }
        out.push(levels);
    }
    let file = std::fs::File::open(persons).map_err(|e| format!("cannot read '{}': {e}", persons.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let pb = if progress {
        let pb = indicatif::ProgressBar::new(size);
        pb.set_style(
            indicatif::ProgressStyle::with_template("reading persons {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta}) {msg}")
                .unwrap(),
        );
        Some(pb)
    } else {
        None
    };
    let reader: Box<dyn Read> = match &pb {
        Some(pb) => Box::new(pb.wrap_read(std::io::BufReader::with_capacity(1 << 20, file))),
        None => Box::new(std::io::BufReader::with_capacity(1 << 20, file)),
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(reader);
    let pname = persons.display().to_string();
    {
        let h = rdr.byte_headers().map_err(|e| format!("{pname} line 1: {e}"))?;
        let cols: Vec<&[u8]> = h.iter().collect();
        if cols.len() != PERSON_COLUMNS.len() || cols.iter().zip(PERSON_COLUMNS).any(|(a, b)| *a != b.as_bytes()) {
            return Err(format!("{pname} line 1: header must be {}", PERSON_COLUMNS.join(",")));
        }
    }
    let ages = age_bin_table();
    let s = stability as usize;
    let mut rec = csv::ByteRecord::new();
    let mut n: u64 = 0;
    let mut skipped: u64 = 0;
    let mut codes: Vec<usize> = Vec::with_capacity(8);
    let mut groups: [Vec<u32>; 2] = [Vec::with_capacity(16), Vec::with_capacity(16)];
    let mut key_buf = String::new();
    loop {
        let line = n + 2;
        match rdr.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(format!("{pname} line {line}: malformed row ({e})")),
        }
        n += 1;
        let f = |i: usize| rec.get(i).unwrap_or(b"");
        let age = parse_u32(f(0)).ok_or_else(|| format!("{pname} line {line}: QAGE '{}' is not an integer", lossy(f(0))))?;
        if age > MAX_AGE {
            return Err(format!("{pname} line {line}: QAGE {age} outside 0–{MAX_AGE}"));
        }
        let sex = match f(1) {
            b"1" => 0usize,
            b"2" => 1usize,
            o => return Err(format!("{pname} line {line}: QSEX must be 1 or 2, got '{}'", lossy(o))),
        };
        let key = block_key(f(2), f(3), f(4), f(5)).ok_or_else(|| format!("{pname} line {line}: malformed block id"))?;
        let g = full.blocks.get(&key).ok_or_else(|| {
            format!("{pname} line {line}: block {}{}{}{} is not in the geography file", lossy(f(2)), lossy(f(3)), lossy(f(4)), lossy(f(5)))
        })?;
        // race codes
        codes.clear();
        for i in 6..14 {
            let c = f(i);
            if c.is_empty() {
                continue;
            }
            if !codes.iter().any(|&j| f(j) == c) {
                codes.push(i);
            }
        }
        if f(6).is_empty() {
            return Err(format!("{pname} line {line}: QRACE1 is empty"));
        }
        for lv in groups.iter_mut() {
            lv.clear();
        }
        let mut alone: [Option<Option<u32>>; 2] = [None, None];
        for &ci in &codes {
            let c = f(ci);
            key_buf.clear();
            key_buf.push_str(std::str::from_utf8(c).map_err(|_| format!("{pname} line {line}: race code is not UTF-8"))?);
            let m = its.race_groups(key_buf.as_str()).ok_or_else(|| format!("{pname} line {line}: unknown race code '{key_buf}'"))?;
            for l in 0..2 {
                if let Some(a) = m.aoic[l] {
                    if !groups[l].contains(&a) {
                        groups[l].push(a);
                    }
                }
                alone[l] = match alone[l] {
                    None => Some(m.alone[l]),
                    Some(prev) if prev == m.alone[l] => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
        for l in 0..2 {
            if let Some(Some(a)) = alone[l] {
                groups[l].push(a);
            }
        }
        let sp = f(14);
        let sps = std::str::from_utf8(sp).unwrap_or("");
        let em = its.eth_groups(sps).ok_or_else(|| format!("{pname} line {line}: unknown ethnicity code '{}'", lossy(sp)))?;
        for l in 0..2 {
            if let Some(a) = em.alone[l] {
                groups[l].push(a);
            }
            if groups[l].len() > s {
                return Err(format!(
                    "{pname} line {line}: record maps to {} groups in one level, above the stability {s}",
                    groups[l].len()
                ));
            }
        }
        let cell = sex * 23 + ages[age as usize] as usize;
        // the pass whose geography holds the block (the whole file when a pass has no geography of its own)
        let mut here = None;
        for (pi, pass) in passes.iter().enumerate() {
            match pass.geo {
                None => here = Some((pi, g)),
                Some(pg) => here = pg.blocks.get(&key).map(|b| (pi, b)),
            }
            if here.is_some() {
                break;
            }
        }
        let Some((pi, g)) = here else {
            skipped += 1;
            continue;
        };
        for lc in out[pi].iter_mut() {
            let gi = match lc.level.geo {
                GeoLevel::Usa => 0,
                GeoLevel::State => g[0],
                GeoLevel::County => g[1],
                GeoLevel::Tract => g[2],
                GeoLevel::Place => g[3],
                GeoLevel::Aiannh => g[4],
            };
            if gi == NONE {
                continue;
            }
            let ni = lc.iters.len();
            for &it in &groups[if lc.level.detailed { 0 } else { 1 }] {
                if let Some(li) = lc.local[it as usize] {
                    let c = &mut lc.counts[(gi as usize * ni + li as usize) * CELLS + cell];
                    // a cell holds at most the number of records: refuse rather than wrap past u32
                    *c = c.checked_add(1).ok_or_else(|| format!("{pname} line {line}: more than {} persons in one cell", u32::MAX))?;
                }
            }
        }
        if n.is_multiple_of(1 << 20) {
            if let Some(pb) = &pb {
                pb.set_message(format!("{n} persons"));
            }
        }
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok((out, n, skipped))
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(40).collect()
}

fn parse_u32(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    let mut v: u32 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

/// Merge the 23 age bins of one sex into the bins starting at `starts`.
pub fn merge_bins(cells23: &[u32], starts: &[u32]) -> Vec<i64> {
    let mut out = vec![0i64; starts.len()];
    for (k, &a) in AGE23.iter().enumerate() {
        let j = starts.iter().rposition(|&s| s <= a).unwrap();
        out[j] += cells23[k] as i64;
    }
    out
}

/// What a population group releases (its "counts" in Algorithm 4's sense).
#[derive(Clone, Debug, PartialEq)]
enum Counts {
    /// T01001 total only
    Total(i64),
    /// Sex × Age: the bin starts (Age4, Age9 or Age23) and the noisy cells per sex
    SexAge(&'static [u32], [Vec<i64>; 2]),
}

struct LevelOut {
    /// per group (index geo·n_iter + local iteration): None = suppressed
    groups_out: Vec<Option<Counts>>,
    draws: u64,
    groups: u64,
    two_stage: u64,
    total_only: u64,
    /// σ² of the samplers that ran: stage 1, stage 2, total-only
    sigma2: [Rational; 3],
}

/// Algorithms 1–3 for one level plus the suppression of §5.3.2 (noisy total ≤ T).
fn noise_level(lc: &LevelCounts, spec: &LevelSpec, inp: &Inputs, src: NoiseSource, threshold: i64) -> Result<LevelOut, String> {
    let cfg = &inp.config;
    let s = Rational::from(cfg.stability);
    let per_group = spec.rho.clone() / s;
    let g = cfg.gamma.clone();
    let dg_total_only = DiscreteGaussianSampler::for_rho(&per_group)?;
    let dg1 = DiscreteGaussianSampler::for_rho(&(g.clone() * per_group.clone()))?;
    let dg2 = DiscreteGaussianSampler::for_rho(&((Rational::from(1) - g) * per_group.clone()))?;
    let mut rng = src.rng;
    let [th1, th2, th3] = spec.thresholds;
    let ni = lc.iters.len();
    let mut o = LevelOut {
        groups_out: Vec::with_capacity(lc.n_geo * ni),
        draws: 0,
        groups: 0,
        two_stage: 0,
        total_only: 0,
        sigma2: [dg1.sigma2.clone(), dg2.sigma2.clone(), dg_total_only.sigma2.clone()],
    };
    for gi in 0..lc.n_geo {
        for (li, &it) in lc.iters.iter().enumerate() {
            o.groups += 1;
            let iter = &inp.iterations.list[it as usize];
            let base = (gi * ni + li) * CELLS;
            let cells = &lc.counts[base..base + CELLS];
            let total: i64 = cells.iter().map(|&c| c as i64).sum();
            if iter.total_only && !spec.geo.substate() {
                o.total_only += 1;
                let noisy = total + dg_total_only.sample(&mut rng);
                o.draws += 1;
                o.groups_out.push(Some(Counts::Total(noisy)));
                continue;
            }
            o.two_stage += 1;
            let stage1 = total + dg1.sample(&mut rng);
            o.draws += 1;
            if stage1 < th1 {
                let noisy = total + dg2.sample(&mut rng);
                o.draws += 1;
                let suppressed = spec.geo.substate() && noisy <= threshold;
                o.groups_out.push(if suppressed { None } else { Some(Counts::Total(noisy)) });
                continue;
            }
            let starts: &'static [u32] = if stage1 < th2 {
                &AGE4
            } else if stage1 < th3 {
                &AGE9
            } else {
                &AGE23
            };
            let mut noisy_cells: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
            for (sex, out) in noisy_cells.iter_mut().enumerate() {
                let bins = merge_bins(&cells[sex * 23..sex * 23 + 23], starts);
                for b in bins {
                    out.push(b + dg2.sample(&mut rng));
                    o.draws += 1;
                }
            }
            o.groups_out.push(Some(Counts::SexAge(starts, noisy_cells)));
        }
    }
    Ok(o)
}

struct Rendered {
    t1: String,
    t2: String,
    t1_rows: u64,
    t2_rows: u64,
    suppressed: u64,
}

/// t1/t2 rows of one level (§5.3.1: sex marginals and the total are sums of the noisy cells).
fn render_level(lc: &LevelCounts, inp: &Inputs, geo: &Geography, groups_out: &[Option<Counts>]) -> Rendered {
    use std::fmt::Write as _;
    let ids = &geo.ids[&lc.level.geo];
    let rt = lc.level.region_type();
    let ni = lc.iters.len();
    let mut r = Rendered { t1: String::new(), t2: String::new(), t1_rows: 0, t2_rows: 0, suppressed: 0 };
    for gi in 0..lc.n_geo {
        for (li, &it) in lc.iters.iter().enumerate() {
            let code = &inp.iterations.list[it as usize].code;
            let rid = &ids[gi];
            match &groups_out[gi * ni + li] {
                None => r.suppressed += 1,
                Some(Counts::Total(noisy)) => {
                    let _ = writeln!(r.t1, "{rid}|{rt}|{code}|{noisy}");
                    r.t1_rows += 1;
                }
                Some(Counts::SexAge(starts, cells)) => {
                    let mut grand = 0i64;
                    for (sex, row) in cells.iter().enumerate() {
                        let mut marg = 0i64;
                        for (j, noisy) in row.iter().enumerate() {
                            marg += noisy;
                            let end = if j + 1 < starts.len() { starts[j + 1] - 1 } else { MAX_AGE };
                            let _ = writeln!(r.t2, "{rid}|{rt}|{code}|{}|{end}|{}|{noisy}", starts[j], sex + 1);
                            r.t2_rows += 1;
                        }
                        let _ = writeln!(r.t2, "{rid}|{rt}|{code}|*|*|{}|{marg}", sex + 1);
                        r.t2_rows += 1;
                        grand += marg;
                    }
                    let _ = writeln!(r.t1, "{rid}|{rt}|{code}|{grand}");
                    r.t1_rows += 1;
                }
            }
        }
    }
    r
}

/// The sets of coterminous population groups (Algorithm 4's 𝒞) as flat indices into the
/// concatenation of the levels' group vectors, each ordered by R (`coterminous::ORDER`): for each set
/// of coterminous geographic entities and each iteration, the groups of that iteration tabulated at
/// those entities (a level must be configured and tabulate the iteration; TotalOnly iterations are
/// not tabulated below state).
fn coterminous_group_sets(levels: &[LevelCounts], inp: &Inputs, geo: &Geography) -> Vec<Vec<usize>> {
    let mut offset = Vec::with_capacity(levels.len());
    let mut acc = 0usize;
    for lc in levels {
        offset.push(acc);
        acc += lc.n_geo * lc.iters.len();
    }
    let mut sets = Vec::new();
    for geo_set in coterminous::coterminous_geographies(geo) {
        for it in 0..inp.iterations.list.len() {
            let detailed = inp.iterations.list[it].detailed;
            let mut members = Vec::new();
            for &(level, e) in &geo_set {
                let found = levels.iter().enumerate().find(|(_, lc)| lc.level.geo == level && lc.level.detailed == detailed);
                if let Some((l, lc)) = found {
                    if let Some(li) = lc.local[it] {
                        members.push(offset[l] + e as usize * lc.iters.len() + li as usize);
                    }
                }
            }
            if members.len() >= 2 {
                sets.push(members);
            }
        }
    }
    sets
}

/// Headers of the released tables (SafeTab-P and SafeTab share the layout).
pub const T1_HEADER: &str = "REGION_ID|REGION_TYPE|ITERATION_CODE|COUNT";
pub const T2_HEADER: &str = "REGION_ID|REGION_TYPE|ITERATION_CODE|AGESTART|AGEEND|SEX|COUNT";

/// Write a `|`-separated table: the header line, then the pre-rendered row blocks in order.
pub fn write_table(p: &Path, header: &str, parts: &mut dyn Iterator<Item = &String>) -> Result<(), String> {
    let f = std::fs::File::create(p).map_err(|e| format!("cannot write '{}': {e}", p.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let go = || -> std::io::Result<()> {
        writeln!(w, "{header}")?;
        for s in parts {
            w.write_all(s.as_bytes())?;
        }
        w.flush()
    };
    go().map_err(|e| format!("cannot write '{}': {e}", p.display()))
}

/// Run SafeTab-P: validate + tabulate, then noise, then write `t1.txt`, `t2.txt` and `manifest.json`
/// into `out` (all or nothing).
pub fn run(inp: &Inputs, persons: &Path, out: &Path, seed: Option<u64>, progress: bool) -> Result<RunSummary, String> {
    run_with(inp, persons, out, seed, progress, true)
}

/// [`run`], with Algorithm 4 (coterminous geographies, §5.3.3) applied after suppression when
/// `coterminous` is true (the production post-processing) or skipped (the output of Algorithms 1–3
/// and §5.3.1–5.3.2 only).
///
/// The passes of the configuration ([HBC25, §5.4.2]) run the same algorithm on disjoint persons: the US
/// pass on the states other than 72 (those of `state_filter_us` when given), the Puerto Rico pass on
/// state 72, each with its own levels, geography and Algorithm 4; the persons file is read once and
/// the tables hold the US rows, then Puerto Rico's. Level i draws from noise substream i (config order),
/// so a run's noise does not depend on which other passes run.
pub fn run_with(
    inp: &Inputs,
    persons: &Path,
    out: &Path,
    seed: Option<u64>,
    progress: bool,
    coterminous: bool,
) -> Result<RunSummary, String> {
    let cfg = &inp.config;
    // thresholds (public: from the level budgets)
    let thresholds: Vec<i64> = cfg
        .levels
        .iter()
        .map(|l| if l.geo.substate() { suppression_threshold(&l.rho, cfg.stability, &cfg.gamma, &cfg.suppression_p) } else { Ok(i64::MIN) })
        .collect::<Result<_, _>>()?;
    let passes = cfg.passes();
    // per pass: the indices of its levels in the configuration, its levels, its geography
    let level_idx: Vec<Vec<usize>> =
        passes.iter().map(|p| (0..cfg.levels.len()).filter(|&i| cfg.levels[i].pass() == *p).collect()).collect();
    let specs: Vec<Vec<TabLevel>> = level_idx
        .iter()
        .map(|ix| {
            ix.iter()
                .map(|&i| {
                    let l = &cfg.levels[i];
                    TabLevel { geo: l.geo, detailed: l.detailed, include_total_only: !l.geo.substate(), pr: l.pr }
                })
                .collect()
        })
        .collect();
    let full = &inp.geography;
    let geos: Vec<Option<Geography>> = passes.iter().map(|&p| full.subset(&|st: &str| cfg.pass_of_state(st) == Some(p))).collect();
    let tabs: Vec<PassTab> = specs.iter().zip(&geos).map(|(sp, g)| PassTab { levels: sp, geo: g.as_ref() }).collect();
    let (levels, persons_n, skipped) = tabulate_passes(&tabs, cfg.stability, &inp.iterations, full, persons, progress)?;
    drop(tabs);
    // Only now is randomness touched.
    let root = match seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let mut summary = RunSummary {
        persons: persons_n,
        skipped,
        passes: passes.iter().map(|p| p.name().to_string()).collect(),
        groups: 0,
        t1_rows: 0,
        t2_rows: 0,
        suppressed: 0,
        noise_draws: 0,
        coterminous_sets: 0,
        coterminous_replaced: 0,
        manifest: Manifest {
            mechanism: "safetab-p".into(),
            for_release: seed.is_none(),
            seed,
            neighbors: "add-remove".into(),
            composition: if passes.len() > 1 { "disjoint-passes".into() } else { "sequential".into() },
            levels: Vec::new(),
            notes: if seed.is_some() { Some("seeded run: reproducible noise, NOT FOR RELEASE".into()) } else { None },
        },
    };
    let mut rendered: Vec<Rendered> = Vec::new();
    for (pi, pass) in passes.iter().enumerate() {
        let geo = geos[pi].as_ref().unwrap_or(full);
        let lv = &levels[pi];
        let ix = &level_idx[pi];
        let mut outs: Vec<LevelOut> = lv
            .par_iter()
            .zip(ix.par_iter())
            .map(|(lc, &i)| noise_level(lc, &cfg.levels[i], inp, root.substream(i as u64), thresholds[i]))
            .collect::<Result<_, _>>()?;
        // Algorithm 4 (post-processing of the released output; public sets and order), per pass
        if coterminous {
            let sets = coterminous_group_sets(lv, inp, geo);
            summary.coterminous_sets += sets.len() as u64;
            let mut flat: Vec<Option<Counts>> = outs.iter_mut().flat_map(|o| std::mem::take(&mut o.groups_out)).collect();
            summary.coterminous_replaced += coterminous::algorithm4(&mut flat, &sets) as u64;
            let mut it = flat.into_iter();
            for (o, lc) in outs.iter_mut().zip(lv) {
                o.groups_out = it.by_ref().take(lc.n_geo * lc.iters.len()).collect();
            }
        }
        rendered.extend(lv.par_iter().zip(outs.par_iter()).map(|(lc, o)| render_level(lc, inp, geo, &o.groups_out)).collect::<Vec<_>>());
        for (&i, o) in ix.iter().zip(&outs) {
            let spec = &cfg.levels[i];
            summary.groups += o.groups;
            summary.noise_draws += o.draws;
            let mut lm =
                level_manifest_sigma2(&spec.name(), &format!("rho={}", spec.rho_text), cfg.stability, &o.sigma2, o.two_stage, o.total_only);
            if passes.len() > 1 {
                lm.pass = Some(pass.name().to_string());
            }
            summary.manifest.levels.push(lm);
        }
    }
    drop(levels);
    for r in &rendered {
        summary.t1_rows += r.t1_rows;
        summary.t2_rows += r.t2_rows;
        summary.suppressed += r.suppressed;
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create '{}': {e}", out.display()))?;
    let tmp = |n: &str| -> PathBuf { out.join(format!(".{n}.tmp{}", std::process::id())) };
    write_table(&tmp("t1.txt"), T1_HEADER, &mut rendered.iter().map(|o| &o.t1))?;
    write_table(&tmp("t2.txt"), T2_HEADER, &mut rendered.iter().map(|o| &o.t2))?;
    let mj = summary.manifest.to_json();
    std::fs::write(tmp("manifest.json"), mj).map_err(|e| format!("cannot write manifest: {e}"))?;
    for n in ["t1.txt", "t2.txt", "manifest.json"] {
        std::fs::rename(tmp(n), out.join(n)).map_err(|e| format!("cannot write '{}': {e}", out.join(n).display()))?;
    }
    Ok(summary)
}
