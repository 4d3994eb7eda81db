//! Python bindings of the tightdp accountant (PyO3, stable ABI). Thin: every number crosses as an exact
//! decimal or fraction string, every bracket comes back as outward-rounded decimal strings; the Python
//! package (`python/tightdp/__init__.py`) turns them into `decimal.Decimal` and adds the vectorised forms.
//! Library errors become `ValueError` with the CLI's one-line message; a Rust panic becomes PyO3's
//! `PanicException`, never a crash. Long computations release the GIL.

// PyO3 0.22's #[pymethods] expansion converts PyResult errors into themselves (a known false positive)
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rug::Rational;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tightdp::account::{Accountant, Certified, Method, Options};
use tightdp::model::{Composition, Group, Neighbors};
use tightdp::num::format::{fmt_down, fmt_up};
use tightdp::num::parse_rational;

/// Significant digits of the decimal strings handed to Python (outward rounded).
const OUT: usize = 40;

fn err(e: String) -> PyErr {
    PyValueError::new_err(e)
}

fn q(s: &str, what: &str) -> PyResult<Rational> {
    parse_rational(s).map_err(|e| err(format!("{what}: {e}")))
}

/// (lo, hi, method, trust, detail, note, digits)
type Bracket = (String, String, String, String, String, Option<String>, u32);

fn bracket(c: &Certified) -> Bracket {
    (
        fmt_down(c.lo(), OUT),
        fmt_up(c.hi(), OUT),
        c.engine().as_str().to_string(),
        c.trust().as_str().to_string(),
        c.detail().to_string(),
        c.note().map(|s| s.to_string()),
        c.digits(),
    )
}

/// A composition of discrete Gaussian and discrete Laplace query groups (`tightdp::model::Composition`)
/// with one accountant per (digits, method), kept so that repeated queries reuse the computed law.
#[pyclass(module = "tightdp._tightdp", frozen)]
struct RawComposition {
    comp: Composition,
    accountants: Mutex<HashMap<(u32, String), Arc<Accountant>>>,
}

impl RawComposition {
    fn new(comp: Composition) -> Self {
        RawComposition { comp, accountants: Mutex::new(HashMap::new()) }
    }

    fn accountant(&self, digits: u32, method: &str) -> PyResult<Arc<Accountant>> {
        let mut m = self.accountants.lock().map_err(|_| err("internal error: accountant cache poisoned".into()))?;
        if let Some(a) = m.get(&(digits, method.to_string())) {
            return Ok(a.clone());
        }
        if !(1..=1000).contains(&digits) {
            return Err(err(format!("digits must be between 1 and 1000, got {digits}")));
        }
        let method = Method::parse(method).map_err(err)?;
        if method.is_approximate() {
            return Err(err("the Fourier methods are approximate and return no certified bracket; use method='auto'".into()));
        }
        let a = Arc::new(Accountant::new(self.comp.clone(), Options { digits, method, ..Options::default() }).map_err(err)?);
        m.insert((digits, method.as_str().to_string()), a.clone());
        Ok(a)
    }
}

fn neighbors(s: &str) -> PyResult<Neighbors> {
    Neighbors::parse(s).map_err(err)
}

#[pymethods]
impl RawComposition {
    #[staticmethod]
    fn gaussian(sigma2: &str, n: u64, sensitivity: u32, neighbors_: &str) -> PyResult<Self> {
        let s = q(sigma2, "sigma2")?;
        let g = group_check(Group::gaussian(s, n, sensitivity))?;
        Ok(Self::new(Composition::new(vec![g], neighbors(neighbors_)?).map_err(err)?))
    }

    #[staticmethod]
    fn laplace(scale: &str, n: u64, sensitivity: u32, neighbors_: &str) -> PyResult<Self> {
        let b = q(scale, "scale")?;
        let g = group_check(Group::laplace(b, n, sensitivity))?;
        Ok(Self::new(Composition::new(vec![g], neighbors(neighbors_)?).map_err(err)?))
    }

    fn compose(&self, other: &RawComposition) -> PyResult<Self> {
        Ok(Self::new(self.comp.compose(&other.comp).map_err(err)?))
    }

    fn self_compose(&self, k: u64) -> PyResult<Self> {
        Ok(Self::new(self.comp.self_compose(k).map_err(err)?))
    }

    fn describe(&self) -> String {
        self.comp.describe()
    }

    fn neighbors(&self) -> &'static str {
        self.comp.neighbors().as_str()
    }

    fn rho(&self) -> String {
        self.comp.rho().to_string()
    }

    fn epsilon(&self, py: Python<'_>, delta: &str, digits: u32, method: &str) -> PyResult<Bracket> {
        let d = q(delta, "delta")?;
        let a = self.accountant(digits, method)?;
        py.allow_threads(move || a.epsilon(&d)).map(|c| bracket(&c)).map_err(err)
    }

    fn delta(&self, py: Python<'_>, epsilon: &str, digits: u32, method: &str) -> PyResult<Bracket> {
        let e = q(epsilon, "epsilon")?;
        let a = self.accountant(digits, method)?;
        py.allow_threads(move || a.delta(&e)).map(|c| bracket(&c.delta)).map_err(err)
    }

    fn tradeoff(&self, py: Python<'_>, alpha: &str, digits: u32, method: &str) -> PyResult<Bracket> {
        let al = q(alpha, "alpha")?;
        if !(0..=1).contains(&al) {
            return Err(err(format!("alpha must be in [0, 1], got {alpha}")));
        }
        let a = self.accountant(digits, method)?;
        py.allow_threads(move || a.tradeoff(&al)).map(|c| bracket(&c)).map_err(err)
    }

    /// The largest certified variance factor c (all σ² × c) keeping ε(delta) ≤ target: bracket (lo, hi).
    fn calibrate(&self, py: Python<'_>, delta: &str, target_epsilon: &str) -> PyResult<(String, String)> {
        let d = q(delta, "delta")?;
        let t = q(target_epsilon, "target_epsilon")?;
        let groups = self.comp.gauss_shifts().map_err(err)?;
        py.allow_threads(move || {
            let target = rug::Float::with_val(256, &t);
            tightdp::calibrate::calibrate_factor(&groups, &d, &target, 128, 256, 1e-12)
        })
        .map(|b| (b.lo.to_string(), b.hi.to_string()))
        .map_err(err)
    }
}

fn group_check(g: Group) -> PyResult<Group> {
    if g.count == 0 || g.count > 1_000_000_000 {
        return Err(err(format!("n must be between 1 and 1000000000, got {}", g.count)));
    }
    if g.mu == 0 || g.mu > 1_000_000 {
        return Err(err(format!("sensitivity must be between 1 and 1000000, got {}", g.mu)));
    }
    Ok(g)
}

/// An allocation file (TOML) of the Census: its levels and their compositions.
#[pyclass(module = "tightdp._tightdp", frozen)]
struct RawAllocation {
    alloc: tightdp::census::Allocation,
}

#[pymethods]
impl RawAllocation {
    #[staticmethod]
    fn load(path: &str) -> PyResult<Self> {
        Ok(RawAllocation { alloc: tightdp::census::Allocation::from_path(std::path::Path::new(path)).map_err(err)? })
    }

    fn name(&self) -> String {
        self.alloc.name.clone()
    }

    fn levels(&self) -> Vec<String> {
        self.alloc.levels.iter().map(|l| l.name.clone()).collect()
    }

    fn level(&self, name: &str) -> PyResult<RawComposition> {
        let l = self.alloc.level(name).map_err(err)?;
        Ok(RawComposition::new(self.alloc.level_composition(l).map_err(err)?))
    }

    fn overall(&self) -> PyResult<RawComposition> {
        Ok(RawComposition::new(self.alloc.composition().map_err(err)?))
    }

    fn rho(&self) -> String {
        self.alloc.total_rho().to_string()
    }
}

/// ε of the Bureau's zCDP conversion ρ + 2√(ρ log 1/δ) (Bun–Steinke), certified enclosure.
#[pyfunction]
fn zcdp_bs(rho: &str, delta: &str) -> PyResult<(String, String)> {
    let (r, d) = (q(rho, "rho")?, q(delta, "delta")?);
    check_rho_delta(&r, &d)?;
    let e = tightdp::budget::zcdp::eps_bs(&r, &d, 256);
    Ok((fmt_down(&e.lo, OUT), fmt_up(&e.hi, OUT)))
}

/// ε of the optimal zCDP conversion (Canonne–Kamath–Steinke), certified enclosure.
#[pyfunction]
fn zcdp_cks(rho: &str, delta: &str) -> PyResult<(String, String)> {
    let (r, d) = (q(rho, "rho")?, q(delta, "delta")?);
    check_rho_delta(&r, &d)?;
    let (e, _) = tightdp::budget::zcdp::eps_cks(&r, &d, 256);
    Ok((fmt_down(&e.lo, OUT), fmt_up(&e.hi, OUT)))
}

fn check_rho_delta(r: &Rational, d: &Rational) -> PyResult<()> {
    if *r <= 0 {
        return Err(err("rho must be positive".into()));
    }
    if !(*d > 0 && *d < 1) {
        return Err(err("delta must be in (0, 1)".into()));
    }
    Ok(())
}

/// A production certificate of allocation files (as `tightdp certify --allocation …`): rows of fields.
#[pyfunction]
fn certify(py: Python<'_>, paths: Vec<String>, delta: &str) -> PyResult<Vec<Vec<(String, String)>>> {
    let d = q(delta, "delta")?;
    if !(d > 0 && d < 1) {
        return Err(err("delta must be in (0, 1)".into()));
    }
    let allocs = paths
        .iter()
        .map(|p| tightdp::census::Allocation::from_path(std::path::Path::new(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    if allocs.is_empty() {
        return Err(err("certify needs at least one allocation file".into()));
    }
    let rows = py
        .allow_threads(move || {
            tightdp::app::certificate::certificate(&allocs, &d, tightdp::pld::compose::DD_PREC, true, tightdp::account::CERT_WIDTH)
        })
        .map_err(err)?;
    Ok(rows.into_iter().map(|r| r.fields).collect())
}

#[pymodule]
fn _tightdp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RawComposition>()?;
    m.add_class::<RawAllocation>()?;
    m.add_function(wrap_pyfunction!(zcdp_bs, m)?)?;
    m.add_function(wrap_pyfunction!(zcdp_cks, m)?)?;
    m.add_function(wrap_pyfunction!(certify, m)?)?;
    Ok(())
}
