//! Arguments shared by `epsilon` and `delta`: what is being accounted, the method, output format, precision.

use crate::census::allocation::{group_mechanisms, Allocation};
use crate::model::{GaussGroup, Neighbors};
use crate::num::{parse_positive_rational, parse_rational, DEFAULT_PREC, MAX_PREC, MIN_PREC};
use crate::report::Format;
use clap::Args;
use rug::Rational;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Exact lattice privacy-loss distribution, certified (the reference)
    Lattice,
    /// Bureau's conversion ε = ρ + 2√(ρ log 1/δ) (Bun–Steinke)
    ZcdpBs,
    /// Optimal zCDP conversion (Canonne–Kamath–Steinke)
    ZcdpCks,
    /// The paper's Fourier inversion (Props A.12–A.13, Facts A.14–A.15: Boole's rule, N = 10^7+1), delta only
    Fourier,
    /// Saddle-point Fourier inversion with periodic trapezoid and aliasing bound (src/fourier/fast.rs), delta only
    FourierFast,
    /// Certified smoothed Fourier inversion (src/fourier/smooth.rs): a rigorous bracket for budgets that
    /// share no practical lattice; its width is set by --width
    Smoothed,
}

impl Method {
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Lattice => "lattice",
            Method::ZcdpBs => "zcdp-bs",
            Method::ZcdpCks => "zcdp-cks",
            Method::Fourier => "fourier",
            Method::FourierFast => "fourier-fast",
            Method::Smoothed => "smoothed",
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// Noise variance parameter σ² of N_Z(0, σ²) (decimal or fraction, e.g. 4.9995 or 5000/73)
    #[arg(long, value_name = "S", allow_hyphen_values = true, conflicts_with_all = ["allocation", "mech"])]
    pub sigma2: Option<String>,
    /// Number of i.i.d. queries composed (with --sigma2)
    #[arg(long, value_name = "N", allow_hyphen_values = true, requires = "sigma2")]
    pub n: Option<String>,
    /// Integer sensitivity μ ≥ 1 of each query (with --sigma2; add/remove neighbours)
    #[arg(long, value_name = "MU", default_value = "1")]
    pub sensitivity: String,
    /// Allocation file (TOML, see DESIGN.md)
    #[arg(long, value_name = "FILE", conflicts_with = "mech")]
    pub allocation: Option<PathBuf>,
    /// Geographic level of the allocation
    #[arg(long, value_name = "NAME", requires = "allocation", conflicts_with = "overall")]
    pub level: Option<String>,
    /// Compose all levels of the allocation
    #[arg(long, requires = "allocation")]
    pub overall: bool,
    /// A mechanism term `dgauss:sigma2=S,n=N[,mu=M]`; repeat to compose several
    #[arg(long, value_name = "SPEC")]
    pub mech: Vec<String>,
    /// Accounting method
    #[arg(long, value_enum, default_value = "lattice")]
    pub method: Method,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Round every group's loss up and down onto the grid of this width (loss units) and report the
    /// certified bracket (for budgets that share no practical lattice); epsilon only
    #[arg(long, value_name = "G")]
    pub grid: Option<String>,
    /// Target width of the certified ε bracket of --method smoothed
    #[arg(long, value_name = "W", default_value = "1e-9")]
    pub width: String,
    /// Working precision in bits (MPFR)
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
}

/// A target bracket width (`--width`): a number in [MIN_WIDTH, 1].
pub fn parse_width(s: &str) -> Result<f64, String> {
    let w: f64 = s.trim().parse().map_err(|_| format!("--width must be a number, got '{s}'"))?;
    let min = crate::fourier::smooth::MIN_WIDTH;
    if !(w >= min && w <= 1.0) {
        return Err(format!("--width must be between {min:e} and 1, got '{s}'"));
    }
    Ok(w)
}

/// What is being accounted: groups of i.i.d. discrete Gaussian mechanisms, with a label.
#[derive(Clone, Debug)]
pub struct Target {
    pub label: String,
    pub groups: Vec<GaussGroup>,
    pub neighbors: Neighbors,
}

impl Target {
    pub fn rho(&self) -> Rational {
        crate::model::gauss_rho(&self.groups)
    }

    pub fn describe(&self) -> String {
        self.groups.iter().map(|g| format!("{} x N_Z(0, {}) sensitivity {}", g.count, g.sigma2, g.mu)).collect::<Vec<_>>().join(" + ")
    }
}

fn parse_count(s: &str, what: &str) -> Result<u32, String> {
    let v: i64 = s.trim().parse().map_err(|_| format!("{what} must be a positive integer, got '{s}'"))?;
    if !(1..=1_000_000).contains(&v) {
        return Err(format!("{what} must be an integer between 1 and 1000000, got '{s}'"));
    }
    Ok(v as u32)
}

/// Parse `dgauss:sigma2=S,n=N[,mu=M]`.
pub fn parse_mech(spec: &str) -> Result<GaussGroup, String> {
    let body = spec.strip_prefix("dgauss:").ok_or_else(|| format!("mechanism '{spec}': expected 'dgauss:sigma2=S,n=N[,mu=M]'"))?;
    let (mut s2, mut n, mut mu) = (None, 1u32, 1u32);
    for kv in body.split(',') {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("mechanism '{spec}': expected key=value, got '{kv}'"))?;
        match k.trim() {
            "sigma2" => s2 = Some(parse_positive_rational(v, "sigma2")?),
            "n" => n = parse_count(v, "n")?,
            "mu" | "sensitivity" => mu = parse_count(v, "sensitivity")?,
            other => return Err(format!("mechanism '{spec}': unknown key '{other}'")),
        }
    }
    let sigma2 = s2.ok_or_else(|| format!("mechanism '{spec}': missing sigma2"))?;
    Ok(GaussGroup { sigma2, count: n, mu })
}

pub fn check_prec(p: u32) -> Result<u32, String> {
    if !(MIN_PREC..=MAX_PREC).contains(&p) {
        return Err(format!("--prec must be between {MIN_PREC} and {MAX_PREC} bits, got {p}"));
    }
    Ok(p)
}

/// Resolve the target from the arguments, validating everything before any computation.
pub fn resolve(a: &TargetArgs) -> Result<Target, String> {
    check_prec(a.prec)?;
    if let Some(s) = &a.sigma2 {
        let sigma2 = parse_positive_rational(s, "sigma2")?;
        let n = parse_count(a.n.as_deref().ok_or("--sigma2 needs --n")?, "n")?;
        let mu = parse_count(&a.sensitivity, "sensitivity")?;
        return Ok(Target {
            label: format!("{n} x N_Z(0, {s}) sensitivity {mu}"),
            groups: vec![GaussGroup { sigma2, count: n, mu }],
            neighbors: Neighbors::AddRemove,
        });
    }
    if let Some(path) = &a.allocation {
        let alloc = Allocation::from_path(path)?;
        if a.overall {
            return Ok(Target { label: format!("{} (overall)", alloc.name), groups: alloc.all_mechanisms(), neighbors: alloc.neighbors });
        }
        let name = a.level.as_deref().ok_or("--allocation needs --level NAME or --overall")?;
        let level = alloc.level(name)?;
        return Ok(Target {
            label: format!("{} / {}", alloc.name, level.name),
            groups: group_mechanisms(&level.query_rho, alloc.neighbors),
            neighbors: alloc.neighbors,
        });
    }
    if !a.mech.is_empty() {
        let mut groups: Vec<GaussGroup> = Vec::new();
        for m in &a.mech {
            let g = parse_mech(m)?;
            if let Some(x) = groups.iter_mut().find(|x| x.sigma2 == g.sigma2 && x.mu == g.mu) {
                x.count += g.count;
            } else {
                groups.push(g);
            }
        }
        let label = a.mech.join(" + ");
        return Ok(Target { label, groups, neighbors: Neighbors::AddRemove });
    }
    Err("nothing to account: give --sigma2 S --n N, --allocation FILE (--level NAME | --overall), or --mech SPEC".into())
}

/// δ strictly inside (0, 1).
pub fn parse_delta(s: &str) -> Result<Rational, String> {
    let d = parse_rational(s).map_err(|e| format!("delta: {e}"))?;
    if d <= 0 || d >= 1 {
        return Err(format!("delta must be in (0, 1), got '{s}'"));
    }
    Ok(d)
}

/// ε ≥ 0.
pub fn parse_epsilon(s: &str) -> Result<Rational, String> {
    let e = parse_rational(s).map_err(|e| format!("epsilon: {e}"))?;
    if e < 0 {
        return Err(format!("epsilon must be non-negative, got '{s}'"));
    }
    if e > 100_000 {
        return Err(format!("epsilon must be at most 100000, got '{s}'"));
    }
    Ok(e)
}
