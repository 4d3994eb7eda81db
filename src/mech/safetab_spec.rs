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

use crate::num::parse_rational;
use rug::Rational;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The SafeTab specification files of data/safetab/, built into the binary: `safetab` and
/// `safetab-p` work from any directory; `--data DIR` (DIR/safetab/NAME) or an explicit path overrides.
pub const BUILTIN: [(&str, &str); 6] = [
    ("config.toml", include_str!("../../data/safetab/config.toml")),
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
    pub fn text(&self) -> Result<String, String> {
        match self {
            Spec::Path(p) => std::fs::read_to_string(p).map_err(|e| format!("cannot read '{}': {e}", p.display())),
            Spec::Builtin(n) => BUILTIN
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| format!("internal error: no built-in data/safetab/{n}")),
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
    pub fn parse(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_uppercase().as_str() {
            "USA" | "NATION" => GeoLevel::Usa,
            "STATE" => GeoLevel::State,
            "COUNTY" => GeoLevel::County,
            "TRACT" => GeoLevel::Tract,
            "PLACE" => GeoLevel::Place,
            "AIANNH" => GeoLevel::Aiannh,
            o => return Err(format!("unknown geography level '{o}'")),
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
    level: Vec<RawLevel>,
}

#[derive(Clone, Debug)]
pub struct LevelSpec {
    pub geo: GeoLevel,
    pub detailed: bool,
    pub rho: Rational,
    pub rho_text: String,
    pub thresholds: [i64; 3],
}

impl LevelSpec {
    pub fn name(&self) -> String {
        format!("{}-{}", self.geo.name(), if self.detailed { "detailed" } else { "regional" })
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub gamma: Rational,
    pub stability: u32,
    pub suppression_p: Rational,
    pub levels: Vec<LevelSpec>,
}

impl Config {
    pub fn from_path(p: &Path) -> Result<Config, String> {
        Self::from_spec(&Spec::Path(p.to_path_buf()))
    }

    pub fn from_spec(spec: &Spec) -> Result<Config, String> {
        let text = spec.text()?;
        let raw: RawConfig = toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            format!("{}: {}{at}", spec.name(), crate::record::one_line(e.message()))
        })?;
        let gamma = parse_rational(&raw.gamma).map_err(|e| format!("config gamma: {e}"))?;
        if gamma <= 0 || gamma >= 1 {
            return Err("config gamma must lie in (0, 1)".into());
        }
        if raw.stability == 0 {
            return Err("config stability must be ≥ 1".into());
        }
        let sp = parse_rational(&raw.suppression_p).map_err(|e| format!("config suppression_p: {e}"))?;
        if sp <= (1, 2) || sp >= 1 {
            return Err("config suppression_p must lie in (1/2, 1)".into());
        }
        let mut levels = Vec::new();
        for (i, l) in raw.level.iter().enumerate() {
            let geo = GeoLevel::parse(&l.geo).map_err(|e| format!("config level {}: {e}", i + 1))?;
            let detailed = match l.iterations.trim().to_ascii_lowercase().as_str() {
                "detailed" => true,
                "regional" => false,
                o => return Err(format!("config level {}: iterations must be detailed or regional, got '{o}'", i + 1)),
            };
            let rho = parse_rational(&l.rho).map_err(|e| format!("config level {} rho: {e}", i + 1))?;
            if rho <= 0 {
                return Err(format!("config level {} ({}): budget rho must be positive, got '{}'", i + 1, l.geo, l.rho));
            }
            if l.thresholds.len() != 3 || !(l.thresholds[0] < l.thresholds[1] && l.thresholds[1] < l.thresholds[2]) {
                return Err(format!("config level {}: thresholds must be three increasing integers", i + 1));
            }
            if !detailed && geo == GeoLevel::Aiannh {
                return Err("config: the (AIANNH, regional) level is not part of SafeTab-P".into());
            }
            let spec = LevelSpec {
                geo,
                detailed,
                rho,
                rho_text: l.rho.trim().to_string(),
                thresholds: [l.thresholds[0], l.thresholds[1], l.thresholds[2]],
            };
            if levels.iter().any(|x: &LevelSpec| x.name() == spec.name()) {
                return Err(format!("config: level {} listed twice", spec.name()));
            }
            levels.push(spec);
        }
        if levels.is_empty() {
            return Err("config: no [[level]]".into());
        }
        Ok(Config { gamma, stability: raw.stability, suppression_p: sp, levels })
    }
}

#[derive(Clone, Debug)]
pub struct Iteration {
    pub code: String,
    pub name: String,
    pub detailed: bool,
    pub alone: bool,
    pub ethnicity: bool,
    pub total_only: bool,
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
}

fn read_pipe(p: &Path, header: &[&str]) -> Result<Vec<(usize, Vec<String>)>, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
    parse_pipe(&text, &p.display().to_string(), header)
}

fn parse_pipe(text: &str, name: &str, header: &[&str]) -> Result<Vec<(usize, Vec<String>)>, String> {
    let p = name;
    let mut lines = text.lines().enumerate();
    let (_, h) = lines.next().ok_or_else(|| format!("{}: empty file", p))?;
    let cols: Vec<&str> = h.split('|').map(|c| c.trim()).collect();
    if cols != header {
        return Err(format!("{} line 1: header must be {}", p, header.join("|")));
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
        if f.len() != header.len() {
            return Err(format!("{} line {}: expected {} fields, got {}", p, i + 1, header.len(), f.len()));
        }
        out.push((i + 1, f));
    }
    Ok(out)
}

fn parse_bool(s: &str, what: &str, p: &str, line: usize) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{p} line {line}: {what} must be True or False, got '{s}'")),
    }
}

impl Iterations {
    pub fn load(iter_path: &Path, codes_path: &Path) -> Result<Iterations, String> {
        Self::from_specs(&Spec::Path(iter_path.to_path_buf()), &Spec::Path(codes_path.to_path_buf()))
    }

    pub fn from_specs(iter: &Spec, codes: &Spec) -> Result<Iterations, String> {
        let (iter_path, codes_path) = (iter.name(), codes.name());
        let rows = parse_pipe(&iter.text()?, &iter_path, &["ITERATION_CODE", "ITERATION_NAME", "LEVEL", "ALONE", "KIND", "TOTAL_ONLY"])?;
        let mut list = Vec::new();
        let mut idx: HashMap<String, usize> = HashMap::new();
        for (line, f) in rows {
            let detailed = match f[2].to_ascii_lowercase().as_str() {
                "detailed" => true,
                "regional" => false,
                o => return Err(format!("{} line {line}: LEVEL must be detailed or regional, got '{o}'", iter_path)),
            };
            let alone = parse_bool(&f[3], "ALONE", &iter_path, line)?;
            let ethnicity = match f[4].to_ascii_lowercase().as_str() {
                "race" => false,
                "ethnicity" => true,
                o => return Err(format!("{} line {line}: KIND must be race or ethnicity, got '{o}'", iter_path)),
            };
            if ethnicity && !alone {
                return Err(format!("{} line {line}: ethnicity iterations are Alone groups", iter_path));
            }
            let total_only = parse_bool(&f[5], "TOTAL_ONLY", &iter_path, line)?;
            if f[0].is_empty() || f[0].contains(['|', ',']) {
                return Err(format!("{} line {line}: bad ITERATION_CODE", iter_path));
            }
            if idx.insert(f[0].clone(), list.len()).is_some() {
                return Err(format!("{} line {line}: duplicate ITERATION_CODE {}", iter_path, f[0]));
            }
            list.push(Iteration { code: f[0].clone(), name: f[1].clone(), detailed, alone, ethnicity, total_only });
        }
        let mut race: HashMap<String, CodeMap> = HashMap::new();
        let mut eth: HashMap<String, CodeMap> = HashMap::new();
        for (line, f) in parse_pipe(&codes.text()?, &codes_path, &["ITERATION_CODE", "CODE"])? {
            let &i = idx.get(&f[0]).ok_or_else(|| format!("{} line {line}: unknown ITERATION_CODE {}", codes_path, f[0]))?;
            let it = &list[i];
            let lvl = if it.detailed { 0 } else { 1 };
            let map = if it.ethnicity { eth.entry(f[1].clone()).or_default() } else { race.entry(f[1].clone()).or_default() };
            // Stability: each code in at most one Alone and one AOIC group per iteration level, so a person
            // (≤ 8 race codes, 1 ethnicity code) is in at most 8 AOIC + 1 ethnicity groups or 1 AOIC + 1 Alone
            // + 1 ethnicity group per level (safetab-p §2.3: Δ = 9). Re-checked per record.
            let slot = if it.alone { &mut map.alone[lvl] } else { &mut map.aoic[lvl] };
            if let Some(prev) = slot {
                if *prev as usize != i {
                    return Err(format!(
                        "{} line {line}: code {} is in two {} {} groups ({} and {}): stability would exceed the bound",
                        codes_path,
                        f[1],
                        if it.detailed { "detailed" } else { "regional" },
                        if it.alone { "Alone" } else { "AOIC" },
                        list[*prev as usize].code,
                        it.code
                    ));
                }
            }
            *slot = Some(i as u32);
        }
        Ok(Iterations { list, race, eth })
    }
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
    pub fn load(p: &Path) -> Result<Geography, String> {
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
                .ok_or_else(|| format!("{} line {line}: malformed block id", p.display()))?;
            let st = get(GeoLevel::State, f[0].clone(), &mut ids);
            let cou = get(GeoLevel::County, format!("{}{}", f[0], f[1]), &mut ids);
            let tr = get(GeoLevel::Tract, format!("{}{}{}", f[0], f[1], f[2]), &mut ids);
            let pl = if f[4] == "99999" {
                NONE
            } else if f[4].len() == 5 && f[4].bytes().all(|c| c.is_ascii_digit()) {
                get(GeoLevel::Place, format!("{}{}", f[0], f[4]), &mut ids)
            } else {
                return Err(format!("{} line {line}: malformed PLACEFP '{}'", p.display(), f[4]));
            };
            let ai = if f[5] == "9999" {
                NONE
            } else if f[5].len() == 4 && f[5].bytes().all(|c| c.is_ascii_digit()) {
                get(GeoLevel::Aiannh, f[5].clone(), &mut ids)
            } else {
                return Err(format!("{} line {line}: malformed AIANNHCE '{}'", p.display(), f[5]));
            };
            if blocks.insert(key, [st, cou, tr, pl, ai]).is_some() {
                return Err(format!("{} line {line}: duplicate block", p.display()));
            }
        }
        for l in [GeoLevel::State, GeoLevel::County, GeoLevel::Tract, GeoLevel::Place, GeoLevel::Aiannh] {
            ids.entry(l).or_default();
        }
        Ok(Geography { ids, blocks })
    }
}
