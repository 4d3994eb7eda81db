//! Privacy-loss budget allocation files (TOML, docs/design.md "Allocation files").
//!
//! ```toml
//! name = "..."
//! rho = "3.65"                 # total zCDP budget (with `share` levels)
//! neighbors = "add-remove"     # or "replace"
//! [[level]]
//! name = "US"
//! share = "0.02"               # fraction of rho for this level
//! queries = 10                 # equal split; or query_shares = ["1/10", ...]; or query_rho = ["73/10000", ...]
//! ```
//!
//! Every number is parsed exactly (decimal strings or fractions; TOML floats are read through their
//! shortest decimal representation). Per query with zCDP budget ρ_q:
//! * add/remove: one sensitivity-1 query, σ² = 1/(2ρ_q) ([SSW24, §A.1], σ² = n/(2aρ));
//! * replace: the record moves one cell down and one up, σ² = 1/ρ_q (the TopDown code's `inverse_scale`),
//!   i.e. two unit shifts on two cells with the same σ² — accounted as two sensitivity-1 queries.

use crate::error::{Error, Fallible};
use crate::model::{Composition, GaussGroup, Group, Neighbors};
use crate::num::parse_rational;
use crate::{err, fallible};
use rug::Rational;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug)]
pub struct Level {
    pub name: String,
    /// Budget of the level (sum of its query budgets), exact.
    pub rho: Rational,
    /// Share of the total, when given.
    pub share: Option<Rational>,
    /// Per-query zCDP budgets as accounted under the file's neighbour relation.
    pub query_rho: Vec<Rational>,
    pub query_names: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Allocation {
    pub name: String,
    pub source: Option<String>,
    pub rho: Option<Rational>,
    pub neighbors: Neighbors,
    pub delta_reported: Option<Rational>,
    pub levels: Vec<Level>,
}

fn num_field(v: &toml::Value, what: &str) -> Fallible<Rational> {
    match v {
        toml::Value::String(s) => parse_rational(s).map_err(|e| e.context(what)),
        toml::Value::Integer(i) => Ok(Rational::from(*i)),
        toml::Value::Float(f) => {
            if !f.is_finite() {
                return fallible!(Input, "{what}: not a finite number");
            }
            parse_rational(&format!("{f}")).map_err(|e| e.context(what))
        }
        _ => fallible!(Input, "{what}: expected a number or a decimal string"),
    }
}

fn num_list(v: &toml::Value, what: &str) -> Fallible<Vec<Rational>> {
    match v {
        toml::Value::Array(a) => a.iter().enumerate().map(|(i, x)| num_field(x, &format!("{what}[{i}]"))).collect(),
        _ => fallible!(Input, "{what}: expected an array"),
    }
}

/// Most queries (`queries = N` summed over the levels) an allocation file may hold (~100 bytes each).
pub const MAX_QUERIES: u64 = 2_000_000;

/// The allocation files shipped with tightdp (data/allocations/), embedded in the binary: (name, text).
/// `--allocation NAME` selects one when no file of that name exists.
pub const BUILTIN: [(&str, &str); 6] = [
    ("dhc-2022-08-25", include_str!("../../data/allocations/dhc-2022-08-25.toml")),
    ("dhc-persons-us-2023", include_str!("../../data/allocations/dhc-persons-us-2023.toml")),
    ("dhc-units-us-2023", include_str!("../../data/allocations/dhc-units-us-2023.toml")),
    ("redistricting-2020", include_str!("../../data/allocations/redistricting-2020.toml")),
    ("redistricting-persons-us-2021", include_str!("../../data/allocations/redistricting-persons-us-2021.toml")),
    ("safetab-p-2023", include_str!("../../data/allocations/safetab-p-2023.toml")),
];

/// The embedded text of a built-in allocation by name (`dhc-2022-08-25`, also with `.toml`).
pub fn builtin(name: &str) -> Option<&'static str> {
    let n = name.strip_suffix(".toml").unwrap_or(name);
    BUILTIN.iter().find(|(k, _)| *k == n).map(|(_, t)| *t)
}

/// The text of an allocation: the file at `path`, or — when no such file exists and `path` is a bare
/// name — the built-in allocation of that name.
pub fn read_text(path: &Path) -> Fallible<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) => {
            let bare = path.components().count() == 1;
            if e.kind() == std::io::ErrorKind::NotFound && bare {
                if let Some(t) = path.to_str().and_then(builtin) {
                    return Ok(t.to_string());
                }
            }
            let names: Vec<&str> = BUILTIN.iter().map(|(k, _)| *k).collect();
            fallible!(
                Input,
                "cannot read allocation file '{}': {e}{}",
                path.display(),
                if bare { format!(" (built-in allocations: {})", names.join(", ")) } else { String::new() }
            )
        }
    }
}

impl Allocation {
    /// An allocation file, or a built-in allocation by name when no such file exists ([`read_text`]).
    pub fn from_path(path: &Path) -> Fallible<Allocation> {
        let text = read_text(path)?;
        Allocation::from_toml(&text).map_err(|e| e.context(format!("allocation file '{}'", path.display())))
    }

    pub fn from_toml(text: &str) -> Fallible<Allocation> {
        let doc: toml::Table = text
            .parse::<toml::Table>()
            .map_err(|e| err!(Input, "malformed TOML: {}", e.message().lines().next().unwrap_or("parse error")))?;
        // unknown keys are refused: a misspelt key (e.g. `neighbours`) would silently change the accounting
        const TOP: &[&str] = &["name", "source", "rho", "neighbors", "delta_reported", "certificate_epsilon", "level"];
        if let Some(k) = doc.keys().find(|k| !TOP.contains(&k.as_str())) {
            return fallible!(Input, "unknown key '{k}' (expected one of {})", TOP.join(", "));
        }
        let name = doc.get("name").and_then(|v| v.as_str()).unwrap_or("unnamed allocation").to_string();
        let source = doc.get("source").and_then(|v| v.as_str()).map(|s| s.to_string());
        let rho = doc.get("rho").map(|v| num_field(v, "rho")).transpose()?;
        if let Some(r) = &rho {
            if *r <= 0 {
                return fallible!(Input, "rho must be positive");
            }
        }
        let neighbors = match doc.get("neighbors") {
            None => Neighbors::AddRemove,
            // the one parser of the relation's names (noise::neighbors)
            Some(toml::Value::String(s)) => {
                Neighbors::parse(s).map_err(|_| err!(Input, "unknown neighbour relation '{s}' (expected \"add-remove\" or \"replace\")"))?
            }
            Some(_) => return fallible!(Input, "neighbors must be a string"),
        };
        let delta_reported = doc.get("delta_reported").map(|v| num_field(v, "delta_reported")).transpose()?;
        let lv = doc.get("level").and_then(|v| v.as_array()).ok_or_else(|| err!(Input, "no [[level]] entries"))?;
        if lv.is_empty() {
            return fallible!(Input, "no [[level]] entries");
        }
        let mut levels = Vec::new();
        let mut share_sum = Rational::from(0);
        let mut counted: u64 = 0;
        for (i, l) in lv.iter().enumerate() {
            levels.push(level_from_toml(i, l, rho.as_ref(), &mut share_sum, &mut counted)?);
        }
        if share_sum > 1 {
            return fallible!(Input, "level shares sum to {} > 1: the levels would spend more than rho", share_sum);
        }
        let mut seen = BTreeMap::new();
        for l in &levels {
            if seen.insert(norm_name(&l.name), ()).is_some() {
                return fallible!(Input, "duplicate level name '{}'", l.name);
            }
        }
        Ok(Allocation { name, source, rho, neighbors, delta_reported, levels })
    }

    /// Total zCDP budget actually spent (Σ of level budgets).
    pub fn total_rho(&self) -> Rational {
        self.levels.iter().fold(Rational::from(0), |a, l| a + &l.rho)
    }

    pub fn level(&self, name: &str) -> Fallible<&Level> {
        let key = norm_name(name);
        self.levels.iter().find(|l| norm_name(&l.name) == key).ok_or_else(|| {
            let names: Vec<&str> = self.levels.iter().map(|l| l.name.as_str()).collect();
            err!(Input, "unknown level '{name}' (levels: {})", names.join(", "))
        })
    }

    /// The composition of one level's queries.
    pub fn level_composition(&self, level: &Level) -> Fallible<Composition> {
        queries_composition(&level.query_rho, self.neighbors)
    }

    /// The composition of all levels.
    pub fn composition(&self) -> Fallible<Composition> {
        let all: Vec<Rational> = self.levels.iter().flat_map(|l| l.query_rho.iter().cloned()).collect();
        queries_composition(&all, self.neighbors)
    }

    /// The discrete Gaussian mechanisms of a level under this file's neighbour relation,
    /// grouped by equal σ².
    pub fn level_mechanisms(&self, level: &Level) -> Vec<GaussGroup> {
        group_mechanisms(&level.query_rho, self.neighbors)
    }

    /// All mechanisms of all levels, grouped by equal σ².
    pub fn all_mechanisms(&self) -> Vec<GaussGroup> {
        let all: Vec<Rational> = self.levels.iter().flat_map(|l| l.query_rho.iter().cloned()).collect();
        group_mechanisms(&all, self.neighbors)
    }
}

/// The composition of queries with these zCDP budgets under the file's neighbour relation: σ² = 1/(2ρ_q)
/// for add/remove, σ² = 1/ρ_q for replace (whose two shifts per query `Composition::shifts` makes).
pub fn queries_composition(query_rho: &[Rational], nb: Neighbors) -> Fallible<Composition> {
    let groups = query_rho
        .iter()
        .map(|r| {
            if *r <= 0 {
                return fallible!(Input, "a query budget must be positive, got {r}");
            }
            let s2 = match nb {
                Neighbors::AddRemove => Rational::from(r.recip_ref()) / 2u32,
                Neighbors::Replace => Rational::from(r.recip_ref()),
            };
            Ok(Group::gaussian(s2, 1, 1))
        })
        .collect::<Fallible<Vec<_>>>()?;
    Composition::new(groups, nb)
}

/// The discrete Gaussian shifts of these queries, grouped by σ² (add/remove: one per query at 1/(2ρ_q);
/// replace: two per query at 1/ρ_q).
pub fn group_mechanisms(query_rho: &[Rational], nb: Neighbors) -> Vec<GaussGroup> {
    queries_composition(query_rho, nb).and_then(|c| c.gauss_shifts()).unwrap_or_default()
}

/// Level names compare case-insensitively with spaces, '-' and '_' ignored.
pub fn norm_name(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, ' ' | '_' | '-')).flat_map(|c| c.to_lowercase()).collect()
}

/// One `[[level]]` entry (the `i`-th): its name, and its queries' budgets from exactly one of `queries`
/// (equal parts of `share · rho`), `query_shares` (parts of it) or `query_rho` (absolute). `share_sum` and
/// `counted` carry the shares and the queries of the levels so far.
fn level_from_toml(i: usize, l: &toml::Value, rho: Option<&Rational>, share_sum: &mut Rational, counted: &mut u64) -> Fallible<Level> {
    let t = l.as_table().ok_or_else(|| err!(Input, "level {}: not a table", i + 1))?;
    let lname = t.get("name").and_then(|v| v.as_str()).ok_or_else(|| err!(Input, "level {}: missing name", i + 1))?.to_string();
    let ctx = |s: &str| -> Error { err!(Input, "level '{lname}': {s}") };
    let within = |e: Error| e.context(format!("level '{lname}'"));
    const LEVEL: &[&str] = &["name", "share", "queries", "query_shares", "query_rho", "query_names"];
    if let Some(k) = t.keys().find(|k| !LEVEL.contains(&k.as_str())) {
        return Err(ctx(&format!("unknown key '{k}' (expected one of {})", LEVEL.join(", "))));
    }
    let share = t.get("share").map(|v| num_field(v, "share")).transpose().map_err(within)?;
    let names: Vec<String> = t
        .get("query_names")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_str().map(|s| s.to_string())).collect())
        .unwrap_or_default();
    let forms = ["queries", "query_shares", "query_rho"].iter().filter(|k| t.contains_key(**k)).count();
    if forms != 1 {
        return Err(ctx("give exactly one of `queries`, `query_shares`, `query_rho`"));
    }
    let query_rho: Vec<Rational> = if let Some(qr) = t.get("query_rho") {
        if share.is_some() {
            return Err(ctx("`query_rho` gives absolute budgets; do not combine it with `share`"));
        }
        let v = num_list(qr, "query_rho").map_err(within)?;
        if v.is_empty() {
            return Err(ctx("query_rho is empty"));
        }
        for (j, x) in v.iter().enumerate() {
            if *x <= 0 {
                return Err(ctx(&format!("query_rho[{j}] must be positive")));
            }
        }
        v
    } else {
        let share = share.clone().ok_or_else(|| ctx("missing `share`"))?;
        if share <= 0 {
            return Err(ctx("share must be positive"));
        }
        let total = rho.ok_or_else(|| ctx("`share` needs a top-level `rho`"))?;
        *share_sum += &share;
        shared_query_rho(t, &lname, Rational::from(&share * total), counted)?
    };
    let lrho: Rational = query_rho.iter().fold(Rational::from(0), |a, b| a + b);
    Ok(Level { name: lname, rho: lrho, share, query_rho, query_names: names })
}

/// The queries' budgets of a level with a `share` (its budget `level_rho`): `queries` equal parts, or the
/// `query_shares` (positive, summing to 1) of it.
fn shared_query_rho(t: &toml::Table, lname: &str, level_rho: Rational, counted: &mut u64) -> Fallible<Vec<Rational>> {
    let ctx = |s: &str| -> Error { err!(Input, "level '{lname}': {s}") };
    if let Some(q) = t.get("queries") {
        let n = q.as_integer().ok_or_else(|| ctx("queries must be an integer"))?;
        if !(1..=1_000_000).contains(&n) {
            return Err(ctx("queries must be between 1 and 1000000"));
        }
        // every query is held as its own budget: a file of many such levels ran out of memory
        *counted += n as u64;
        if *counted > MAX_QUERIES {
            return Err(ctx(&format!("the levels so far hold {counted} queries, more than the {MAX_QUERIES} an allocation may hold")));
        }
        return Ok(vec![&level_rho / Rational::from(n); n as usize]);
    }
    let shares = t.get("query_shares").expect("invariant: query_shares is given when queries and query_rho are not");
    let qs = num_list(shares, "query_shares").map_err(|e| e.context(format!("level '{lname}'")))?;
    if qs.is_empty() {
        return Err(ctx("query_shares is empty"));
    }
    let mut s = Rational::from(0);
    for (j, x) in qs.iter().enumerate() {
        if *x <= 0 {
            return Err(ctx(&format!("query_shares[{j}] must be positive")));
        }
        s += x;
    }
    if s != 1 {
        return Err(ctx(&format!("query_shares sum to {} instead of 1", s)));
    }
    Ok(qs.iter().map(|x| Rational::from(x * &level_rho)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DHC: &str = r#"
rho = "3.65"
[[level]]
name = "US"
share = "0.02"
queries = 10
[[level]]
name = "Tract Subset Group"
share = 0.131
queries = 10
"#;

    #[test]
    fn sigma2_is_n_over_2_a_rho() {
        let a = Allocation::from_toml(DHC).unwrap();
        let us = a.level("us").unwrap();
        let g = a.level_mechanisms(us);
        assert_eq!(g.len(), 1);
        // σ² = 10/(2·0.02·3.65) = 10/0.146 = 5000/73
        assert_eq!(g[0].sigma2, Rational::from((5000, 73)));
        assert_eq!(g[0].count, 10);
        let t = a.level("tract_subset_group").unwrap();
        assert_eq!(
            a.level_mechanisms(t)[0].sigma2,
            Rational::from(10) / (Rational::from(2) * Rational::from((131, 1000)) * Rational::from((365, 100)))
        );
    }

    #[test]
    fn replace_doubles_the_shifts_and_uses_inverse_rho() {
        let a =
            Allocation::from_toml("neighbors = \"replace\"\n[[level]]\nname = \"B\"\nquery_rho = [\"11/10000\", \"11/10000\"]\n").unwrap();
        let g = a.level_mechanisms(&a.levels[0]);
        assert_eq!(g, vec![GaussGroup { sigma2: Rational::from((10000, 11)), count: 4, mu: 1 }]);
    }

    #[test]
    fn bad_files_are_rejected() {
        let cases = [
            ("rho = \"1\"\n[[level]]\nname=\"a\"\nshare=\"0.7\"\nqueries=1\n[[level]]\nname=\"b\"\nshare=\"0.4\"\nqueries=1\n", "sum to"),
            ("rho = \"1\"\n[[level]]\nname=\"a\"\nshare=\"0.5\"\nquery_shares=[\"0.5\",\"0.4\"]\n", "sum to"),
            ("neighbors=\"swap\"\n[[level]]\nname=\"a\"\nquery_rho=[\"1\"]\n", "unknown neighbour"),
            ("[[level]]\nname=\"a\"\nquery_rho=[\"1/0\"]\n", "zero denominator"),
            ("[[level]]\nname=\"a\"\nquery_rho=[\"-1\"]\n", "positive"),
            ("rho = \"0\"\n[[level]]\nname=\"a\"\nshare=\"1\"\nqueries=1\n", "positive"),
            ("this is not toml", "malformed"),
        ];
        for (text, want) in cases {
            let e = Allocation::from_toml(text).unwrap_err();
            assert!(e.to_string().contains(want), "{e:?} should mention {want:?}");
        }
    }

    /// A misspelt key is refused with its name (the British `neighbours` would otherwise silently give
    /// add/remove accounting to a replace release).
    #[test]
    fn unknown_keys_are_refused() {
        let top = "neighbours = \"replace\"\n[[level]]\nname = \"A\"\nquery_rho = [\"1/2\"]\n";
        let e = Allocation::from_toml(top).unwrap_err();
        assert!(e.to_string().contains("unknown key 'neighbours'"), "{e}");
        let lvl = "[[level]]\nname = \"A\"\nquery_rho = [\"1/2\"]\nquerys = 5\n";
        let e = Allocation::from_toml(lvl).unwrap_err();
        assert!(e.to_string().contains("level 'A': unknown key 'querys'"), "{e}");
        assert!(Allocation::from_toml("[[level]]\nname = \"A\"\nquery_rho = [\"1/2\"]\n").is_ok());
    }
}
