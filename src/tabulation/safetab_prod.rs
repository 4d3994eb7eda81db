//! The Census Bureau's production SafeTab-P parameter files, read as they are ([HBC25, §5.4.1];
//! `data/safetab/production/README.md` names their source and columns):
//!
//! * `race-characteristic-iterations.txt` — ITERATION_CODE|ITERATION_NAME|LEVEL|ALONE|DETAILED_ONLY|COARSE_ONLY
//! * `ethnicity-characteristic-iterations.txt` — ITERATION_CODE|ITERATION_NAME|LEVEL|DETAILED_ONLY|COARSE_ONLY
//! * `race-and-ethnicity-code-to-iteration.txt` — ITERATION_CODE|RACE_ETH_CODE
//! * `race-and-ethnicity-codes.txt` — RACE_ETH_CODE|RACE_ETH_NAME
//! * `config.json` — budgets per (region, iteration level), γ, Θ, p, the passes.
//!
//! LEVEL 0 (Major groups and the "(Sub-state and AIANNH geographies)" residuals) is not tabulated
//! ([HBC25, §2.2]), LEVEL 1 is Regional, LEVEL 2 Detailed. DETAILED_ONLY = True is the TotalOnly set
//! ([HBC25, §3.1]: a total at nation and state only), COARSE_ONLY = True: not tabulated at nation and
//! state. A person is in a race group Alone when every race code is in it, Alone or in Any Combination
//! when some code is, in an ethnicity group when QSPAN is ([HBC25, §2.2]).

use crate::error::Fallible;
use crate::num::parse_rational;
use crate::tabulation::safetab_spec::{code_maps, parse_bool, parse_pipe, Config, GeoLevel, Iteration, Iterations, LevelSpec, Spec};
use crate::{err, fallible};
use rug::Rational;
use std::collections::{HashMap, HashSet};
use std::path::Path;

pub const CONFIG: &str = "production/config.json";
pub const RACE_ITERATIONS: &str = "production/race-characteristic-iterations.txt";
pub const ETH_ITERATIONS: &str = "production/ethnicity-characteristic-iterations.txt";
pub const CODE_TO_ITERATION: &str = "production/race-and-ethnicity-code-to-iteration.txt";
pub const CODES: &str = "production/race-and-ethnicity-codes.txt";

/// The four iteration/code files of a production parameter set.
#[derive(Clone, Debug)]
pub struct ProductionSpecs {
    pub race: Spec,
    pub eth: Spec,
    pub map: Spec,
    pub codes: Spec,
}

impl ProductionSpecs {
    /// `DIR/safetab/production/…` with `--data DIR`, else the copies built into the binary.
    pub fn resolve(data: Option<&Path>) -> ProductionSpecs {
        let r = |n| Spec::resolve(None, data, n);
        ProductionSpecs { race: r(RACE_ITERATIONS), eth: r(ETH_ITERATIONS), map: r(CODE_TO_ITERATION), codes: r(CODES) }
    }
}

/// Where a run's characteristic iterations and codes come from: the synthetic two-file format
/// (data/safetab/iterations.txt, race-codes.txt) or a production parameter set.
#[derive(Clone, Debug)]
pub enum IterationFiles {
    Synthetic { iterations: Spec, codes: Spec },
    Production(ProductionSpecs),
}

impl IterationFiles {
    /// `--production`: the production set (of `--data DIR` or built in); else the synthetic files,
    /// each an explicit path, `DIR/safetab/NAME` with `--data DIR`, or the built-in default NAME.
    pub fn resolve(
        production: bool,
        iterations: Option<&Path>,
        codes: Option<&Path>,
        data: Option<&Path>,
        default_iterations: &'static str,
    ) -> Self {
        if production {
            IterationFiles::Production(ProductionSpecs::resolve(data))
        } else {
            IterationFiles::Synthetic {
                iterations: Spec::resolve(iterations, data, default_iterations),
                codes: Spec::resolve(codes, data, "race-codes.txt"),
            }
        }
    }

    pub fn load(&self) -> Fallible<Iterations> {
        match self {
            IterationFiles::Synthetic { iterations, codes } => Iterations::from_specs(iterations, codes),
            IterationFiles::Production(p) => self::iterations(p),
        }
    }
}

/// LEVEL → Some(detailed) for levels 1 and 2, None for 0 (not tabulated).
fn level(s: &str, path: &str, line: usize) -> Fallible<Option<bool>> {
    match s {
        "0" => Ok(None),
        "1" => Ok(Some(false)),
        "2" => Ok(Some(true)),
        o => fallible!(Input, "{path} line {line}: LEVEL must be 0, 1 or 2, got '{o}'"),
    }
}

/// Read the four files into the code → group maps of a run.
pub fn iterations(s: &ProductionSpecs) -> Fallible<Iterations> {
    let mut list: Vec<Iteration> = Vec::new();
    let mut idx: HashMap<String, usize> = HashMap::new();
    let mut ignored: HashSet<String> = HashSet::new();
    let race_h = ["ITERATION_CODE", "ITERATION_NAME", "LEVEL", "ALONE", "DETAILED_ONLY", "COARSE_ONLY"];
    let eth_h = ["ITERATION_CODE", "ITERATION_NAME", "LEVEL", "DETAILED_ONLY", "COARSE_ONLY"];
    for (spec, ethnicity) in [(&s.race, false), (&s.eth, true)] {
        let path = spec.name();
        let header: &[&str] = if ethnicity { &eth_h } else { &race_h };
        for (line, f) in parse_pipe(&spec.text()?, &path, header)? {
            let code = f[0].clone();
            if code.is_empty() || code.contains(['|', ',']) {
                return fallible!(Input, "{path} line {line}: bad ITERATION_CODE");
            }
            if idx.contains_key(&code) || ignored.contains(&code) {
                return fallible!(Input, "{path} line {line}: duplicate ITERATION_CODE {code}");
            }
            let Some(detailed) = level(&f[2], &path, line)? else {
                ignored.insert(code);
                continue;
            };
            let alone = if ethnicity { true } else { parse_bool(&f[3], "ALONE", &path, line)? };
            let k = if ethnicity { 3 } else { 4 };
            let total_only = parse_bool(&f[k], "DETAILED_ONLY", &path, line)?;
            let coarse_only = parse_bool(&f[k + 1], "COARSE_ONLY", &path, line)?;
            if total_only && coarse_only {
                return fallible!(Input, "{path} line {line}: iteration {code} is both DETAILED_ONLY and COARSE_ONLY");
            }
            idx.insert(code.clone(), list.len());
            list.push(Iteration { code, detailed, alone, ethnicity, total_only, coarse_only });
        }
    }
    let cpath = s.codes.name();
    let mut codes = Vec::new();
    let mut known = HashSet::new();
    for (line, f) in parse_pipe(&s.codes.text()?, &cpath, &["RACE_ETH_CODE", "RACE_ETH_NAME"])? {
        if f[0].is_empty() || f[0].contains(',') {
            return fallible!(Input, "{cpath} line {line}: bad RACE_ETH_CODE");
        }
        if !known.insert(f[0].clone()) {
            return fallible!(Input, "{cpath} line {line}: duplicate RACE_ETH_CODE {}", f[0]);
        }
        codes.push(f[0].clone());
    }
    let mpath = s.map.name();
    let rows = parse_pipe(&s.map.text()?, &mpath, &["ITERATION_CODE", "RACE_ETH_CODE"])?;
    if let Some((line, f)) = rows.iter().find(|(_, f)| !known.contains(&f[1])) {
        return fallible!(Input, "{mpath} line {line}: RACE_ETH_CODE {} is not in {cpath}", f[1]);
    }
    let (race, eth, _) = code_maps(&list, &idx, &ignored, rows, &mpath)?;
    Ok(Iterations { list, race, eth, codes, known: Some(known) })
}

/// The keys `config.json` may hold.
const KEYS: [&str; 11] = [
    "max_race_codes",
    "privacy_budget_p_stage_1_fraction",
    "thresholds_p",
    "zero_suppression_chance",
    "allow_negative_counts",
    "run_us",
    "run_pr",
    "reader",
    "state_filter_us",
    "privacy_defn",
    "privacy_budget_p_level_",
];

/// (region as in the key, region in `thresholds_p`, geography, Puerto Rico pass)
const REGIONS: [(&str, &str, GeoLevel, bool); 10] = [
    ("usa", "USA", GeoLevel::Usa, false),
    ("state", "STATE", GeoLevel::State, false),
    ("county", "COUNTY", GeoLevel::County, false),
    ("tract", "TRACT", GeoLevel::Tract, false),
    ("place", "PLACE", GeoLevel::Place, false),
    ("aiannh", "AIANNH", GeoLevel::Aiannh, false),
    ("pr_state", "PR-STATE", GeoLevel::State, true),
    ("pr_county", "PR-COUNTY", GeoLevel::County, true),
    ("pr_tract", "PR-TRACT", GeoLevel::Tract, true),
    ("pr_place", "PR-PLACE", GeoLevel::Place, true),
];

/// A JSON number as the exact decimal it was written as: serde_json holds it as an f64, whose
/// shortest round-trip decimal (`Display`) is the written text for up to 15 significant digits.
fn exact(v: &serde_json::Value, key: &str) -> Fallible<Rational> {
    let n = v.as_number().ok_or_else(|| err!(Input, "config.json: {key} must be a number"))?;
    parse_rational(&n.to_string()).map_err(|e| e.context(format!("config.json: {key}")))
}

fn get<'a>(o: &'a serde_json::Map<String, serde_json::Value>, key: &str) -> Fallible<&'a serde_json::Value> {
    o.get(key).ok_or_else(|| err!(Input, "config.json: missing key '{key}'"))
}

fn boolean(o: &serde_json::Map<String, serde_json::Value>, key: &str) -> Fallible<bool> {
    get(o, key)?.as_bool().ok_or_else(|| err!(Input, "config.json: {key} must be true or false"))
}

impl Config {
    /// A TOML configuration (data/safetab/config.toml, `Config::from_toml`), or the Bureau's
    /// `config.json` as it is (`config_from_json`), told apart by the first character.
    pub fn from_spec(spec: &Spec) -> Fallible<Config> {
        let text = spec.text()?;
        if text.trim_start().starts_with('{') {
            return config_from_json(&text, &spec.name());
        }
        Config::from_toml(&text, &spec.name())
    }
}

/// The Bureau's `config.json` as a run configuration: one level per nonzero
/// `privacy_budget_p_level_{1,2}_{region}` (1 = Regional, 2 = Detailed; a zero budget is a level the
/// production code skips, e.g. (AIANNH, Regional)), US levels first (Detailed, then Regional, in the
/// order USA … AIANNH), then Puerto Rico's; γ = `privacy_budget_p_stage_1_fraction`, p =
/// `zero_suppression_chance`, Θ = `thresholds_p["(REGION, L)"]`, stability = max(2, r) + 1 with r =
/// `max_race_codes` (the production flat map's bound h_r·max(2, r) + h_e, h = 1 checked on the
/// iteration files), passes from `run_us` / `run_pr`, the US states from `state_filter_us`.
pub fn config_from_json(text: &str, name: &str) -> Fallible<Config> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| err!(Input, "{}", crate::record::one_line(&format!("{name}: invalid JSON: {e}"))))?;
    let o = v.as_object().ok_or_else(|| err!(Input, "{name}: the configuration must be a JSON object"))?;
    for k in o.keys() {
        let ok = KEYS.iter().any(|x| k == x || (x.ends_with('_') && k.starts_with(x)));
        if !ok {
            return fallible!(Input, "{name}: unknown key '{k}'");
        }
    }
    let r = get(o, "max_race_codes")?
        .as_u64()
        .filter(|r| (1..=8).contains(r))
        .ok_or_else(|| err!(Input, "config.json: max_race_codes must be an integer 1–8"))?;
    let stability = r.max(2) as u32 + 1;
    let gamma = exact(get(o, "privacy_budget_p_stage_1_fraction")?, "privacy_budget_p_stage_1_fraction")?;
    let p = exact(get(o, "zero_suppression_chance")?, "zero_suppression_chance")?;
    match o.get("privacy_defn").map(|d| d.as_str()) {
        None | Some(Some("zcdp")) => {}
        Some(Some("puredp")) => {
            return fallible!(Input, "config.json: privacy_defn \"puredp\" (Laplace noise) is not implemented by safetab-p; it runs the discrete Gaussian (\"zcdp\")")
        }
        Some(_) => return fallible!(Input, "config.json: privacy_defn must be \"zcdp\" or \"puredp\""),
    }
    if o.get("allow_negative_counts").is_some_and(|a| a.as_bool() != Some(true)) {
        return fallible!(Input, "config.json: allow_negative_counts must be true (clamping noisy counts at 0 is not implemented)");
    }
    let thresholds = get(o, "thresholds_p")?.as_object().ok_or_else(|| err!(Input, "config.json: thresholds_p must be an object"))?;
    let mut levels = Vec::new();
    let mut used_keys = HashSet::new();
    for pr in [false, true] {
        for il in ["2", "1"] {
            for &(key, region, geo, rpr) in REGIONS.iter().filter(|x| x.3 == pr) {
                let bkey = format!("privacy_budget_p_level_{il}_{key}");
                used_keys.insert(bkey.clone());
                let Some(b) = o.get(&bkey) else { continue };
                let rho = exact(b, &bkey)?;
                if rho < 0 {
                    return fallible!(Input, "config.json: {bkey} must not be negative");
                }
                if rho == 0 {
                    continue;
                }
                let tkey = format!("({region}, {il})");
                let t = thresholds
                    .get(&tkey)
                    .and_then(|t| t.as_array())
                    .ok_or_else(|| err!(Input, "config.json: thresholds_p has no \"{tkey}\""))?;
                let t: Vec<i64> = t.iter().filter_map(|x| x.as_i64()).collect();
                if t.len() != 3 {
                    return fallible!(Input, "config.json: thresholds_p \"{tkey}\" must be three integers");
                }
                let rho_text = crate::tabulation::manifest::rat_str(&rho);
                levels.push(LevelSpec { geo, detailed: il == "2", rho, rho_text, thresholds: [t[0], t[1], t[2]], pr: rpr });
            }
        }
    }
    if let Some(k) = o.keys().find(|k| k.starts_with("privacy_budget_p_level_") && !used_keys.contains(*k)) {
        return fallible!(Input, "{name}: unknown key '{k}'");
    }
    let state_filter = match o.get("state_filter_us") {
        None => None,
        Some(f) => {
            let a = f.as_array().ok_or_else(|| err!(Input, "config.json: state_filter_us must be a list of state codes"))?;
            Some(
                a.iter()
                    .map(|s| s.as_str().map(str::to_string).ok_or_else(|| err!(Input, "config.json: state_filter_us must hold strings")))
                    .collect::<Result<_, _>>()?,
            )
        }
    };
    Config::checked(gamma, stability, p, levels, boolean(o, "run_us")?, boolean(o, "run_pr")?, state_filter).map_err(|e| e.context(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tabulation::safetab_spec::Pass;

    /// The 2020 files as shipped: the paper's 2,996 iterations (§2), the Detailed/Regional and
    /// TotalOnly split counted by hand from the files (awk over LEVEL/ALONE/DETAILED_ONLY), every code
    /// in at most one Alone and one AOIC group per iteration level (stability 9).
    #[test]
    fn production_iterations_count_as_the_paper() {
        let its = iterations(&ProductionSpecs::resolve(None)).unwrap();
        assert_eq!(its.list.len(), 2996);
        let count = |f: &dyn Fn(&Iteration) -> bool| its.list.iter().filter(|i| f(i)).count();
        assert_eq!(count(&|i| i.detailed), 2944);
        assert_eq!(count(&|i| !i.detailed), 52);
        assert_eq!(count(&|i| i.detailed && !i.ethnicity && i.alone), 1457);
        assert_eq!(count(&|i| i.detailed && !i.ethnicity && !i.alone), 1457);
        assert_eq!(count(&|i| i.detailed && i.ethnicity), 30);
        assert_eq!(count(&|i| !i.detailed && i.ethnicity), 4);
        assert_eq!(count(&|i| i.detailed && i.total_only), 794);
        assert_eq!(count(&|i| !i.detailed && i.total_only), 4);
        assert_eq!(count(&|i| i.coarse_only), 0);
        assert_eq!(its.codes.len(), 1755);
        // White alone (level 0) is not tabulated; Albanian alone (1003) is a detailed Alone group
        assert!(its.list.iter().all(|i| i.code != "1001"));
        let alb = its.list.iter().position(|i| i.code == "1003").unwrap();
        assert_eq!(its.race["1010"].alone[0], Some(alb as u32));
        // 9950 "Not Hispanic (checkbox)" is a valid QSPAN in no tabulated group; 2011 "Mexican" is in
        // the detailed ethnicity group 4015 and the regional group of its level-1 parent
        assert_eq!(its.eth_groups("9950").unwrap().alone, [None, None]);
        let mex = its.list.iter().position(|i| i.code == "4015").unwrap();
        assert_eq!(its.eth_groups("2011").unwrap().alone[0], Some(mex as u32));
        assert!(its.eth_groups("0000").is_none());
    }

    /// Damaged iteration and code files: one line naming the file and line, never a panic.
    #[test]
    fn production_files_refusals() {
        let d = tempfile::tempdir().unwrap();
        let good = ProductionSpecs::resolve(None);
        let write = |name: &str, text: String| -> Spec {
            let p = d.path().join(name);
            std::fs::write(&p, text).unwrap();
            Spec::Path(p)
        };
        let race = good.race.text().unwrap();
        let map = good.map.text().unwrap();
        let codes = good.codes.text().unwrap();
        for (what, specs, msg) in [
            (
                "level",
                ProductionSpecs { race: write("r1", race.replacen("|2|True|False|False", "|3|True|False|False", 1)), ..good.clone() },
                "LEVEL must be 0, 1 or 2",
            ),
            (
                "both only",
                ProductionSpecs { race: write("r2", race.replacen("|2|True|False|False", "|2|True|True|True", 1)), ..good.clone() },
                "both DETAILED_ONLY and COARSE_ONLY",
            ),
            (
                "duplicate",
                ProductionSpecs { race: write("r3", race.replacen("1003|", "1002|", 1)), ..good.clone() },
                "duplicate ITERATION_CODE 1002",
            ),
            ("header", ProductionSpecs { race: write("r4", race.replacen("ALONE", "ALONE_", 1)), ..good.clone() }, "header must be"),
            (
                "unknown code",
                ProductionSpecs { map: write("m1", map.replacen("1001|1000", "1001|0001", 1)), ..good.clone() },
                "RACE_ETH_CODE 0001 is not in",
            ),
            (
                "unknown iteration",
                ProductionSpecs { map: write("m2", map.replacen("1001|1000", "9999|1000", 1)), ..good.clone() },
                "unknown ITERATION_CODE 9999",
            ),
            (
                "two groups",
                ProductionSpecs { map: write("m3", map.clone() + "1007|1010\n"), ..good.clone() },
                "in two detailed Alone groups",
            ),
            (
                "dup code",
                ProductionSpecs { codes: write("c1", codes.clone() + "1000|again\r\n"), ..good.clone() },
                "duplicate RACE_ETH_CODE 1000",
            ),
        ] {
            let e = iterations(&specs).unwrap_err();
            assert!(e.to_string().contains(msg) && !e.to_string().contains('\n'), "{what}: {e}");
        }
    }

    /// config.json as it is: Table 7's budgets per level, γ, p, Θ, both passes.
    #[test]
    fn production_config_json() {
        let c = Config::from_spec(&Spec::Builtin(CONFIG)).unwrap();
        assert_eq!(c.stability, 9);
        assert_eq!(c.gamma, Rational::from((1, 10)));
        assert_eq!(c.suppression_p, Rational::from((9999, 10000)));
        assert!(c.run_us && c.run_pr);
        assert_eq!(c.passes(), vec![Pass::Us, Pass::Pr]);
        let names: Vec<String> = c.levels.iter().map(|l| l.name()).collect();
        assert_eq!(
            names,
            [
                "USA-detailed",
                "STATE-detailed",
                "COUNTY-detailed",
                "TRACT-detailed",
                "PLACE-detailed",
                "AIANNH-detailed",
                "USA-regional",
                "STATE-regional",
                "COUNTY-regional",
                "TRACT-regional",
                "PLACE-regional",
                "PR-STATE-detailed",
                "PR-COUNTY-detailed",
                "PR-TRACT-detailed",
                "PR-PLACE-detailed",
                "PR-STATE-regional",
                "PR-COUNTY-regional",
                "PR-TRACT-regional",
                "PR-PLACE-regional",
            ]
        );
        // [HBC25, Table 7] Total column: the US pass sums to 4.944
        let us: Rational = c.levels.iter().filter(|l| !l.pr).map(|l| l.rho.clone()).sum();
        assert_eq!(us, Rational::from((4944, 1000)));
        let pr: Rational = c.levels.iter().filter(|l| l.pr).map(|l| l.rho.clone()).sum();
        assert_eq!(pr, Rational::from((2643, 1000)));
        assert_eq!(c.levels[0].rho_text, "2.134");
        assert_eq!(c.levels[0].thresholds, [471, 971, 6971]);
        assert_eq!(c.levels[2].thresholds, [971, 4971, 19971]);
        assert_eq!(c.levels[11].thresholds, [471, 971, 6971]);
        assert_eq!(c.levels[18].thresholds, [4971, 19971, 149971]);
        assert_eq!(c.pass_of_state("72"), Some(Pass::Pr));
        assert_eq!(c.pass_of_state("01"), Some(Pass::Us));
        assert_eq!(c.pass_of_state("03"), None, "03 is no state code: not in state_filter_us");
        let us_only = c.clone().with_passes(&[Pass::Us]).unwrap();
        assert_eq!(us_only.pass_of_state("72"), None);
    }

    /// Bad config.json values: one clear message each.
    #[test]
    fn production_config_json_refusals() {
        let base = Spec::Builtin(CONFIG).text().unwrap();
        for (from, to, msg) in [
            ("\"privacy_defn\": \"zcdp\"", "\"privacy_defn\": \"puredp\"", "not implemented"),
            ("\"allow_negative_counts\": true", "\"allow_negative_counts\": false", "allow_negative_counts"),
            ("\"max_race_codes\": 8", "\"max_race_codes\": 9", "max_race_codes"),
            ("\"(PLACE, 2)\"", "\"(PLACE, 9)\"", "no \"(PLACE, 2)\""),
            ("\"run_us\": true", "\"run_us\": 1", "run_us must be"),
            ("\"reader\"", "\"readr\"", "unknown key 'readr'"),
            ("privacy_budget_p_level_2_usa\"", "privacy_budget_p_level_3_usa\"", "unknown key"),
            ("\"privacy_budget_p_level_2_usa\": 2.134", "\"privacy_budget_p_level_2_usa\": -1", "negative"),
            ("\"run_us\": true", "\"run_us\": false, \"x\": 1", "unknown key 'x'"),
            ("[\"01\" ,", "[\"72\" ,", "other than 72"),
        ] {
            assert!(base.contains(from), "{from}");
            let e = config_from_json(&base.replacen(from, to, 1), "c.json").unwrap_err();
            assert!(e.to_string().contains(msg), "{to}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
        // mutations (cut / insert at spread positions): Ok or one line, never a panic
        let chars: Vec<char> = base.chars().collect();
        for (k, ins) in ["", "0", "\"", "-", "1e400", "{", "]", ",", "null", "\"x\": 1,"].iter().enumerate() {
            for at in (k * 7..chars.len()).step_by(97) {
                let t: String = chars[..at]
                    .iter()
                    .chain(ins.chars().collect::<Vec<_>>().iter())
                    .chain(chars[(at + k % 3).min(chars.len())..].iter())
                    .collect();
                if let Err(e) = config_from_json(&t, "c.json") {
                    assert!(!e.to_string().is_empty() && !e.to_string().contains('\n'), "{e}");
                }
            }
        }
        let e = config_from_json("[1]", "c.json").unwrap_err();
        assert!(e.to_string().contains("JSON object"), "{e}");
        let e = config_from_json("{", "c.json").unwrap_err();
        assert!(e.to_string().contains("invalid JSON"), "{e}");
    }
}
