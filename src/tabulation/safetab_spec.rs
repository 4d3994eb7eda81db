//! SafeTab-P inputs other than the persons: run configuration, characteristic iterations, race and
//! ethnicity codes, and the geography (all public; [HBC25, §2.2–2.3], §5).
//!
//! Files (pipe-separated text with a header row; see data/safetab/README.md):
//! * `config.toml` — γ, stability s, suppression probability p, and one `[[level]]` per population-group
//!   level: geography level (USA, STATE, COUNTY, TRACT, PLACE, AIANNH), iteration level (detailed,
//!   regional), ρ (exact decimal), thresholds Θ₁ < Θ₂ < Θ₃.
//! * `iterations.txt` — ITERATION_CODE|ITERATION_NAME|LEVEL|ALONE|KIND|TOTAL_ONLY
//!   (LEVEL detailed|regional, ALONE True|False, KIND race|ethnicity, TOTAL_ONLY True|False: the group
//!   gets only a total at USA/STATE and is not tabulated below state).
//! * `race-codes.txt` — ITERATION_CODE|CODE: the race (or ethnicity) codes that make up the group.
//! * `geography.txt` — TABBLKST|TABBLKCOU|TABTRACTCE|TABBLK|PLACEFP|AIANNHCE (99999 / 9999: none).

use crate::error::Fallible;
use crate::num::parse_rational;
use crate::{err, fallible};
use rug::Rational;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The SafeTab specification files of data/safetab/, built into the binary: `safetab` and
/// `safetab-p` work from any directory; `--data DIR` (DIR/safetab/NAME) or an explicit path overrides.
pub const BUILTIN: [(&str, &str); 11] = [
    ("config.toml", include_str!("../../data/safetab/config.toml")),
    ("production/config.json", include_str!("../../data/safetab/production/config.json")),
    ("production/race-characteristic-iterations.txt", include_str!("../../data/safetab/production/race-characteristic-iterations.txt")),
    (
        "production/ethnicity-characteristic-iterations.txt",
        include_str!("../../data/safetab/production/ethnicity-characteristic-iterations.txt"),
    ),
    (
        "production/race-and-ethnicity-code-to-iteration.txt",
        include_str!("../../data/safetab/production/race-and-ethnicity-code-to-iteration.txt"),
    ),
    ("production/race-and-ethnicity-codes.txt", include_str!("../../data/safetab/production/race-and-ethnicity-codes.txt")),
    ("safetab-geometric.toml", include_str!("../../data/safetab/safetab-geometric.toml")),
    ("safetab-dgauss.toml", include_str!("../../data/safetab/safetab-dgauss.toml")),
    ("iterations.txt", include_str!("../../data/safetab/iterations.txt")),
    ("iterations-re.txt", include_str!("../../data/safetab/iterations-re.txt")),
    ("race-codes.txt", include_str!("../../data/safetab/race-codes.txt")),
];

/// A specification file: a path, or one of the [`BUILTIN`] defaults.
#[derive(Clone, Debug)]
pub enum Spec {
    Path(PathBuf),
    Builtin(&'static str),
}

impl Spec {
    /// `explicit` if given, else `DIR/safetab/NAME` with `--data DIR`, else the built-in NAME.
    pub fn resolve(explicit: Option<&Path>, data: Option<&Path>, name: &'static str) -> Spec {
        match (explicit, data) {
            (Some(p), _) => Spec::Path(p.to_path_buf()),
            (None, Some(d)) => Spec::Path(d.join("safetab").join(name)),
            (None, None) => Spec::Builtin(name),
        }
    }

    /// The file's text.
    pub fn text(&self) -> Fallible<String> {
        match self {
            Spec::Path(p) => std::fs::read_to_string(p).map_err(|e| err!(Io, "cannot read '{}': {e}", p.display())),
            Spec::Builtin(n) => BUILTIN
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| err!(Internal, "no built-in data/safetab/{n}")),
        }
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Spec::Path(p) => p.display().to_string(),
            Spec::Builtin(n) => format!("built-in data/safetab/{n}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeoLevel {
    Usa,
    State,
    County,
    Tract,
    Place,
    Aiannh,
}

impl GeoLevel {
    pub fn parse(s: &str) -> Fallible<Self> {
        Ok(match s.trim().to_ascii_uppercase().as_str() {
            "USA" | "NATION" => GeoLevel::Usa,
            "STATE" => GeoLevel::State,
            "COUNTY" => GeoLevel::County,
            "TRACT" => GeoLevel::Tract,
            "PLACE" => GeoLevel::Place,
            "AIANNH" => GeoLevel::Aiannh,
            o => return fallible!(Input, "unknown geography level '{o}'"),
        })
    }
    pub fn name(&self) -> &'static str {
        match self {
            GeoLevel::Usa => "USA",
            GeoLevel::State => "STATE",
            GeoLevel::County => "COUNTY",
            GeoLevel::Tract => "TRACT",
            GeoLevel::Place => "PLACE",
            GeoLevel::Aiannh => "AIANNH",
        }
    }
    pub fn substate(&self) -> bool {
        !matches!(self, GeoLevel::Usa | GeoLevel::State)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel {
    geo: String,
    iterations: String,
    rho: String,
    thresholds: Vec<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    gamma: String,
    stability: u32,
    suppression_p: String,
    #[serde(default)]
    run_us: Option<bool>,
    #[serde(default)]
    run_pr: Option<bool>,
    #[serde(default)]
    state_filter_us: Option<Vec<String>>,
    level: Vec<RawLevel>,
}

/// The two passes of a production run ([HBC25, §5.4.2]): the 50 states and D.C., and Puerto Rico
/// (state code 72), tabulated separately by the same algorithm on disjoint sets of persons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    Us,
    Pr,
}

/// The state code of Puerto Rico (FIPS 72): its persons belong to the Puerto Rico pass only.
pub const PR_STATE: &str = "72";

impl Pass {
    pub fn name(&self) -> &'static str {
        match self {
            Pass::Us => "US",
            Pass::Pr => "PR",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LevelSpec {
    pub geo: GeoLevel,
    pub detailed: bool,
    pub rho: Rational,
    pub rho_text: String,
    pub thresholds: [i64; 3],
    /// a level of the Puerto Rico pass (PR-STATE, PR-COUNTY, PR-TRACT, PR-PLACE)
    pub pr: bool,
}

impl LevelSpec {
    pub fn name(&self) -> String {
        format!("{}-{}", self.region_type(), if self.detailed { "detailed" } else { "regional" })
    }
    /// REGION_TYPE of the released rows: the geography level, `PR-` prefixed in the Puerto Rico pass.
    pub fn region_type(&self) -> String {
        if self.pr {
            format!("PR-{}", self.geo.name())
        } else {
            self.geo.name().to_string()
        }
    }
    pub fn pass(&self) -> Pass {
        if self.pr {
            Pass::Pr
        } else {
            Pass::Us
        }
    }
}

/// A level's geography: `USA`…`AIANNH` (US pass) or `PR-STATE`, `PR-COUNTY`, `PR-TRACT`, `PR-PLACE`
/// (Puerto Rico pass: no nation and no AIANNH level, as the production configuration).
pub fn parse_level_geo(s: &str) -> Fallible<(GeoLevel, bool)> {
    let t = s.trim().to_ascii_uppercase();
    match t.strip_prefix("PR-") {
        Some(rest) => {
            let g = GeoLevel::parse(rest)?;
            if matches!(g, GeoLevel::Usa | GeoLevel::Aiannh) {
                return fallible!(Input, "'{t}' is not a Puerto Rico level (PR-STATE, PR-COUNTY, PR-TRACT, PR-PLACE)");
            }
            Ok((g, true))
        }
        None => Ok((GeoLevel::parse(&t)?, false)),
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub gamma: Rational,
    pub stability: u32,
    pub suppression_p: Rational,
    pub levels: Vec<LevelSpec>,
    /// run the US pass (the states other than 72) and the Puerto Rico pass ([HBC25, §5.4.2])
    pub run_us: bool,
    pub run_pr: bool,
    /// the states of the US pass (production `state_filter_us`); None: every state but 72
    pub state_filter_us: Option<Vec<String>>,
}

impl Config {
    /// A TOML configuration (data/safetab/config.toml); `name` names it in messages. (`Config::from_spec`,
    /// in `safetab_prod.rs`, tells it apart from the Bureau's `config.json`.)
    pub fn from_toml(text: &str, name: &str) -> Fallible<Config> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            err!(Input, "{name}: {}{at}", crate::record::one_line(e.message()))
        })?;
        let gamma = parse_rational(&raw.gamma).map_err(|e| e.context("config gamma"))?;
        let sp = parse_rational(&raw.suppression_p).map_err(|e| e.context("config suppression_p"))?;
        let mut levels = Vec::new();
        for (i, l) in raw.level.iter().enumerate() {
            let (geo, pr) = parse_level_geo(&l.geo).map_err(|e| e.context(format!("config level {}", i + 1)))?;
            let detailed = match l.iterations.trim().to_ascii_lowercase().as_str() {
                "detailed" => true,
                "regional" => false,
                o => return fallible!(Input, "config level {}: iterations must be detailed or regional, got '{o}'", i + 1),
            };
            let rho = parse_rational(&l.rho).map_err(|e| e.context(format!("config level {} rho", i + 1)))?;
            if rho <= 0 {
                return fallible!(Input, "config level {} ({}): budget rho must be positive, got '{}'", i + 1, l.geo, l.rho);
            }
            if l.thresholds.len() != 3 {
                return fallible!(Input, "config level {}: thresholds must be three increasing integers", i + 1);
            }
            let thresholds = [l.thresholds[0], l.thresholds[1], l.thresholds[2]];
            levels.push(LevelSpec { geo, detailed, rho, rho_text: l.rho.trim().to_string(), thresholds, pr });
        }
        let has = |pr: bool| levels.iter().any(|l| l.pr == pr);
        let (run_us, run_pr) = (raw.run_us.unwrap_or(has(false)), raw.run_pr.unwrap_or(has(true)));
        Config::checked(gamma, raw.stability, sp, levels, run_us, run_pr, raw.state_filter_us)
    }

    /// Validate and assemble (shared by the TOML and the JSON readers).
    pub fn checked(
        gamma: Rational,
        stability: u32,
        suppression_p: Rational,
        levels: Vec<LevelSpec>,
        run_us: bool,
        run_pr: bool,
        state_filter_us: Option<Vec<String>>,
    ) -> Fallible<Config> {
        if gamma <= 0 || gamma >= 1 {
            return fallible!(Input, "config gamma must lie in (0, 1)");
        }
        if stability == 0 {
            return fallible!(Input, "config stability must be ≥ 1");
        }
        if suppression_p <= (1, 2) || suppression_p >= 1 {
            return fallible!(Input, "config suppression_p must lie in (1/2, 1)");
        }
        let mut names: Vec<String> = Vec::new();
        for (i, l) in levels.iter().enumerate() {
            if !(l.thresholds[0] < l.thresholds[1] && l.thresholds[1] < l.thresholds[2]) {
                return fallible!(Input, "config level {} ({}): thresholds must be three increasing integers", i + 1, l.name());
            }
            if !l.detailed && l.geo == GeoLevel::Aiannh {
                return fallible!(Input, "config: the (AIANNH, regional) level is not part of SafeTab-P");
            }
            if names.contains(&l.name()) {
                return fallible!(Input, "config: level {} listed twice", l.name());
            }
            names.push(l.name());
        }
        if levels.is_empty() {
            return fallible!(Input, "config: no [[level]]");
        }
        if !run_us && !run_pr {
            return fallible!(Input, "config: run_us and run_pr are both false: no pass to run");
        }
        for (run, pr, what) in [(run_us, false, "run_us"), (run_pr, true, "run_pr")] {
            if run && !levels.iter().any(|l| l.pr == pr) {
                return fallible!(
                    Input,
                    "config: {what} is set but no {} level is configured",
                    if pr { "Puerto Rico (PR-…)" } else { "US" }
                );
            }
        }
        if let Some(f) = &state_filter_us {
            let mut seen = std::collections::HashSet::new();
            for s in f {
                if s.len() != 2 || !s.bytes().all(|c| c.is_ascii_digit()) || s == PR_STATE {
                    return fallible!(Input, "config state_filter_us: '{s}' is not a two-digit state code other than 72");
                }
                if !seen.insert(s) {
                    return fallible!(Input, "config state_filter_us: '{s}' listed twice");
                }
            }
        }
        Ok(Config { gamma, stability, suppression_p, levels, run_us, run_pr, state_filter_us })
    }

    /// The passes this configuration runs, US first (the production order).
    pub fn passes(&self) -> Vec<Pass> {
        [(self.run_us, Pass::Us), (self.run_pr, Pass::Pr)].iter().filter(|(r, _)| *r).map(|&(_, p)| p).collect()
    }

    /// The pass that tabulates the persons of a state (None: no pass run here does).
    pub fn pass_of_state(&self, st: &str) -> Option<Pass> {
        if st == PR_STATE {
            return self.run_pr.then_some(Pass::Pr);
        }
        let kept = self.state_filter_us.as_ref().is_none_or(|f| f.iter().any(|s| s == st));
        (self.run_us && kept).then_some(Pass::Us)
    }

    /// Select the passes (`--passes`), overriding `run_us` / `run_pr`.
    pub fn with_passes(mut self, passes: &[Pass]) -> Fallible<Config> {
        self.run_us = passes.contains(&Pass::Us);
        self.run_pr = passes.contains(&Pass::Pr);
        Config::checked(self.gamma, self.stability, self.suppression_p, self.levels, self.run_us, self.run_pr, self.state_filter_us)
    }
}

#[derive(Clone, Debug)]
pub struct Iteration {
    pub code: String,
    pub detailed: bool,
    pub alone: bool,
    pub ethnicity: bool,
    /// TotalOnly ([HBC25, §3.1]; production DETAILED_ONLY): only a total, only at nation/state in SafeTab-P
    pub total_only: bool,
    /// production COARSE_ONLY: not tabulated at nation/state (no row of the 2020 files has it)
    pub coarse_only: bool,
}

/// Code → iteration indices, per iteration level (0 = detailed, 1 = regional).
#[derive(Clone, Debug, Default)]
pub struct CodeMap {
    pub aoic: [Option<u32>; 2],
    pub alone: [Option<u32>; 2],
}

#[derive(Clone, Debug)]
pub struct Iterations {
    pub list: Vec<Iteration>,
    /// race code → groups it belongs to
    pub race: HashMap<String, CodeMap>,
    /// ethnicity code → groups (in `alone`)
    pub eth: HashMap<String, CodeMap>,
    /// the code list in file order (production `race-and-ethnicity-codes.txt`; the synthetic format:
    /// the codes of race-codes.txt in order of first appearance)
    pub codes: Vec<String>,
    /// production format: every valid code, including those in no tabulated group (e.g. the codes of
    /// level-0 groups only); None: a code is valid iff some group lists it
    pub known: Option<std::collections::HashSet<String>>,
}

/// The groups of a code that is valid but in no tabulated group.
pub const NO_GROUPS: CodeMap = CodeMap { aoic: [None, None], alone: [None, None] };

impl Iterations {
    /// The groups of a race code (None: not a valid code).
    pub fn race_groups(&self, code: &str) -> Option<&CodeMap> {
        self.race.get(code).or_else(|| self.is_known(code).then_some(&NO_GROUPS))
    }
    /// The groups of an ethnicity code (None: not a valid code).
    pub fn eth_groups(&self, code: &str) -> Option<&CodeMap> {
        self.eth.get(code).or_else(|| self.is_known(code).then_some(&NO_GROUPS))
    }
    fn is_known(&self, code: &str) -> bool {
        self.known.as_ref().is_some_and(|k| k.contains(code))
    }
}

fn read_pipe(p: &Path, header: &[&str]) -> Fallible<Vec<(usize, Vec<String>)>> {
    let text = std::fs::read_to_string(p).map_err(|e| err!(Io, "cannot read '{}': {e}", p.display()))?;
    parse_pipe(&text, &p.display().to_string(), header)
}

pub(crate) fn parse_pipe(text: &str, name: &str, header: &[&str]) -> Fallible<Vec<(usize, Vec<String>)>> {
    let p = name;
    let mut lines = text.lines().enumerate();
    let (_, h) = lines.next().ok_or_else(|| err!(Input, "{}: empty file", p))?;
    let cols: Vec<&str> = h.split('|').map(|c| c.trim()).collect();
    if cols != header {
        return fallible!(Input, "{} line 1: header must be {}", p, header.join("|"));
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
        if f.len() != header.len() {
            return fallible!(Input, "{} line {}: expected {} fields, got {}", p, i + 1, header.len(), f.len());
        }
        out.push((i + 1, f));
    }
    Ok(out)
}

pub(crate) fn parse_bool(s: &str, what: &str, p: &str, line: usize) -> Fallible<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => fallible!(Input, "{p} line {line}: {what} must be True or False, got '{s}'"),
    }
}

impl Iterations {
    pub fn load(iter_path: &Path, codes_path: &Path) -> Fallible<Iterations> {
        Self::from_specs(&Spec::Path(iter_path.to_path_buf()), &Spec::Path(codes_path.to_path_buf()))
    }

    pub fn from_specs(iter: &Spec, codes: &Spec) -> Fallible<Iterations> {
        let (iter_path, codes_path) = (iter.name(), codes.name());
        let rows = parse_pipe(&iter.text()?, &iter_path, &["ITERATION_CODE", "ITERATION_NAME", "LEVEL", "ALONE", "KIND", "TOTAL_ONLY"])?;
        let mut list = Vec::new();
        let mut idx: HashMap<String, usize> = HashMap::new();
        for (line, f) in rows {
            let detailed = match f[2].to_ascii_lowercase().as_str() {
                "detailed" => true,
                "regional" => false,
                o => return fallible!(Input, "{} line {line}: LEVEL must be detailed or regional, got '{o}'", iter_path),
            };
            let alone = parse_bool(&f[3], "ALONE", &iter_path, line)?;
            let ethnicity = match f[4].to_ascii_lowercase().as_str() {
                "race" => false,
                "ethnicity" => true,
                o => return fallible!(Input, "{} line {line}: KIND must be race or ethnicity, got '{o}'", iter_path),
            };
            if ethnicity && !alone {
                return fallible!(Input, "{} line {line}: ethnicity iterations are Alone groups", iter_path);
            }
            let total_only = parse_bool(&f[5], "TOTAL_ONLY", &iter_path, line)?;
            if f[0].is_empty() || f[0].contains(['|', ',']) {
                return fallible!(Input, "{} line {line}: bad ITERATION_CODE", iter_path);
            }
            if idx.insert(f[0].clone(), list.len()).is_some() {
                return fallible!(Input, "{} line {line}: duplicate ITERATION_CODE {}", iter_path, f[0]);
            }
            list.push(Iteration { code: f[0].clone(), detailed, alone, ethnicity, total_only, coarse_only: false });
        }
        let rows = parse_pipe(&codes.text()?, &codes_path, &["ITERATION_CODE", "CODE"])?;
        let (race, eth, order) = code_maps(&list, &idx, &Default::default(), rows, &codes_path)?;
        Ok(Iterations { list, race, eth, codes: order, known: None })
    }
}

/// Code → group maps from `(line, [ITERATION_CODE, CODE])` rows, and the codes in order of first
/// appearance. Rows of an iteration in `ignored` (production level-0 groups) are skipped; any other
/// unknown ITERATION_CODE is an error.
pub(crate) fn code_maps(
    list: &[Iteration],
    idx: &HashMap<String, usize>,
    ignored: &std::collections::HashSet<String>,
    rows: Vec<(usize, Vec<String>)>,
    codes_path: &str,
) -> Fallible<(HashMap<String, CodeMap>, HashMap<String, CodeMap>, Vec<String>)> {
    let mut race: HashMap<String, CodeMap> = HashMap::new();
    let mut eth: HashMap<String, CodeMap> = HashMap::new();
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (line, f) in rows {
        if seen.insert(f[1].clone()) {
            order.push(f[1].clone());
        }
        if ignored.contains(&f[0]) {
            continue;
        }
        let &i = idx.get(&f[0]).ok_or_else(|| err!(Input, "{} line {line}: unknown ITERATION_CODE {}", codes_path, f[0]))?;
        let it = &list[i];
        let lvl = if it.detailed { 0 } else { 1 };
        let map = if it.ethnicity { eth.entry(f[1].clone()).or_default() } else { race.entry(f[1].clone()).or_default() };
        // Stability: each code in at most one Alone and one AOIC group per iteration level, so a person
        // (≤ 8 race codes, 1 ethnicity code) is in at most 8 AOIC + 1 ethnicity groups or 1 AOIC + 1 Alone
        // + 1 ethnicity group per level (safetab-p §2.3: Δ = 9). Re-checked per record.
        let slot = if it.alone { &mut map.alone[lvl] } else { &mut map.aoic[lvl] };
        if let Some(prev) = slot {
            if *prev as usize != i {
                return fallible!(
                    Input,
                    "{} line {line}: code {} is in two {} {} groups ({} and {}): stability would exceed the bound",
                    codes_path,
                    f[1],
                    if it.detailed { "detailed" } else { "regional" },
                    if it.alone { "Alone" } else { "AOIC" },
                    list[*prev as usize].code,
                    it.code
                );
            }
        }
        *slot = Some(i as u32);
    }
    Ok((race, eth, order))
}

/// Geographic entities of each level and the block → entity map.
#[derive(Clone, Debug)]
pub struct Geography {
    /// entity ids per level: USA, STATE, COUNTY, TRACT, PLACE, AIANNH
    pub ids: HashMap<GeoLevel, Vec<String>>,
    /// block key → [state, county, tract, place (u32::MAX: none), aiannh (u32::MAX: none)]
    pub blocks: HashMap<u64, [u32; 5]>,
}

pub const NONE: u32 = u32::MAX;

/// Pack a block id (2 + 3 + 6 + 4 digits) into an integer; None if malformed.
pub fn block_key(st: &[u8], cou: &[u8], tract: &[u8], blk: &[u8]) -> Option<u64> {
    if st.len() != 2 || cou.len() != 3 || tract.len() != 6 || blk.len() != 4 {
        return None;
    }
    let mut k: u64 = 0;
    for part in [st, cou, tract, blk] {
        for &c in part {
            if !c.is_ascii_digit() {
                return None;
            }
            k = k * 10 + (c - b'0') as u64;
        }
    }
    Some(k)
}

impl Geography {
    pub fn load(p: &Path) -> Fallible<Geography> {
        let rows = read_pipe(p, &["TABBLKST", "TABBLKCOU", "TABTRACTCE", "TABBLK", "PLACEFP", "AIANNHCE"])?;
        let mut ids: HashMap<GeoLevel, Vec<String>> = HashMap::new();
        let mut index: HashMap<(GeoLevel, String), u32> = HashMap::new();
        let mut get = |lvl: GeoLevel, id: String, ids: &mut HashMap<GeoLevel, Vec<String>>| -> u32 {
            *index.entry((lvl, id.clone())).or_insert_with(|| {
                let v = ids.entry(lvl).or_default();
                v.push(id);
                (v.len() - 1) as u32
            })
        };
        ids.insert(GeoLevel::Usa, vec!["1".to_string()]);
        let mut blocks = HashMap::new();
        for (line, f) in rows {
            let key = block_key(f[0].as_bytes(), f[1].as_bytes(), f[2].as_bytes(), f[3].as_bytes())
                .ok_or_else(|| err!(Input, "{} line {line}: malformed block id", p.display()))?;
            let st = get(GeoLevel::State, f[0].clone(), &mut ids);
            let cou = get(GeoLevel::County, format!("{}{}", f[0], f[1]), &mut ids);
            let tr = get(GeoLevel::Tract, format!("{}{}{}", f[0], f[1], f[2]), &mut ids);
            let pl = if f[4] == "99999" {
                NONE
            } else if f[4].len() == 5 && f[4].bytes().all(|c| c.is_ascii_digit()) {
                get(GeoLevel::Place, format!("{}{}", f[0], f[4]), &mut ids)
            } else {
                return fallible!(Input, "{} line {line}: malformed PLACEFP '{}'", p.display(), f[4]);
            };
            let ai = if f[5] == "9999" {
                NONE
            } else if f[5].len() == 4 && f[5].bytes().all(|c| c.is_ascii_digit()) {
                get(GeoLevel::Aiannh, f[5].clone(), &mut ids)
            } else {
                return fallible!(Input, "{} line {line}: malformed AIANNHCE '{}'", p.display(), f[5]);
            };
            if blocks.insert(key, [st, cou, tr, pl, ai]).is_some() {
                return fallible!(Input, "{} line {line}: duplicate block", p.display());
            }
        }
        for l in [GeoLevel::State, GeoLevel::County, GeoLevel::Tract, GeoLevel::Place, GeoLevel::Aiannh] {
            ids.entry(l).or_default();
        }
        Ok(Geography { ids, blocks })
    }

    /// The geography of the blocks whose state `keep` accepts (one pass of a run, [HBC25, §5.4.2]),
    /// entities re-indexed in their original order; None when every block is kept (use `self`).
    pub fn subset(&self, keep: &dyn Fn(&str) -> bool) -> Option<Geography> {
        let states = &self.ids[&GeoLevel::State];
        let kept: Vec<bool> = states.iter().map(|s| keep(s)).collect();
        if kept.iter().all(|&k| k) {
            return None;
        }
        const LEVELS: [GeoLevel; 5] = [GeoLevel::State, GeoLevel::County, GeoLevel::Tract, GeoLevel::Place, GeoLevel::Aiannh];
        let mut used: Vec<Vec<bool>> = LEVELS.iter().map(|l| vec![false; self.ids[l].len()]).collect();
        for b in self.blocks.values().filter(|b| kept[b[0] as usize]) {
            for (k, &e) in b.iter().enumerate() {
                if e != NONE {
                    used[k][e as usize] = true;
                }
            }
        }
        let mut ids: HashMap<GeoLevel, Vec<String>> = HashMap::new();
        ids.insert(GeoLevel::Usa, vec!["1".to_string()]);
        let mut remap: Vec<Vec<u32>> = Vec::new();
        for (k, l) in LEVELS.iter().enumerate() {
            let mut m = vec![NONE; used[k].len()];
            let mut v = Vec::new();
            for (e, &u) in used[k].iter().enumerate() {
                if u {
                    m[e] = v.len() as u32;
                    v.push(self.ids[l][e].clone());
                }
            }
            ids.insert(*l, v);
            remap.push(m);
        }
        let blocks = self
            .blocks
            .iter()
            .filter(|(_, b)| kept[b[0] as usize])
            .map(|(&key, b)| {
                let mut nb = [NONE; 5];
                for k in 0..5 {
                    if b[k] != NONE {
                        nb[k] = remap[k][b[k] as usize];
                    }
                }
                (key, nb)
            })
            .collect();
        Some(Geography { ids, blocks })
    }
}
