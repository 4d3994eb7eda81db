//! The registry of public differential-privacy deployments (`data/deployments/*.toml`), parsed strictly.
//!
//! One file per deployment: who released what, the privacy unit and neighbour relation, the stated
//! guarantee as published, the mechanisms with every parameter (as `--mech` spellings, per level, or a
//! reference to a built-in allocation), and for every number the source it was read from (URL or
//! repository + path + commit, location, verbatim quote). What the sources leave open is an explicit,
//! named assumption that the results cite. Unknown keys, missing sources, references to undefined sources
//! or assumptions and malformed numbers are refused with one line naming the file and the key. The format
//! is documented key by key in `docs/design.md` ("Deployment files").

use crate::error::Fallible;
use crate::model::Neighbors;
use crate::num::parse_rational;
use crate::{err, fallible};
use rug::Rational;
use std::collections::BTreeSet;
use std::path::Path;

/// Where one number comes from.
#[derive(Clone, Debug)]
pub struct Source {
    pub id: String,
    /// URL, or `github:owner/name@commit:path`
    pub location: String,
    /// document title (the registry's record for its reader: required, checked, not printed)
    #[allow(dead_code)]
    pub document: String,
    /// page, table, section or line
    pub at: String,
    /// the sentence or configuration line, verbatim (required and checked non-empty; the reader's, not printed)
    #[allow(dead_code)]
    pub quote: String,
}

#[derive(Clone, Debug)]
pub struct Assumption {
    pub id: String,
    pub text: String,
}

/// The form of the stated guarantee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatedKind {
    /// ρ-zCDP (possibly with an (ε, δ) the publisher derived from it)
    Zcdp,
    /// (ε, δ)-DP
    ApproxDp,
    /// ε-DP
    PureDp,
}

impl StatedKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            StatedKind::Zcdp => "zcdp",
            StatedKind::ApproxDp => "approx-dp",
            StatedKind::PureDp => "pure-dp",
        }
    }
}

/// The guarantee as the publisher stated it.
#[derive(Clone, Debug)]
pub struct Stated {
    pub kind: StatedKind,
    /// the statement, verbatim
    pub text: String,
    pub rho: Option<Rational>,
    /// ε as printed (string, for the rounding of "as stated") and exactly
    pub epsilon: Option<(String, Rational)>,
    pub delta: Option<Rational>,
    /// the assumption that supplies δ when the publisher gave none
    pub delta_assumption: Option<String>,
    /// where the stated figures come from when not from the publisher (a secondary source), said in words
    pub secondary: Option<String>,
    pub sources: Vec<String>,
}

/// One level (geography, table, release) of a deployment: its mechanisms as `--mech` spellings.
#[derive(Clone, Debug)]
pub struct DeploymentLevel {
    pub name: String,
    pub mech: Vec<String>,
    pub sources: Vec<String>,
    pub assumptions: Vec<String>,
}

/// The noise of a deployment.
#[derive(Clone, Debug)]
pub enum Mechanisms {
    /// a built-in allocation (`data/allocations/NAME.toml`), levels as in the file
    Allocation { name: String, sources: Vec<String>, assumptions: Vec<String> },
    /// levels of `--mech` terms, composed sequentially
    Levels(Vec<DeploymentLevel>),
    /// the sources read do not give the noise: why
    Missing(String),
}

#[derive(Clone, Debug)]
pub struct Deployment {
    /// the file name without `.toml`
    pub id: String,
    pub organisation: String,
    pub product: String,
    /// a label of at most 24 characters for tables and figures
    pub short_name: String,
    pub year: u32,
    pub census: bool,
    pub privacy_unit: String,
    pub neighbors: Neighbors,
    /// what is composed, in words (the reader's; required, not printed)
    #[allow(dead_code)]
    pub composition: String,
    pub stated: Stated,
    pub mechanisms: Mechanisms,
    pub assumptions: Vec<Assumption>,
    pub sources: Vec<Source>,
    /// free text for the reader (not printed)
    #[allow(dead_code)]
    pub notes: String,
}

/// Check a `--mech` spelling with the accountant's own parser (every law of the `--mech` vocabulary,
/// stated guarantees `dp:` and `zcdp:` included).
pub fn check_mech(spec: &str) -> Fallible<()> {
    crate::model::spec::parse_mech(spec).map(|_| ())
}

// ------------------------------------------------------------------------------------------- parsing

struct Tab<'a> {
    t: &'a toml::Table,
    what: String,
}

impl<'a> Tab<'a> {
    fn new(t: &'a toml::Table, what: &str, allowed: &[&str]) -> Fallible<Tab<'a>> {
        for k in t.keys() {
            if !allowed.contains(&k.as_str()) {
                return fallible!(Input, "{what}: unknown key '{k}' (allowed: {})", allowed.join(", "));
            }
        }
        Ok(Tab { t, what: what.to_string() })
    }
    fn opt_str(&self, k: &str) -> Fallible<Option<String>> {
        match self.t.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
            Some(toml::Value::String(_)) => fallible!(Input, "{}: '{k}' is empty", self.what),
            Some(_) => fallible!(Input, "{}: '{k}' must be a string", self.what),
        }
    }
    fn str(&self, k: &str) -> Fallible<String> {
        self.opt_str(k)?.ok_or_else(|| err!(Input, "{}: missing key '{k}'", self.what))
    }
    /// An exact number, given as a decimal or fraction string (a TOML float would hide its rounding).
    fn opt_num(&self, k: &str) -> Fallible<Option<(String, Rational)>> {
        match self.t.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => {
                let q = parse_rational(s.trim()).map_err(|e| e.context(format!("{}: '{k}'", self.what)))?;
                if q <= 0 {
                    return fallible!(Input, "{}: '{k}' must be positive, got '{s}'", self.what);
                }
                Ok(Some((s.trim().to_string(), q)))
            }
            Some(_) => fallible!(Input, "{}: '{k}' must be a decimal or fraction string, e.g. \"0.015\"", self.what),
        }
    }
    fn str_list(&self, k: &str) -> Fallible<Vec<String>> {
        match self.t.get(k) {
            None => Ok(Vec::new()),
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| match v {
                    toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                    _ => fallible!(Input, "{}: '{k}' must be a list of non-empty strings", self.what),
                })
                .collect(),
            Some(_) => fallible!(Input, "{}: '{k}' must be a list of strings", self.what),
        }
    }
    fn tables(&self, k: &str) -> Fallible<Vec<&'a toml::Table>> {
        match self.t.get(k) {
            None => Ok(Vec::new()),
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_table().ok_or_else(|| err!(Input, "{}: '{k}' must be an array of tables ([[{k}]])", self.what)))
                .collect(),
            Some(_) => fallible!(Input, "{}: '{k}' must be an array of tables ([[{k}]])", self.what),
        }
    }
}

const TOP_KEYS: [&str; 17] = [
    "organisation",
    "product",
    "short_name",
    "year",
    "census",
    "privacy_unit",
    "neighbors",
    "composition",
    "allocation",
    "allocation_sources",
    "allocation_assumptions",
    "missing",
    "notes",
    "stated",
    "level",
    "source",
    "assumption",
];

impl Deployment {
    /// Parse one deployment file; `id` is its file name without `.toml`.
    pub fn from_toml(id: &str, text: &str) -> Fallible<Deployment> {
        let doc: toml::Table = text
            .parse::<toml::Table>()
            .map_err(|e| err!(Input, "malformed TOML: {}", e.message().lines().next().unwrap_or("parse error")))?;
        let top = Tab::new(&doc, "deployment", &TOP_KEYS)?;
        let year = match doc.get("year") {
            Some(toml::Value::Integer(y)) if (1990..=2100).contains(y) => *y as u32,
            Some(_) => return fallible!(Input, "deployment: 'year' must be an integer between 1990 and 2100"),
            None => return fallible!(Input, "deployment: missing key 'year'"),
        };
        let census = match doc.get("census") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => return fallible!(Input, "deployment: 'census' must be true or false"),
        };
        let neighbors = Neighbors::parse(&top.str("neighbors")?).map_err(|e| e.context("deployment: 'neighbors'"))?;
        let (sources, assumptions) = sources_and_assumptions(&top)?;
        let refs = Refs {
            sources: sources.iter().map(|s| s.id.as_str()).collect(),
            assumptions: assumptions.iter().map(|a| a.id.as_str()).collect(),
        };
        let stated = parse_stated(&doc, &refs)?;
        let mechanisms = parse_mechanisms(&doc, &top, &refs)?;
        let short_name = top.str("short_name")?;
        if short_name.chars().count() > 24 {
            return fallible!(Input, "deployment: 'short_name' has more than 24 characters: '{short_name}'");
        }
        Ok(Deployment {
            id: id.to_string(),
            organisation: top.str("organisation")?,
            product: top.str("product")?,
            short_name,
            year,
            census,
            privacy_unit: top.str("privacy_unit")?,
            neighbors,
            composition: top.str("composition")?,
            stated,
            mechanisms,
            assumptions,
            sources,
            notes: top.opt_str("notes")?.unwrap_or_default(),
        })
    }

    /// The ids of every assumption the result depends on (the stated δ's, the allocation's, the levels').
    pub fn assumptions_used(&self) -> Vec<String> {
        let mut v: Vec<String> = self.stated.delta_assumption.iter().cloned().collect();
        match &self.mechanisms {
            Mechanisms::Allocation { assumptions, .. } => v.extend(assumptions.iter().cloned()),
            Mechanisms::Levels(ls) => ls.iter().for_each(|l| v.extend(l.assumptions.iter().cloned())),
            Mechanisms::Missing(_) => {}
        }
        let mut seen = BTreeSet::new();
        v.retain(|a| seen.insert(a.clone()));
        v
    }
}

/// The [[source]] and [[assumption]] tables, each id unique; at least one source.
fn sources_and_assumptions(top: &Tab) -> Fallible<(Vec<Source>, Vec<Assumption>)> {
    let mut sources = Vec::new();
    for (i, s) in top.tables("source")?.into_iter().enumerate() {
        let t = Tab::new(s, &format!("source[{i}]"), &["id", "location", "document", "at", "quote"])?;
        sources.push(Source {
            id: t.str("id")?,
            location: t.str("location")?,
            document: t.str("document")?,
            at: t.str("at")?,
            quote: t.str("quote")?,
        });
    }
    if sources.is_empty() {
        return fallible!(Input, "deployment: no [[source]]: every number needs its source");
    }
    let mut assumptions = Vec::new();
    for (i, a) in top.tables("assumption")?.into_iter().enumerate() {
        let t = Tab::new(a, &format!("assumption[{i}]"), &["id", "text"])?;
        assumptions.push(Assumption { id: t.str("id")?, text: t.str("text")? });
    }
    unique(sources.iter().map(|s| s.id.as_str()), "source")?;
    unique(assumptions.iter().map(|a| a.id.as_str()), "assumption")?;
    Ok((sources, assumptions))
}

/// The ids a deployment defines, which its statement, allocation and levels cite.
struct Refs<'a> {
    sources: BTreeSet<&'a str>,
    assumptions: BTreeSet<&'a str>,
}

impl Refs<'_> {
    /// Every cited id defined; `need_source`: at least one source cited.
    fn check(&self, what: &str, srcs: &[String], asms: &[String], need_source: bool) -> Fallible<()> {
        if need_source && srcs.is_empty() {
            return fallible!(Input, "{what}: missing 'sources' (the ids of the [[source]] its numbers come from)");
        }
        for s in srcs {
            if !self.sources.contains(s.as_str()) {
                return fallible!(Input, "{what}: source '{s}' is not defined by a [[source]]");
            }
        }
        for a in asms {
            if !self.assumptions.contains(a.as_str()) {
                return fallible!(Input, "{what}: assumption '{a}' is not defined by an [[assumption]]");
            }
        }
        Ok(())
    }
}

/// The [stated] table: the guarantee as published.
fn parse_stated(doc: &toml::Table, refs: &Refs) -> Fallible<Stated> {
    let st = match doc.get("stated") {
        Some(toml::Value::Table(t)) => t,
        Some(_) => return fallible!(Input, "deployment: 'stated' must be a table ([stated])"),
        None => return fallible!(Input, "deployment: missing [stated] (the guarantee as published)"),
    };
    let s = Tab::new(st, "stated", &["kind", "text", "rho", "epsilon", "delta", "delta_assumption", "secondary", "sources"])?;
    let kind = match s.str("kind")?.as_str() {
        "zcdp" => StatedKind::Zcdp,
        "approx-dp" => StatedKind::ApproxDp,
        "pure-dp" => StatedKind::PureDp,
        k => return fallible!(Input, "stated: unknown kind '{k}' (zcdp, approx-dp, pure-dp)"),
    };
    let rho = s.opt_num("rho")?.map(|x| x.1);
    let epsilon = s.opt_num("epsilon")?;
    let delta = s.opt_num("delta")?.map(|x| x.1);
    if let Some(d) = &delta {
        if *d >= 1 {
            return fallible!(Input, "stated: 'delta' must be below 1");
        }
    }
    let delta_assumption = s.opt_str("delta_assumption")?;
    match kind {
        StatedKind::Zcdp if rho.is_none() => return fallible!(Input, "stated: kind 'zcdp' needs 'rho'"),
        StatedKind::ApproxDp if epsilon.is_none() => return fallible!(Input, "stated: kind 'approx-dp' needs 'epsilon'"),
        StatedKind::PureDp if epsilon.is_none() || delta.is_some() || rho.is_some() => {
            return fallible!(Input, "stated: kind 'pure-dp' takes 'epsilon' only")
        }
        StatedKind::ApproxDp if rho.is_some() => return fallible!(Input, "stated: kind 'approx-dp' takes no 'rho'"),
        _ => {}
    }
    if kind != StatedKind::PureDp && delta.is_none() {
        return fallible!(Input, "stated: missing 'delta' (the published one, or an assumed one named by 'delta_assumption')");
    }
    let stated_sources = s.str_list("sources")?;
    let da: Vec<String> = delta_assumption.iter().cloned().collect();
    refs.check("stated", &stated_sources, &da, true)?;
    let secondary = s.opt_str("secondary")?;
    Ok(Stated { kind, text: s.str("text")?, rho, epsilon, delta, delta_assumption, secondary, sources: stated_sources })
}

/// The noise: a built-in allocation, [[level]] tables of --mech spellings, or why it cannot be given.
fn parse_mechanisms(doc: &toml::Table, top: &Tab, refs: &Refs) -> Fallible<Mechanisms> {
    let levels = top.tables("level")?;
    let alloc = top.opt_str("allocation")?;
    let missing = top.opt_str("missing")?;
    let given = [alloc.is_some(), !levels.is_empty(), missing.is_some()].iter().filter(|b| **b).count();
    if given != 1 {
        return fallible!(Input, "deployment: exactly one of 'allocation', [[level]] and 'missing' (why the noise cannot be given)");
    }
    if alloc.is_none() && (doc.contains_key("allocation_sources") || doc.contains_key("allocation_assumptions")) {
        return fallible!(Input, "deployment: 'allocation_sources' and 'allocation_assumptions' go with 'allocation'");
    }
    Ok(if let Some(name) = alloc {
        if crate::census::allocation::builtin(&name).is_none() {
            return fallible!(Input, "deployment: 'allocation': no built-in allocation '{name}'");
        }
        let (srcs, asms) = (top.str_list("allocation_sources")?, top.str_list("allocation_assumptions")?);
        refs.check("allocation", &srcs, &asms, true)?;
        Mechanisms::Allocation { name, sources: srcs, assumptions: asms }
    } else if let Some(why) = missing {
        Mechanisms::Missing(why)
    } else {
        let mut out = Vec::new();
        for (i, l) in levels.into_iter().enumerate() {
            let t = Tab::new(l, &format!("level[{i}]"), &["name", "mech", "sources", "assumptions"])?;
            let name = t.str("name")?;
            let what = format!("level '{name}'");
            let mech = t.str_list("mech")?;
            if mech.is_empty() {
                return fallible!(Input, "{what}: missing 'mech' (the noise as --mech spellings)");
            }
            for m in &mech {
                check_mech(m).map_err(|e| e.context(&what))?;
            }
            let (srcs, asms) = (t.str_list("sources")?, t.str_list("assumptions")?);
            refs.check(&what, &srcs, &asms, true)?;
            out.push(DeploymentLevel { name, mech, sources: srcs, assumptions: asms });
        }
        unique(out.iter().map(|l| l.name.as_str()), "level")?;
        Mechanisms::Levels(out)
    })
}

fn unique<'a>(ids: impl Iterator<Item = &'a str>, what: &str) -> Fallible<()> {
    let mut seen = BTreeSet::new();
    for id in ids {
        if !seen.insert(id) {
            return fallible!(Input, "{what} '{id}' defined twice");
        }
    }
    Ok(())
}

/// Every `*.toml` of a deployments directory, parsed, in file-name order (Census products first as the
/// files are named `census-…`); the first bad file names itself.
pub fn load_dir(dir: &Path) -> Fallible<Vec<Deployment>> {
    let rd = std::fs::read_dir(dir).map_err(|e| err!(Io, "cannot read deployments directory '{}': {e}", dir.display()))?;
    let mut paths: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
    paths.sort();
    if paths.is_empty() {
        return fallible!(Input, "no deployment files (*.toml) in '{}'", dir.display());
    }
    let mut out: Vec<Deployment> = paths
        .iter()
        .map(|p| {
            let id = p.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
            let text = std::fs::read_to_string(p).map_err(|e| err!(Io, "cannot read '{}': {e}", p.display()))?;
            Deployment::from_toml(&id, &text).map_err(|e| e.context(format!("deployment file '{}'", p.display())))
        })
        .collect::<Result<_, _>>()?;
    // Census products first, then the rest, each in file order
    out.sort_by_key(|d| !d.census);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
organisation = "Org"
product = "P"
short_name = "P"
year = 2023
privacy_unit = "a person"
neighbors = "add-remove"
composition = "one query"
[stated]
kind = "zcdp"
text = "rho = 0.5"
rho = "0.5"
delta = "1e-10"
delta_assumption = "A1"
sources = ["S1"]
[[level]]
name = "all"
mech = ["dgauss:sigma2=1,n=1"]
sources = ["S1"]
[[source]]
id = "S1"
location = "https://example.org"
document = "doc"
at = "p. 1"
quote = "rho = 0.5"
[[assumption]]
id = "A1"
text = "delta 1e-10"
"#;

    #[test]
    fn parses_a_good_file() {
        let d = Deployment::from_toml("x", GOOD).unwrap();
        assert_eq!(d.stated.rho, Some(Rational::from((1, 2))));
        assert_eq!(d.assumptions_used(), vec!["A1".to_string()]);
        assert!(matches!(&d.mechanisms, Mechanisms::Levels(l) if l.len() == 1));
    }

    fn refused(text: &str, needle: &str) {
        let e = Deployment::from_toml("x", text).unwrap_err();
        assert!(e.to_string().contains(needle), "{e} does not contain {needle}");
    }

    #[test]
    fn strict() {
        refused(&GOOD.replace("year = 2023", "year = 2023\ncolour = \"red\""), "unknown key 'colour'");
        refused(&GOOD.replace("rho = \"0.5\"\ndelta", "rho = \"0.5\"\nrhoo = \"1\"\ndelta"), "unknown key 'rhoo'");
        refused(&GOOD.replace("sources = [\"S1\"]\n[[source]]", "[[source]]"), "level 'all': missing 'sources'");
        refused(&GOOD.replace("sources = [\"S1\"]\n[[level]]", "sources = [\"S9\"]\n[[level]]"), "source 'S9' is not defined");
        refused(&GOOD.replace("rho = \"0.5\"", "rho = 0.5"), "'rho' must be a decimal or fraction string");
        refused(&GOOD.replace("rho = \"0.5\"", "rho = \"-1\""), "'rho' must be positive");
        refused(&GOOD.replace("rho = \"0.5\"", "rho = \"abc\""), "'rho'");
        refused(&GOOD.replace("quote = \"rho = 0.5\"", ""), "source[0]: missing key 'quote'");
        refused(&GOOD.replace("delta_assumption = \"A1\"", "delta_assumption = \"A2\""), "assumption 'A2' is not defined");
        refused(&GOOD.replace("dgauss:sigma2=1,n=1", "dgauss:sigma3=1,n=1"), "unknown key 'sigma3'");
        refused(&GOOD.replace("dgauss:sigma2=1,n=1", "laplace:scal=1"), "unknown key 'scal'");
        refused(&GOOD.replace("dgauss:sigma2=1,n=1", "poisson:lambda=1"), "unknown noise 'poisson'");
        refused(&GOOD.replace("kind = \"zcdp\"", "kind = \"renyi\""), "unknown kind 'renyi'");
        refused(&GOOD.replace("neighbors = \"add-remove\"", "neighbors = \"swap\""), "'neighbors'");
        refused(&GOOD.replace("delta = \"1e-10\"", "delta = \"2\""), "'delta' must be below 1");
    }

    #[test]
    fn the_shipped_registry_parses() {
        let deps = load_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/deployments")).unwrap();
        assert!(deps.len() >= 10, "{} deployments", deps.len());
        let census = deps.iter().take_while(|d| d.census).count();
        assert!(census >= 3 && deps[census..].iter().all(|d| !d.census), "Census products first");
        for d in &deps {
            assert!(d.sources.iter().all(|s| !s.quote.is_empty() && !s.location.is_empty()), "{}", d.id);
        }
    }

    #[test]
    fn mechanism_spellings_are_checked_by_the_accountants_parser() {
        for ok in [
            "gauss:sigma2=2.5,n=3,mu=1/2",
            "laplace:scale=30,mu=30",
            "rr:epsilon=1,k=4",
            "dp:epsilon=1,delta=1e-6",
            "dp:epsilon=1",
            "zcdp:rho=0.1",
        ] {
            check_mech(ok).unwrap();
        }
        for bad in
            ["gauss:n=3", "dp:delta=1e-6", "laplace:scale=1,q=2", "rr:epsilon=1,k=0", "laplace:scale=1,scale=2", "zcdp:rho=0.1,q=0.5"]
        {
            assert!(check_mech(bad).is_err(), "{bad}");
        }
    }
}
