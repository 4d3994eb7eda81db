//! Python bindings of the tightdp accountant (PyO3, stable ABI). Thin: every number crosses as an exact
//! decimal or fraction string, every bracket comes back as outward-rounded decimal strings; the Python
//! package (`python/tightdp/__init__.py`) turns them into `Certified` values with `decimal.Decimal` ends,
//! validates argument types and adds the vectorised forms.
//!
//! Errors: the library's typed errors (`tightdp::error`) become the exceptions of `tightdp/_errors.py` by
//! their kind, with the CLI's one-line message: `Input` → `InputError` (a `ValueError`), `Resource` →
//! `ResourceLimitError` (a `MemoryError`), `Io` → `FileError` (an `OSError`), `Internal` →
//! `InternalError` (also any Rust panic, caught here: a `PanicException` never reaches the caller),
//! `Interrupted` → `KeyboardInterrupt`; an engine's refusal (`Declined`) that reaches here is settled as
//! `Input` or `Resource` (`Error::settle`).
//!
//! Interrupts: a computation runs in a worker thread with the GIL released while the calling thread polls
//! Python's signal handlers every 50 ms; on Ctrl-C (or any exception a handler raises) it asks the
//! engines to stop (`tightdp::cancel`), waits for the worker, and raises the handler's exception.

// PyO3 0.22's #[pymethods] expansion converts PyResult errors into themselves (a known false positive)
#![allow(clippy::useless_conversion)]

use pyo3::prelude::*;
use rug::Rational;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use tightdp::cancel;
use tightdp::parse_rational;
use tightdp::{fmt_down, fmt_up};
use tightdp::{Accountant, Certified, Method, Options};
use tightdp::{Composition, Group, Neighbors};
use tightdp::{Error, ErrorKind, Fallible};

/// Significant digits of the decimal strings handed to Python (outward rounded).
const OUT: usize = 40;

/// The CLI's limits on a group's query count and sensitivity (`tightdp::parse_count`).
const MAX_N: u64 = tightdp::MAX_N;
const MAX_SENSITIVITY: u64 = 1_000_000;

/// An exception of `tightdp._errors` by class name, with the message.
fn raise(kind: &str, msg: String) -> PyErr {
    Python::with_gil(|py| match py.import_bound("tightdp._errors").and_then(|m| m.getattr(kind)).and_then(|c| c.call1((msg.clone(),))) {
        Ok(v) => PyErr::from_value_bound(v),
        Err(e) => e,
    })
}

/// Does a bare library message refuse a size beyond an engine's limits (rather than an invalid value)?
/// The Python exception of an error, by its kind (a refusal settled: `Error::settle`).
fn err(e: Error) -> PyErr {
    let e = e.settle();
    let class = match e.kind() {
        ErrorKind::Input | ErrorKind::Declined => "InputError",
        ErrorKind::Resource => "ResourceLimitError",
        ErrorKind::Io => "FileError",
        ErrorKind::Internal => "InternalError",
        ErrorKind::Interrupted => return pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()),
    };
    // Display: the CLI's line (an internal error with its "please report it" prefix), in Python's words
    raise(class, for_python(&e.to_string()))
}

/// A library message or note in the words of the Python interface: the command line's flags named by the
/// keywords that set the same thing here (`--neighbors replace` is `neighbors="replace"`, …); flags with
/// no keyword are marked as the command line's.
fn for_python(msg: &str) -> String {
    let mut m = msg.to_string();
    for (flag, kw) in [
        ("--neighbors replace", "neighbors=\"replace\""),
        ("--neighbors add-remove", "neighbors=\"add-remove\""),
        ("--grid-budget", "grid_budget="),
        ("--digits", "digits="),
        ("--resolution", "resolution="),
        ("--target-epsilon", "target_epsilon="),
        ("--target-advantage", "target_advantage="),
        ("--target-tpr", "target_tpr="),
        ("--at-fpr", "at_fpr="),
        ("--alpha A,B,...", "tradeoff(alpha) at chosen points"),
    ] {
        m = m.replace(flag, kw);
    }
    for name in ["auto", "lattice-fourier", "lattice", "zcdp-cks", "zcdp-bs", "smoothed", "grid", "conditioned"] {
        m = m.replace(&format!("--method {name}"), &format!("method=\"{name}\""));
    }
    m = m.replace("--method", "method=");
    for flag in ["--grid", "--width", "--prec", "--arith"] {
        m = m.replace(flag, &format!("the command line's {flag}"));
    }
    m
}

/// A file that cannot be read: `FileError` (an `OSError`) with errno and filename set.
fn io_err(e: &std::io::Error, msg: String, path: &str) -> PyErr {
    Python::with_gil(|py| {
        let r = py
            .import_bound("tightdp._errors")
            .and_then(|m| m.getattr("file_error"))
            .and_then(|f| f.call1((msg.clone(), e.raw_os_error(), path)));
        match r {
            Ok(v) => PyErr::from_value_bound(v),
            Err(e) => e,
        }
    })
}

/// The last panic's message and location (recorded by the hook installed at import).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn install_panic_hook() {
    // panics inside this extension are caught and raised as InternalError with this text; the default
    // hook would also print a backtrace to the user's stderr
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{}{at}", what.lines().next().unwrap_or("")));
    }));
}

/// The last panic as an internal error ("internal error, please report it: MESSAGE at FILE:LINE").
fn panic_error() -> Error {
    let m = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
    Error::new(ErrorKind::Internal, m.unwrap_or_else(|| "a panic".into()))
}

/// `f` with any panic turned into an internal error.
fn guard<T>(f: impl FnOnce() -> Fallible<T>) -> Fallible<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(panic_error()))
}

/// `f` guarded, errors mapped (for quick calls that run on the calling thread).
fn quick<T>(f: impl FnOnce() -> Fallible<T>) -> PyResult<T> {
    guard(f).map_err(err)
}

/// How often the calling thread runs Python's signal handlers while a computation runs.
const POLL: Duration = Duration::from_millis(50);

/// Run a computation interruptibly: in a worker thread (GIL released), polling the signal handlers.
fn run<T: Send + 'static>(py: Python<'_>, f: impl FnOnce() -> Fallible<T> + Send + 'static) -> PyResult<T> {
    // a computation cancelled before may still be winding down: a new one would be cancelled at once
    let session = loop {
        if let Some(s) = cancel::enter() {
            break s;
        }
        py.check_signals()?;
        py.allow_threads(|| std::thread::sleep(Duration::from_millis(5)));
    };
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("tightdp".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = guard(f);
            // a cancelled computation's result is meaningless (see tightdp::cancel): read the flag
            // before the session ends
            let cancelled = cancel::requested();
            let _ = tx.send((r, cancelled));
            drop(session);
        })
        .map_err(|e| raise("ResourceLimitError", format!("cannot start a worker thread: {e}")))?;
    // (a Mutex makes the receiver, Send but not Sync, usable from the GIL-free closure)
    let rx = Mutex::new(rx);
    let wait = |py: Python<'_>| py.allow_threads(|| rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(POLL));
    loop {
        match wait(py) {
            Ok((r, cancelled)) => {
                if cancelled {
                    // another thread's interrupt cancelled this computation too
                    return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("the computation was cancelled"));
                }
                return r.map_err(err);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel::request();
                    // the engines poll the request in their hot loops: wait for the worker to stop (a
                    // second interrupt leaves it to finish in the background)
                    while let Err(mpsc::RecvTimeoutError::Timeout) = wait(py) {
                        if py.check_signals().is_err() {
                            break;
                        }
                    }
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(err(panic_error())),
        }
    }
}

fn q(s: &str, what: &str) -> PyResult<Rational> {
    parse_rational(s).map_err(|e| raise("InputError", format!("{what}: {e}")))
}

/// (lo, hi, method, trust, detail, note, digits)
type Bracket = (String, String, String, String, String, Option<String>, u32);

fn bracket(c: &Certified) -> Bracket {
    // the digits the returned (printed) ends support, as on the command line
    let p = c.printed(OUT);
    (
        p.lo,
        p.hi,
        c.engine().as_str().to_string(),
        c.trust().as_str().to_string(),
        c.detail().to_string(),
        c.note().map(for_python),
        p.digits,
    )
}

type Cache = Arc<Mutex<HashMap<(u32, String, u64), Arc<Accountant>>>>;

/// A composition of discrete Gaussian and discrete Laplace query groups (`tightdp::Composition`)
/// with one accountant per (digits, method), kept so that repeated queries reuse the computed law.
#[pyclass(module = "tightdp._tightdp", frozen)]
struct RawComposition {
    comp: Arc<Composition>,
    accountants: Cache,
}

impl RawComposition {
    fn new(comp: Composition) -> Self {
        RawComposition { comp: Arc::new(comp), accountants: Arc::new(Mutex::new(HashMap::new())) }
    }

    /// Check digits and method now (quick, on the calling thread); the accountant is built in the worker.
    fn options(digits: u32, method: &str, grid_budget: Option<u64>) -> PyResult<Options> {
        if !(1..=1000).contains(&digits) {
            return Err(raise("InputError", format!("digits must be between 1 and 1000, got {digits}")));
        }
        let grid_work = match grid_budget {
            None => tightdp::DEFAULT_GRID_WORK,
            Some(b) if b > 0 => b,
            Some(b) => return Err(raise("InputError", format!("grid_budget must be a positive number of work units, got {b}"))),
        };
        let method = Method::parse(method).map_err(err)?;
        if method.is_approximate() {
            return Err(raise(
                "InputError",
                "the Fourier methods are approximate and return no certified bracket; use method='auto'".into(),
            ));
        }
        Ok(Options { digits, method, grid_work, ..Options::default() })
    }
}

fn accountant(comp: &Composition, cache: &Cache, o: Options) -> Fallible<Arc<Accountant>> {
    let key = (o.digits, o.method.as_str().to_string(), o.grid_work);
    let poisoned = || Error::new(ErrorKind::Internal, "accountant cache poisoned");
    if let Some(a) = cache.lock().map_err(|_| poisoned())?.get(&key) {
        return Ok(a.clone());
    }
    let a = Arc::new(Accountant::new(comp.clone(), o)?);
    cache.lock().map_err(|_| poisoned())?.insert(key, a.clone());
    Ok(a)
}

fn neighbors(s: &str) -> PyResult<Neighbors> {
    Neighbors::parse(s).map_err(err)
}

fn group_check(n: u64, sensitivity: u64) -> PyResult<()> {
    if !(1..=MAX_N).contains(&n) {
        return Err(raise("InputError", format!("n must be an integer between 1 and {MAX_N}, got {n}")));
    }
    if !(1..=MAX_SENSITIVITY).contains(&sensitivity) {
        return Err(raise("InputError", format!("sensitivity must be an integer between 1 and {MAX_SENSITIVITY}, got {sensitivity}")));
    }
    Ok(())
}

#[pymethods]
impl RawComposition {
    #[staticmethod]
    fn gaussian(sigma2: &str, n: u64, sensitivity: u64, neighbors_: &str) -> PyResult<Self> {
        let s = q(sigma2, "sigma2")?;
        group_check(n, sensitivity)?;
        let nb = neighbors(neighbors_)?;
        quick(|| Composition::new(vec![Group::gaussian(s, n, sensitivity as u32)], nb)).map(Self::new)
    }

    #[staticmethod]
    fn laplace(scale: &str, n: u64, sensitivity: u64, neighbors_: &str) -> PyResult<Self> {
        let b = q(scale, "scale")?;
        group_check(n, sensitivity)?;
        let nb = neighbors(neighbors_)?;
        quick(|| Composition::new(vec![Group::laplace(b, n, sensitivity as u32)], nb)).map(Self::new)
    }

    /// A composition of `--mech` terms (`dgauss:…`, `dlap:…`, `gauss:sigma2=S[,mu=M][,q=Q],n=N`, …).
    #[staticmethod]
    fn from_mechs(specs: Vec<String>, neighbors_: &str) -> PyResult<Self> {
        let nb = neighbors(neighbors_)?;
        quick(|| {
            let groups = specs.iter().map(|m| tightdp::parse_mech(m)).collect::<Fallible<Vec<_>>>()?;
            Composition::new(groups, nb)
        })
        .map(Self::new)
    }

    fn compose(&self, other: &RawComposition) -> PyResult<Self> {
        quick(|| self.comp.compose(&other.comp)).map(Self::new)
    }

    fn self_compose(&self, k: u64) -> PyResult<Self> {
        quick(|| self.comp.self_compose(k)).map(Self::new)
    }

    fn describe(&self) -> String {
        self.comp.describe()
    }

    fn neighbors(&self) -> &'static str {
        self.comp.neighbors().as_str()
    }

    fn rho(&self) -> PyResult<String> {
        quick(|| Fallible::Ok(self.comp.rho_required()?.to_string()))
    }

    #[pyo3(signature = (delta, digits, method, grid_budget=None))]
    fn epsilon(&self, py: Python<'_>, delta: &str, digits: u32, method: &str, grid_budget: Option<u64>) -> PyResult<Bracket> {
        let d = q(delta, "delta")?;
        let o = Self::options(digits, method, grid_budget)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || accountant(&comp, &cache, o)?.epsilon(&d).map(|c| bracket(&c)))
    }

    #[pyo3(signature = (epsilon, digits, method, grid_budget=None))]
    fn delta(&self, py: Python<'_>, epsilon: &str, digits: u32, method: &str, grid_budget: Option<u64>) -> PyResult<Bracket> {
        let e = q(epsilon, "epsilon")?;
        // the CLI's range (src/cli/common.rs parse_epsilon)
        if e < 0 {
            return Err(raise("InputError", format!("epsilon must be non-negative, got {epsilon}")));
        }
        if e > 100_000 {
            return Err(raise("InputError", format!("epsilon must be at most 100000, got {epsilon}")));
        }
        let o = Self::options(digits, method, grid_budget)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || accountant(&comp, &cache, o)?.delta(&e).map(|c| bracket(&c.delta)))
    }

    #[pyo3(signature = (alpha, digits, method, grid_budget=None))]
    fn tradeoff(&self, py: Python<'_>, alpha: &str, digits: u32, method: &str, grid_budget: Option<u64>) -> PyResult<Bracket> {
        let al = q(alpha, "alpha")?;
        if !(0..=1).contains(&al) {
            return Err(raise("InputError", format!("alpha must be in [0, 1], got {alpha}")));
        }
        let o = Self::options(digits, method, grid_budget)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || accountant(&comp, &cache, o)?.tradeoff(&al).map(|c| bracket(&c)))
    }

    /// The reconstruction-robustness bound 1 − f(κ) at baseline success κ ∈ (0, 1) (the CLI's
    /// `attack --reconstruction-prior`).
    #[pyo3(signature = (kappa, digits, method, grid_budget=None))]
    fn reconstruction_success(
        &self,
        py: Python<'_>,
        kappa: &str,
        digits: u32,
        method: &str,
        grid_budget: Option<u64>,
    ) -> PyResult<Bracket> {
        let k = q(kappa, "kappa")?;
        if !(k > 0 && k < 1) {
            return Err(raise(
                "InputError",
                format!("kappa (the success of the best guess without the data) must be in (0, 1), got {kappa}"),
            ));
        }
        let o = Self::options(digits, method, grid_budget)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || tightdp::reconstruction_success(&*accountant(&comp, &cache, o)?, &k).map(|c| bracket(&c)))
    }

    /// D_α, the Rényi divergence at order α > 1 (the CLI's `renyi --alpha`); the method and budget are the
    /// other queries' signature and do not apply (the CLI refuses a method other than auto).
    #[pyo3(signature = (alpha, digits, method, grid_budget=None))]
    fn renyi(&self, py: Python<'_>, alpha: &str, digits: u32, method: &str, grid_budget: Option<u64>) -> PyResult<Bracket> {
        let al = q(alpha, "alpha")?;
        if al <= 1 {
            return Err(raise("InputError", format!("the Renyi order alpha must be greater than 1, got {alpha}")));
        }
        if method != "auto" || grid_budget.is_some() {
            return Err(raise(
                "InputError",
                "renyi computes each law's divergence directly: method and grid_budget do not apply".to_string(),
            ));
        }
        let o = Self::options(digits, method, None)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || accountant(&comp, &cache, o)?.renyi(&al).map(|c| bracket(&c)))
    }

    /// The tight zCDP parameter sup_α D_α/α (the CLI's `renyi --rho`).
    fn tight_rho(&self, py: Python<'_>, digits: u32) -> PyResult<Bracket> {
        let o = Self::options(digits, "auto", None)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || accountant(&comp, &cache, o)?.tight_rho().map(|c| bracket(&c)))
    }

    /// The CLI's `attack` measures: advantage, TPR at each FPR, Bayes success at each prior (certified),
    /// and the Bureau's double-precision counterparts.
    #[allow(clippy::type_complexity)]
    fn attack(
        &self,
        py: Python<'_>,
        fprs: Vec<String>,
        priors: Vec<String>,
        digits: u32,
        method: &str,
    ) -> PyResult<(Bracket, Vec<Bracket>, Vec<Bracket>, f64, Vec<f64>, Vec<f64>)> {
        let fprs = fprs.iter().map(|s| q(s, "fpr")).collect::<PyResult<Vec<_>>>()?;
        let priors = priors.iter().map(|s| q(s, "prior")).collect::<PyResult<Vec<_>>>()?;
        for f in &fprs {
            if !(0..=1).contains(f) {
                return Err(raise("InputError", format!("fpr must be in [0, 1], got {f}")));
            }
        }
        for p in &priors {
            if !(*p > 0 && *p < 1) {
                return Err(raise("InputError", format!("prior must be in (0, 1), got {p}")));
            }
        }
        let o = Self::options(digits, method, None)?;
        let (comp, cache) = (self.comp.clone(), self.accountants.clone());
        run(py, move || {
            let acc = accountant(&comp, &cache, o)?;
            let rho = acc.rho().map(|r| r.to_f64()).unwrap_or(f64::NAN);
            // (the attack measures still report bare messages)
            let adv = bracket(&tightdp::advantage(&acc)?);
            let tpr = fprs.iter().map(|f| tightdp::tpr_at_fpr(&acc, f).map(|c| bracket(&c))).collect::<Result<Vec<_>, _>>()?;
            let bayes = priors.iter().map(|p| tightdp::bayes_success(&acc, p).map(|c| bracket(&c))).collect::<Result<Vec<_>, _>>()?;
            let tpr_b = fprs.iter().map(|f| 1.0 - tightdp::bureau_tradeoff(rho, f.to_f64())).collect();
            let bayes_b = priors.iter().map(|p| tightdp::bureau_bayes_success(rho, p.to_f64())).collect();
            Fallible::Ok((adv, tpr, bayes, tightdp::bureau_advantage(rho), tpr_b, bayes_b))
        })
    }

    /// The largest certified variance factor c (all σ² × c) keeping ε(delta) ≤ target: the bracket as
    /// exact fractions (lo, hi) and ε at both ends as decimal brackets.
    fn calibrate(&self, py: Python<'_>, delta: &str, target_epsilon: &str) -> PyResult<(String, String, String, String, String, String)> {
        let d = q(delta, "delta")?;
        let t = q(target_epsilon, "target_epsilon")?;
        if !(d > 0 && d < 1) {
            return Err(raise("InputError", format!("delta must be in (0, 1), got {delta}")));
        }
        if t <= 0 {
            return Err(raise("InputError", format!("target_epsilon must be positive, got {target_epsilon}")));
        }
        let groups = quick(|| self.comp.gauss_shifts())?;
        // the factor where the Bun–Steinke bound meets the target (calibrate_factor's start): the exact
        // root lies within a small factor of it; refuse targets whose factor is out of the supported range
        let rho = tightdp::gauss_rho(&groups).to_f64();
        let l = (1.0 / d.to_f64()).ln();
        let e = t.to_f64();
        let c_bs = rho / ((l + e).sqrt() - l.sqrt()).powi(2);
        let max = tightdp::MAX_FACTOR;
        if !(c_bs.is_finite() && c_bs <= max) {
            return Err(raise(
                "InputError",
                format!("target_epsilon = {target_epsilon} at delta = {delta} needs the variances multiplied by a factor beyond the supported {max:e}"),
            ));
        }
        if c_bs < 1.0 / max {
            return Err(raise(
                "InputError",
                format!(
                    "target_epsilon = {target_epsilon} at delta = {delta} needs the variances multiplied by a factor below the supported {:e}",
                    1.0 / max
                ),
            ));
        }
        run(py, move || {
            let target = rug::Float::with_val(256, &t);
            let b = tightdp::calibrate_factor(&groups, &d, &target, 128, 256, 1e-12)?;
            let iv = |c: &Certified| (fmt_down(c.lo(), OUT), fmt_up(c.hi(), OUT));
            let ((a, b_), (c, d_)) = (iv(&b.at_lo), iv(&b.at_hi));
            Fallible::Ok((b.lo.to_string(), b.hi.to_string(), a, b_, c, d_))
        })
    }
}

/// An allocation file (TOML) of the Census: its levels and their compositions.
#[pyclass(module = "tightdp._tightdp", frozen)]
struct RawAllocation {
    alloc: tightdp::Allocation,
}

/// Read and parse an allocation file with the CLI's messages; a read failure is an OSError. As on the
/// command line, a bare name with no such file is the built-in allocation of that name (`dhc-2022-08-25`).
fn load_allocation(path: &str) -> PyResult<tightdp::Allocation> {
    use tightdp::{builtin_allocation as builtin, BUILTIN_ALLOCATIONS as BUILTIN};
    let bare = std::path::Path::new(path).components().count() == 1;
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && bare && builtin(path).is_some() => {
            builtin(path).unwrap_or_default().to_string()
        }
        Err(e) => {
            let names: Vec<&str> = BUILTIN.iter().map(|(k, _)| *k).collect();
            let hint = if bare { format!(" (built-in allocations: {})", names.join(", ")) } else { String::new() };
            return Err(io_err(&e, format!("cannot read allocation file '{path}': {e}{hint}"), path));
        }
    };
    quick(|| tightdp::Allocation::from_toml(&text).map_err(|e| e.context(format!("allocation file '{path}'"))))
}

#[pymethods]
impl RawAllocation {
    #[staticmethod]
    fn load(path: &str) -> PyResult<Self> {
        Ok(RawAllocation { alloc: load_allocation(path)? })
    }

    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<Self> {
        Ok(RawAllocation { alloc: quick(|| tightdp::Allocation::from_toml(text).map_err(|e| e.context("allocation")))? })
    }

    fn name(&self) -> String {
        self.alloc.name.clone()
    }

    fn neighbors(&self) -> &'static str {
        self.alloc.neighbors.as_str()
    }

    fn levels(&self) -> Vec<String> {
        self.alloc.levels.iter().map(|l| l.name.clone()).collect()
    }

    fn level(&self, name: &str) -> PyResult<RawComposition> {
        quick(|| {
            let l = self.alloc.level(name)?;
            self.alloc.level_composition(l)
        })
        .map(RawComposition::new)
    }

    fn overall(&self) -> PyResult<RawComposition> {
        quick(|| self.alloc.composition()).map(RawComposition::new)
    }

    fn rho(&self) -> PyResult<String> {
        quick(|| Fallible::Ok(self.alloc.total_rho().to_string()))
    }
}

/// ε of the Bureau's zCDP conversion ρ + 2√(ρ log 1/δ) (Bun–Steinke), certified enclosure.
#[pyfunction]
fn zcdp_bs(rho: &str, delta: &str) -> PyResult<(String, String)> {
    let (r, d) = (q(rho, "rho")?, q(delta, "delta")?);
    check_rho_delta(&r, &d, rho, delta)?;
    quick(|| {
        let e = tightdp::zcdp::eps_bs(&r, &d, 256);
        Fallible::Ok((fmt_down(e.lo(), OUT), fmt_up(e.hi(), OUT)))
    })
}

/// ε of the optimal zCDP conversion (Canonne–Kamath–Steinke), certified enclosure.
#[pyfunction]
fn zcdp_cks(py: Python<'_>, rho: &str, delta: &str) -> PyResult<(String, String)> {
    let (r, d) = (q(rho, "rho")?, q(delta, "delta")?);
    check_rho_delta(&r, &d, rho, delta)?;
    run(py, move || {
        let (e, _) = tightdp::zcdp::eps_cks(&r, &d, 256);
        Fallible::Ok((fmt_down(e.lo(), OUT), fmt_up(e.hi(), OUT)))
    })
}

fn check_rho_delta(r: &Rational, d: &Rational, rho: &str, delta: &str) -> PyResult<()> {
    if *r <= 0 {
        return Err(raise("InputError", format!("rho must be positive, got {rho}")));
    }
    if !(*d > 0 && *d < 1) {
        return Err(raise("InputError", format!("delta must be in (0, 1), got {delta}")));
    }
    Ok(())
}

/// A production certificate of allocation files (as `tightdp certify --allocation …`): rows of fields.
#[pyfunction]
fn certify(py: Python<'_>, paths: Vec<String>, delta: &str) -> PyResult<Vec<Vec<(String, String)>>> {
    let d = q(delta, "delta")?;
    if !(d > 0 && d < 1) {
        return Err(raise("InputError", format!("delta must be in (0, 1), got {delta}")));
    }
    if paths.is_empty() {
        return Err(raise("InputError", "certify needs at least one allocation file".into()));
    }
    let allocs = paths.iter().map(|p| load_allocation(p)).collect::<PyResult<Vec<_>>>()?;
    let rows = run(py, move || tightdp::certificate(&allocs, &d, None, true, tightdp::CERT_WIDTH))?;
    Ok(rows.into_iter().map(|r| r.fields).collect())
}

/// DP-SGD calibration (as `tightdp calibrate --mech …sigma=?…` or `…n=?…`): the smallest noise multiplier
/// on the resolution (or the most steps) meeting the target — ε at δ, or an attack target — with its
/// certificate, as (column, value) pairs.
#[pyfunction]
#[pyo3(signature = (mech, neighbors, delta, target_epsilon, resolution, target_advantage=None, target_tpr=None, at_fpr=None))]
fn noise_multiplier(
    py: Python<'_>,
    mech: Vec<String>,
    neighbors: String,
    delta: Option<String>,
    target_epsilon: Option<String>,
    resolution: String,
    target_advantage: Option<String>,
    target_tpr: Option<String>,
    at_fpr: Option<String>,
) -> PyResult<Vec<(String, String)>> {
    let row = run(py, move || {
        tightdp::calibrate_sigma_record(&tightdp::SigmaArgs {
            mech: &mech,
            neighbors: Some(&neighbors),
            delta: delta.as_deref(),
            target_epsilon: target_epsilon.as_deref(),
            target_advantage: target_advantage.as_deref(),
            target_tpr: target_tpr.as_deref(),
            at_fpr: at_fpr.as_deref(),
            resolution: &resolution,
            format: tightdp::Format::Csv,
        })
    })?;
    Ok(row.fields)
}

/// Shuffled batches beside Poisson subsampling (as `tightdp shuffle`): the certified lower bound of one
/// explicit attack, the Poisson bracket and the verdict, as (column, value) pairs.
#[pyfunction]
#[pyo3(signature = (sigma, steps, epochs, delta, epsilon, neighbors, digits))]
#[allow(clippy::too_many_arguments)]
fn shuffle(
    py: Python<'_>,
    sigma: &str,
    steps: u64,
    epochs: u64,
    delta: Option<String>,
    epsilon: Option<String>,
    neighbors: String,
    digits: u32,
) -> PyResult<Vec<(String, String)>> {
    use tightdp::{shuffle_row, ShuffleQuery as Query};
    let s = q(sigma, "sigma")?;
    let query = match (delta, epsilon) {
        (Some(d), None) => Query::Epsilon(q(&d, "delta")?),
        (None, Some(e)) => Query::Delta(q(&e, "epsilon")?),
        _ => {
            return Err(raise(
                "InputError",
                "give exactly one of delta (a lower bound of epsilon) and epsilon (a lower bound of delta)".into(),
            ))
        }
    };
    let row = run(py, move || shuffle_row(&s, steps, epochs, &query, &neighbors, digits))?;
    Ok(row.fields)
}

#[pymodule]
fn _tightdp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_N", MAX_N)?;
    m.add_class::<RawComposition>()?;
    m.add_class::<RawAllocation>()?;
    m.add_function(wrap_pyfunction!(zcdp_bs, m)?)?;
    m.add_function(wrap_pyfunction!(zcdp_cks, m)?)?;
    m.add_function(wrap_pyfunction!(certify, m)?)?;
    m.add_function(wrap_pyfunction!(noise_multiplier, m)?)?;
    m.add_function(wrap_pyfunction!(shuffle, m)?)?;
    Ok(())
}
