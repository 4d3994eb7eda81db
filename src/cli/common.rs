//! Arguments shared by `epsilon` and `delta`: what is being accounted, the method, output format, precision.

use crate::account::{Accountant, Method, Options};
use crate::census::allocation::Allocation;
use crate::error::Fallible;
pub use crate::model::spec::{parse_count, parse_mech, parse_sensitivity};
use crate::model::{Composition, Group, Neighbors};
use crate::num::{parse_positive_rational, parse_rational, Arith, MAX_PREC, MIN_PREC};
use crate::record::Format;
use crate::{err, fallible};
use clap::Args;
use rug::Rational;
use std::path::PathBuf;

/// `--method`: one of `account::Method` (auto, lattice, smoothed, grid, zcdp-bs, zcdp-cks, fourier, fourier-fast).
pub fn parse_method(s: &str) -> Fallible<Method> {
    Method::parse(s)
}

#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// Noise variance parameter σ² of N_Z(0, σ²) (decimal or fraction, e.g. 4.9995 or 5000/73)
    #[arg(long, value_name = "S", allow_hyphen_values = true, conflicts_with_all = ["allocation", "mech"])]
    pub sigma2: Option<String>,
    /// Number of i.i.d. queries composed (with --sigma2)
    #[arg(long, value_name = "N", allow_hyphen_values = true, requires = "sigma2")]
    pub n: Option<String>,
    /// Integer sensitivity μ ≥ 1 of each query (with --sigma2 only, default 1; a --mech term states its own
    /// as `mu=M`)
    #[arg(long, allow_hyphen_values = true, value_name = "MU")]
    pub sensitivity: Option<String>,
    /// Allocation file (TOML, see docs/design.md "Allocation files"), or the name of a built-in allocation
    /// (e.g. dhc-2022-08-25); with --mech, the level(s) composed with those mechanisms
    #[arg(long, value_name = "FILE")]
    pub allocation: Option<PathBuf>,
    /// Geographic level of the allocation
    #[arg(long, value_name = "NAME", requires = "allocation", conflicts_with = "overall")]
    pub level: Option<String>,
    /// Compose all levels of the allocation
    #[arg(long, requires = "allocation")]
    pub overall: bool,
    /// A mechanism term (the help is generated from the law registry, `noise::registry::mech_help`)
    #[arg(long, value_name = "SPEC", help = crate::noise::registry::mech_help())]
    pub mech: Vec<String>,
    /// Neighbour relation for --sigma2 and --mech (default add-remove; allocation files carry their own,
    /// which --mech terms composed with them share): add-remove (one shift of μ per query) or replace (two
    /// shifts per query)
    #[arg(long, value_name = "REL")]
    pub neighbors: Option<String>,
    /// Method: auto (the accountant picks the certified engine: MPFR, double-double or f64 lattice, lattice
    /// Fourier inversion or smoothed inversion), lattice, lattice-fourier, smoothed, grid, zcdp-bs, zcdp-cks,
    /// fourier, fourier-fast (approximate), conditioned (the coarsest groups' exact laws against the
    /// lattice of the rest)
    #[arg(long, value_name = "METHOD", default_value = "auto", value_parser = parse_method)]
    pub method: Method,
    /// Correct significant digits asked of every certified bracket; precision and truncation depth are
    /// raised until the bracket meets it, or the output says why not
    #[arg(long, value_name = "D", default_value_t = crate::account::DEFAULT_DIGITS)]
    pub digits: u32,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Work the pld grid (continuous and subsampled mechanisms) may spend refining its grid, in work units
    /// (atoms of its discretised laws times inversion nodes, ten per product of a direct convolution, summed over
    /// its steps, and checked before every inversion and convolution: a step that would overrun it is not finished): a count, not seconds,
    /// so the answer is the same on every machine (the default is about 10 s for DP-SGD here); the bracket
    /// narrows like h², the work grows like 1/h
    #[arg(long, value_name = "UNITS", default_value_t = crate::account::DEFAULT_GRID_WORK)]
    pub grid_budget: u64,
    /// Round every group's loss up and down onto the grid of this width (loss units) and report the
    /// certified bracket (an independent, slower cross-check; implies --method grid)
    #[arg(long, allow_hyphen_values = true, value_name = "G")]
    pub grid: Option<String>,
    /// Target width of the certified ε bracket of the smoothed inversion (default: from --digits, at least
    /// 1e-21; at least 1e-24). Below 1e-11 it runs its 20-digit tier (128-bit nodes, ~1e11-1e12 sieved
    /// nodes: ~0.3 s for 20 digits of the 2021 redistricting budget); a width it cannot reach within
    /// 4e12 nodes gives the narrowest bracket it can, said so in the note
    #[arg(long, allow_hyphen_values = true, value_name = "W")]
    pub width: Option<String>,
    /// Force the lattice arithmetic: f64 (certified double precision, ~12 digits), dd (certified
    /// double-double, ~25 digits) or mpfr (MPFR intervals at --prec BITS, default 256). By default the
    /// accountant chooses, and raises the precision until --digits are met
    #[arg(long, value_name = "ARITH", value_parser = ["f64", "dd", "mpfr"])]
    pub arith: Option<String>,
    /// Expert override of the MPFR working precision in bits (by default it follows --digits). Without
    /// --arith, --prec 53 and --prec 106 keep their former meaning: --arith f64 and --arith dd
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
}

/// The arithmetic `--arith` and `--prec` force (None: the accountant's choice). `--prec BITS` alone is
/// MPFR at BITS, except 53 and 106, which selected the f64 and double-double engines before `--arith`
/// existed and still do ([`Arith::from_legacy_prec`]).
pub fn arith(a: &TargetArgs) -> Fallible<Option<Arith>> {
    Ok(match (&a.arith, a.prec) {
        (None, None) => None,
        (None, Some(p)) => Some(Arith::from_legacy_prec(p)),
        (Some(name), p) => Some(Arith::parse(name, p, crate::num::DEFAULT_PREC)?),
    })
}

/// A target bracket width (`--width`): a number in [MIN_WIDTH, 1].
pub fn parse_width(s: &str) -> Fallible<f64> {
    let w: f64 = s.trim().parse().map_err(|_| err!(Input, "--width must be a number, got '{s}'"))?;
    let min = crate::account::MIN_WIDTH;
    if !(w >= min && w <= 1.0) {
        return fallible!(Input, "--width must be between {min:e} and 1, got '{s}'");
    }
    Ok(w)
}

/// What is being accounted: a composition, with a label.
#[derive(Clone, Debug)]
pub struct Target {
    pub label: String,
    pub comp: Composition,
    /// The target is one of the Census Bureau's allocations shipped in data/allocations/ (its zCDP
    /// accounting is the Bureau's), unchanged and without extra mechanisms.
    pub bureau: bool,
}

/// A file with exactly the text of one of the Census Bureau's allocations shipped with tightdp
/// (data/allocations/, embedded in the binary; also selected by name) is accounted by the Bureau with zCDP.
fn is_bureau_file(path: &std::path::Path) -> bool {
    crate::census::allocation::read_text(path).is_ok_and(|t| crate::census::allocation::BUILTIN.iter().any(|(_, b)| *b == t))
}

pub fn check_prec(p: u32) -> Fallible<u32> {
    if !(MIN_PREC..=MAX_PREC).contains(&p) {
        return fallible!(Input, "--prec must be between {MIN_PREC} and {MAX_PREC} bits, got {p}");
    }
    Ok(p)
}

/// Resolve the target from the arguments, validating everything before any computation.
pub fn resolve(a: &TargetArgs) -> Fallible<Target> {
    if let Some(p) = a.prec {
        check_prec(p)?;
    }
    if a.level.is_some() && a.allocation.is_none() {
        return fallible!(Input, "--level needs --allocation");
    }
    // a count beside --mech or an allocation was silently one release: clap drops `--n`'s `requires = "sigma2"`
    // when --sigma2 conflicts with an argument given (--mech, --allocation), so the check is here, with the hint
    if a.n.is_some() && a.sigma2.is_none() {
        return fallible!(
            Input,
            "--n applies to --sigma2 only; a --mech term states its own count as n=N (e.g. gauss:sigma=1,q=0.01,n=1000), an allocation file its queries"
        );
    }
    if a.sensitivity.is_some() && a.sigma2.is_none() {
        // a --mech term or an allocation's query states its own sensitivity: the flag would be ignored
        return Err(err!(
            Input,
            "{}",
            if !a.mech.is_empty() {
                "--sensitivity applies to --sigma2 only; give each --mech term its sensitivity as mu=M (e.g. dgauss:sigma2=5,n=10,mu=3)"
            } else {
                "--sensitivity applies to --sigma2 only; an allocation's queries have sensitivity 1 (add a query of sensitivity M with --mech dgauss:sigma2=S,n=N,mu=M)"
            }
        ));
    }
    let nb_flag = a.neighbors.as_deref().map(Neighbors::parse).transpose()?;
    let nb = nb_flag.unwrap_or(Neighbors::AddRemove);
    if let Some(s) = &a.sigma2 {
        let sigma2 = parse_positive_rational(s, "sigma2")?;
        let n = parse_count(a.n.as_deref().ok_or_else(|| err!(Input, "--sigma2 needs --n"))?, "n")?;
        let mu = parse_sensitivity(a.sensitivity.as_deref().unwrap_or("1"))?;
        let comp = Composition::new(vec![Group::gaussian(sigma2, n, mu)], nb)?;
        return Ok(Target { label: format!("{n} x N_Z(0, {}) sensitivity {mu}", s.trim()), comp, bureau: false });
    }
    let mechs = || -> Fallible<Vec<Group>> { a.mech.iter().map(|m| parse_mech(m)).collect::<Result<_, _>>() };
    if let Some(path) = &a.allocation {
        let alloc = Allocation::from_path(path)?;
        if let Some(f) = nb_flag {
            if f != alloc.neighbors {
                return fallible!(
                    Input,
                    "--neighbors {} contradicts the allocation file's relation ({}): the file states its own{}",
                    f.as_str(),
                    alloc.neighbors.as_str(),
                    if a.mech.is_empty() { "" } else { ", which the --mech terms composed with it share" }
                );
            }
        }
        let (label, comp) = if a.overall {
            (format!("{} (overall)", alloc.name), alloc.composition()?)
        } else {
            let name = a.level.as_deref().ok_or_else(|| err!(Input, "--allocation needs --level NAME or --overall"))?;
            let level = alloc.level(name)?;
            (format!("{} / {}", alloc.name, level.name), alloc.level_composition(level)?)
        };
        if a.mech.is_empty() {
            return Ok(Target { label, comp, bureau: is_bureau_file(path) });
        }
        // the allocation's queries composed with the extra mechanisms, under the file's relation
        let extra = Composition::new(mechs()?, alloc.neighbors)?;
        return Ok(Target { label: format!("{label} + {}", a.mech.join(" + ")), comp: comp.compose(&extra)?, bureau: false });
    }
    if !a.mech.is_empty() {
        return Ok(Target { label: a.mech.join(" + "), comp: Composition::new(mechs()?, nb)?, bureau: false });
    }
    fallible!(Input, "nothing to account: give --sigma2 S --n N, --allocation FILE (--level NAME | --overall), or --mech SPEC")
}

/// The accountant for the arguments: method, digits, precision, smoothed width and grid.
pub fn accountant(a: &TargetArgs, t: &Target) -> Fallible<Accountant> {
    let width = a.width.as_deref().map(parse_width).transpose()?;
    let grid = a.grid.as_deref().map(|g| parse_positive_rational(g, "grid")).transpose()?;
    let method = if grid.is_some() {
        if !matches!(a.method, Method::Auto | Method::Grid) {
            return fallible!(Input, "--grid selects the grid method; it cannot be combined with another --method");
        }
        Method::Grid
    } else {
        a.method
    };
    if width.is_some() && !matches!(method, Method::Auto | Method::Smoothed) {
        return Err(if a.grid.is_some() {
            err!(Input, "--width sets the smoothed inversion's bracket; --grid selects the grid method, which has none")
        } else {
            err!(
                Input,
                "--width sets the smoothed inversion's bracket; --method {} does not use it (use --method smoothed or auto)",
                method.as_str()
            )
        });
    }
    if a.grid_budget == 0 {
        return fallible!(Input, "--grid-budget must be a positive number of work units, got 0");
    }
    let opts = Options { method, digits: a.digits, arith: arith(a)?, width, grid, grid_work: a.grid_budget, ..Options::default() };
    Accountant::new(t.comp.clone(), opts)
}

/// δ strictly inside (0, 1), one value (the commands that take a list use [`parse_list`]).
pub fn parse_delta(s: &str) -> Fallible<Rational> {
    if s.contains(',') {
        return fallible!(
            Input,
            "--delta takes one value in this command, got the list '{}' (lists are for `epsilon` and `delta`)",
            s.trim()
        );
    }
    let d = parse_rational(s).map_err(|e| e.context("delta"))?;
    if d <= 0 || d >= 1 {
        return fallible!(Input, "delta must be in (0, 1), got '{s}'");
    }
    Ok(d)
}

/// A comma list of values (`--delta 1e-5,1e-10`), each parsed by `parse`; the text of each kept for output.
pub fn parse_list<T>(s: &str, what: &str, parse: impl Fn(&str) -> Fallible<T>) -> Fallible<Vec<(String, T)>> {
    s.split(',')
        .map(|v| {
            let v = v.trim();
            if v.is_empty() {
                return fallible!(Input, "--{what}: empty value in the list '{}'", s.trim());
            }
            Ok((v.to_string(), parse(v)?))
        })
        .collect()
}

/// ε ≥ 0.
pub fn parse_epsilon(s: &str) -> Fallible<Rational> {
    let e = parse_rational(s).map_err(|e| e.context("epsilon"))?;
    if e < 0 {
        return fallible!(Input, "epsilon must be non-negative, got '{s}'");
    }
    if e > 100_000 {
        return fallible!(Input, "epsilon must be at most 100000, got '{s}'");
    }
    Ok(e)
}
