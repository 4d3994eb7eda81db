//! The computations behind `tightdp verify`: each `quantity` of data/published.csv, from its inputs.
//! Nothing here reads a printed value; every number comes from the library.

use crate::account::Profile;
use crate::app::figure_data::gauss_profile;
use crate::budget::zcdp;
use crate::calibrate::{calibrate_factor, calibrate_uniform, scale_groups};
use crate::census::Allocation;
use crate::error::Fallible;
use crate::model::GaussGroup;
use crate::noise::DiscreteGaussian;
use crate::num::{parse_rational, Interval};
use crate::{err, fallible};
use rug::{Float, Rational};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Quantities implemented in this build.
pub const QUANTITIES: &[&str] = &[
    "sigma2_level",
    "rho_total",
    "rho_level",
    "rho_query",
    "eps_bureau",
    "eps_cks",
    "eps_exact_level",
    "eps_reduction_pct_level",
    "eps_reduction_pct_extreme",
    "sigma2_reduced_level",
    "sigma2_reduction_pct_level",
    "sigma2_reduction_pct_extreme",
    "uniform_reduction_pct",
    "overall_first_term",
    "variance_deficit",
    "clt_residual_sup",
    "clt_residual_part",
    "gauss_tail_exp",
    "fdp_boole_error",
    "fdp_tradeoff_boole_error",
    "kr_single_level",
    "kr_two_level",
    "kr_decisions",
    "safetab_dg_budget",
    "safetab_geom_budget",
    "safetab_re_accounting",
    "safetab_p_threshold",
    "moe_ratio_pct",
    "safetab_improvement_pct",
];

/// Quantities whose computation belongs to capabilities not in this build: reported as `pending`.
pub const PENDING: &[&str] = &[];

pub fn known(q: &str) -> bool {
    QUANTITIES.contains(&q) || PENDING.contains(&q) || crate::accuracy::published::handles(q)
}

pub struct Ctx {
    pub data: PathBuf,
    pub prec: u32,
    pub overall_prec: u32,
    allocs: Mutex<BTreeMap<String, Allocation>>,
    safetab_t2: Mutex<Option<Vec<crate::record::Record>>>,
    profiles: Mutex<BTreeMap<String, Profile>>,
    boole_errors: Mutex<BTreeMap<String, [f64; 4]>>,
}

/// A cache's lock (the caches hold finished values only: a panic elsewhere leaves them consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

type In = BTreeMap<String, String>;

fn get<'a>(m: &'a In, k: &str) -> Fallible<&'a str> {
    m.get(k).map(|s| s.as_str()).ok_or_else(|| err!(Input, "missing input '{k}'"))
}

/// A rational input, range-checked by its name: a zCDP ρ, an ε or a σ² must be positive, a δ or a
/// prior p must lie in (0, 1) (the formulas divide by them or take their logarithm).
fn rat_in(m: &In, k: &str) -> Fallible<Rational> {
    let v = parse_rational(get(m, k)?).map_err(|e| e.context(format!("input '{k}'")))?;
    let bad = match k {
        "rho" | "rho1" | "rho2" | "sigma2" | "eps" => v <= 0,
        "delta" | "p" => v <= 0 || v >= 1,
        _ => false,
    };
    if bad {
        let range = if matches!(k, "delta" | "p") { "in (0, 1)" } else { "positive" };
        return fallible!(Input, "input '{k}' must be {range}, got {}", get(m, k)?);
    }
    Ok(v)
}

/// σ² range of the variance-deficit rows: below it the theta series needs ~√(bits/(2π²σ²)) terms (σ² =
/// 1e-30 ran for hours), above it the deficit e^{−2π²σ²} leaves MPFR's exponent range (σ² = 1e300 hung).
const VARIANCE_DEFICIT_SIGMA2: (f64, f64) = (1e-3, 1e3);
/// σ² range and largest n of the CLT-residual rows (the n-fold law is built in 512-bit MPFR at cost
/// ~n²·K, K ~ √(700σ²) its radius: n = 1e8 aborted out of memory, σ² = 1e30 asked 872 PB).
const CLT_SIGMA2: (f64, f64) = (1e-3, 1e3);
const CLT_MAX_N: u32 = 1000;
const CLT_MAX_OPS: f64 = 5e7;

/// `sigma2` within the range a row's computation handles.
fn sigma2_in(m: &In, (lo, hi): (f64, f64)) -> Fallible<Rational> {
    let v = rat_in(m, "sigma2")?;
    if v < lo || v > hi {
        return fallible!(Input, "input 'sigma2' must be between {lo:e} and {hi:e} for this quantity, got {}", get(m, "sigma2")?);
    }
    Ok(v)
}

impl Ctx {
    pub fn new(data: &Path, prec: u32, overall_prec: u32) -> Ctx {
        Ctx {
            data: data.to_path_buf(),
            prec,
            overall_prec,
            allocs: Mutex::new(BTreeMap::new()),
            safetab_t2: Mutex::new(None),
            profiles: Mutex::new(BTreeMap::new()),
            boole_errors: Mutex::new(BTreeMap::new()),
        }
    }

    fn alloc(&self, name: &str) -> Fallible<Allocation> {
        if let Some(a) = lock(&self.allocs).get(name) {
            return Ok(a.clone());
        }
        let a = Allocation::from_path(&self.data.join("allocations").join(format!("{name}.toml")))?;
        lock(&self.allocs).insert(name.to_string(), a.clone());
        Ok(a)
    }

    fn level_groups(&self, m: &In) -> Fallible<(Allocation, Vec<GaussGroup>, Rational)> {
        let a = self.alloc(get(m, "alloc")?)?;
        let l = a.level(get(m, "level")?)?.clone();
        let g = a.level_mechanisms(&l);
        Ok((a, g, l.rho))
    }

    fn profile(&self, key: &str, groups: &[GaussGroup], prec: u32) -> Fallible<Profile> {
        let k = format!("{key}@{prec}");
        if let Some(p) = lock(&self.profiles).get(&k) {
            return Ok(p.clone());
        }
        let p = gauss_profile(groups, prec)?;
        lock(&self.profiles).insert(k, p.clone());
        Ok(p)
    }

    fn level_eps(&self, m: &In) -> Fallible<(Interval, Interval)> {
        let (_, g, rho) = self.level_groups(m)?;
        let delta = rat_in(m, "delta")?;
        let key = format!("{}|{}", get(m, "alloc")?, get(m, "level")?);
        let e = self.profile(&key, &g, self.prec)?.epsilon(&delta)?.interval();
        Ok((e, zcdp::eps_bs(&rho, &delta, self.prec)))
    }

    fn level_reduction(&self, m: &In) -> Fallible<(Rational, Rational)> {
        let (_, g, rho) = self.level_groups(m)?;
        let delta = rat_in(m, "delta")?;
        let target = zcdp::eps_bs(&rho, &delta, self.prec).mid();
        let br = calibrate_factor(&g, &delta, &target, 128, self.prec, 1e-12)?;
        Ok((g[0].sigma2.clone(), br.lo))
    }

    fn over_levels(&self, m: &In, f: &dyn Fn(&Ctx, &In) -> Fallible<Float>) -> Fallible<Float> {
        let a = self.alloc(get(m, "alloc")?)?;
        let which = get(m, "which")?;
        let mut best: Option<Float> = None;
        for l in &a.levels {
            let mut mm = m.clone();
            mm.insert("level".into(), l.name.clone());
            let v = f(self, &mm)?;
            best = Some(match best {
                None => v,
                Some(b) => {
                    if (which == "min") == (v < b) {
                        v
                    } else {
                        b
                    }
                }
            });
        }
        best.ok_or_else(|| err!(Input, "no levels"))
    }

    /// Recompute one quantity. `Ok(None)` means pending (capability not in this build). An input
    /// `scale=K` multiplies the result (e.g. 100 for a fraction printed as a percentage).
    pub fn compute(&self, q: &str, m: &In) -> Fallible<Option<Float>> {
        let v = self.compute_raw(q, m)?;
        match (v, m.get("scale")) {
            (Some(v), Some(k)) => Ok(Some(v * Float::with_val(self.prec, parse_rational(k).map_err(|e| e.context("scale"))?))),
            (v, _) => Ok(v),
        }
    }

    fn compute_raw(&self, q: &str, m: &In) -> Fallible<Option<Float>> {
        let p = self.prec;
        let v: Float = match q {
            "sigma2_level" => {
                let (_, g, _) = self.level_groups(m)?;
                if g.len() != 1 {
                    return fallible!(Input, "level has heterogeneous variances");
                }
                Float::with_val(p, &g[0].sigma2)
            }
            "rho_total" => Float::with_val(p, self.alloc(get(m, "alloc")?)?.total_rho()),
            "rho_level" => Float::with_val(p, self.level_groups(m)?.2),
            "rho_query" => {
                let a = self.alloc(get(m, "alloc")?)?;
                let l = a.level(get(m, "level")?)?;
                let qn = get(m, "query")?;
                let i = l.query_names.iter().position(|n| n == qn).ok_or_else(|| err!(Input, "level '{}' has no query '{qn}'", l.name))?;
                Float::with_val(p, &l.query_rho[i])
            }
            "kr_single_level" => kr_single(m, p)?,
            "kr_two_level" => kr_two(m, p)?,
            "kr_decisions" => kr_decisions(m, p)?,
            "safetab_dg_budget" => safetab_dg(m, p)?,
            "safetab_geom_budget" => safetab_geom(m, p)?,
            "safetab_re_accounting" => self.safetab_re(m)?,
            "safetab_improvement_pct" => self.safetab_improvement_pct(m)?,
            "safetab_p_threshold" => {
                use crate::tabulation::calib::suppression_threshold;
                let t = suppression_threshold(&rat_in(m, "rho")?, 9, &Rational::from((1, 10)), &rat_in(m, "p")?)?;
                Float::with_val(p, t)
            }
            "moe_ratio_pct" => {
                // MOE ∝ σ ∝ √(stability): 100 (1 − √(s_to/s_from)).
                let r = rat_in(m, "stability_to")? / rat_in(m, "stability_from")?;
                (Float::with_val(p, 1) - Float::with_val(p, r).sqrt()) * 100u32
            }
            "eps_bureau" => {
                let rho = if m.contains_key("rho") { rat_in(m, "rho")? } else { self.level_groups(m)?.2 };
                zcdp::eps_bs(&rho, &rat_in(m, "delta")?, p).mid()
            }
            "eps_cks" => zcdp::eps_cks(&rat_in(m, "rho")?, &rat_in(m, "delta")?, p).0.into_parts().1,
            "eps_exact_level" => self.level_eps(m)?.0.mid(),
            "eps_reduction_pct_level" => pct_reduction(self, m)?,
            "eps_reduction_pct_extreme" => self.over_levels(m, &pct_reduction)?,
            "sigma2_reduced_level" => {
                let (s2, c) = self.level_reduction(m)?;
                Float::with_val(p, s2 * c)
            }
            "sigma2_reduction_pct_level" => sigma2_pct(self, m)?,
            "sigma2_reduction_pct_extreme" => self.over_levels(m, &sigma2_pct)?,
            "uniform_reduction_pct" => self.uniform_reduction_pct(m)?,
            "overall_first_term" => self.overall_first_term(m)?,
            "variance_deficit" => DiscreteGaussian::new(sigma2_in(m, VARIANCE_DEFICIT_SIGMA2)?)?.variance_deficit(p).into_parts().1,
            "clt_residual_sup" => self.clt_residual_sup_of(m)?,
            "clt_residual_part" => self.clt_residual_part(m)?,
            "gauss_tail_exp" => {
                // e^{-z²/2}: the sub-Gaussian tail bound (A.2) at z
                let z = rat_in(m, "z")?;
                Float::with_val(p, -Rational::from(&z * &z) / 2u32).exp()
            }
            "fdp_boole_error" => self.fdp_boole_error(m)?,
            "fdp_tradeoff_boole_error" => fdp_tradeoff_boole_error(m)?,
            _ if PENDING.contains(&q) => return Ok(None),
            _ => return fallible!(Input, "unknown quantity '{q}'"),
        };
        Ok(Some(v))
    }

    /// RE §5's improvement of the discrete Gaussian over the geometric mechanism's RDP accounting, percent.
    fn safetab_improvement_pct(&self, m: &In) -> Fallible<Float> {
        let p = self.prec;
        // RE §5: "improvement … 3% for the analytical bound and 7% for the experimental bound":
        // 100 (1 − ε_DG/ε_geometric-RDP).
        let geo = self.safetab_re(
            &[("what".to_string(), "rdp".to_string())].into_iter().chain(m.get("s").map(|v| ("s".to_string(), v.clone()))).collect(),
        )?;
        let which = if get(m, "what")? == "analytic" { "zcdp_analytic" } else { "zcdp_grid" };
        let dg = self.safetab_re(&[("what".to_string(), which.to_string())].into_iter().collect())?;
        Ok((Float::with_val(p, 1) - Float::with_val(p, dg / geo)) * 100u32)
    }

    /// The uniform variance reduction (percent) at which the exact ε of the allocation matches the Bureau's.
    fn uniform_reduction_pct(&self, m: &In) -> Fallible<Float> {
        let p = self.prec;
        let a = self.alloc(get(m, "alloc")?)?;
        let groups = a.all_mechanisms();
        let rho = a.total_rho();
        let delta = rat_in(m, "delta")?;
        // ε at which to match: the Bureau's ε (exact), unless an `eps` input overrides it.
        let eps = if m.contains_key("eps") {
            rat_in(m, "eps")?
        } else {
            zcdp::eps_bs(&rho, &delta, p).mid().to_rational().expect("invariant: a finite epsilon")
        };
        let first = match get(m, "terms")? {
            "both" => false,
            // The paper's procedure (App. A.6): only the first term of (A.9) is matched to δ.
            "first" => true,
            other => return fallible!(Input, "terms must be both or first, got {other}"),
        };
        let br = calibrate_uniform(&groups, &delta, &eps, first, self.overall_prec, 1e-10)?;
        Ok(Float::with_val(p, 1 - br.hi) * 100u32)
    }

    /// The first term of (A.9) of the whole allocation with every variance scaled to a total ρ.
    fn overall_first_term(&self, m: &In) -> Fallible<Float> {
        let a = self.alloc(get(m, "alloc")?)?;
        let rho0 = a.total_rho();
        let rho = rat_in(m, "rho")?;
        let eps = rat_in(m, "eps")?;
        // σ_i² = n/(2 a_i ρ): a different ρ scales every variance by ρ0/ρ.
        let c = Rational::from(&rho0 / &rho);
        let groups = scale_groups(&a.all_mechanisms(), &c);
        Ok(gauss_profile(&groups, self.overall_prec)?
            .delta(&eps)?
            .first
            .ok_or_else(|| err!(Internal, "a lattice profile without its first term"))?
            .mid())
    }

    /// sup of the local-CLT residual r_{n,σ}, refused up front past CLT_MAX_OPS.
    fn clt_residual_sup_of(&self, m: &In) -> Fallible<Float> {
        let n: u32 = get(m, "n")?.parse().map_err(|_| err!(Input, "input 'n' must be an integer between 1 and {CLT_MAX_N}"))?;
        if !(1..=CLT_MAX_N).contains(&n) {
            return fallible!(Input, "input 'n' must be between 1 and {CLT_MAX_N} (the exact n-fold law is built term by term), got {n}");
        }
        let s2 = sigma2_in(m, CLT_SIGMA2)?;
        // the n-fold law's cost: n steps over a window of 2K + n entries, each a K-term sum
        let k = (1400.0 * s2.to_f64()).sqrt() + 2.0;
        let ops = n as f64 * (2.0 * k + n as f64) * k;
        if ops > CLT_MAX_OPS {
            return fallible!(
                Resource,
                "this CLT residual needs about {ops:.1e} 512-bit operations (limit {CLT_MAX_OPS:.0e}); use a smaller n or sigma2"
            );
        }
        clt_residual_sup(&s2, n)
    }

    /// App. C.1: the paper's bound of sup r_{n,σ} in its parts Ω₁, Ω₂ (= Ω₄ + Ω₅), Ω₃, or their total.
    fn clt_residual_part(&self, m: &In) -> Fallible<Float> {
        let p = self.prec;
        // App. C.1: the paper's bound of sup r_{n,σ} in its parts Ω₁, Ω₂ (= Ω₄ + Ω₅), Ω₃
        let n: u32 = get(m, "n")?.parse().map_err(|_| err!(Input, "n must be a positive integer"))?;
        if !(1..=CLT_MAX_N).contains(&n) {
            return fallible!(Input, "input 'n' must be between 1 and {CLT_MAX_N}, got {n}");
        }
        let r = crate::account::analysis::clt_residual_bound(n, &sigma2_in(m, CLT_SIGMA2)?, 256);
        let v = match get(m, "part")? {
            "omega1" => r.omega1,
            "omega2" => r.omega2,
            "omega3" => r.omega3,
            "total" => r.total,
            other => return fallible!(Input, "part must be omega1, omega2, omega3 or total, got {other}"),
        };
        Ok(Float::with_val(p, v))
    }
}

/// 100 (1 − ε_exact/ε_Bureau); with `round_eps=N` both ε are first rounded to N decimals (the way a
/// reader would compute it from printed two-decimal values).
fn pct_reduction(c: &Ctx, m: &In) -> Fallible<Float> {
    let (e, b) = c.level_eps(m)?;
    let (mut e, mut b) = (e.mid().to_f64(), b.mid().to_f64());
    if let Some(n) = m.get("round_eps") {
        let n: i32 = n.parse().map_err(|_| err!(Input, "round_eps must be an integer"))?;
        let s = 10f64.powi(n);
        e = (e * s).round() / s;
        b = (b * s).round() / s;
    }
    Ok(Float::with_val(c.prec, 100.0 * (1.0 - e / b)))
}

/// Kazan–Reiter single-level quantities (§3.1, eqs. 3.1–3.6) via src/risk.
fn kr_single(m: &In, prec: u32) -> Fallible<Float> {
    use crate::risk::single::SingleLevel;
    let p = rat_in(m, "p")?;
    let rho = rat_in(m, "rho")?;
    let s = SingleLevel::new(p, 0, rho)?;
    let x = |k: &str| -> Fallible<i64> { get(m, k)?.parse::<i64>().map_err(|_| err!(Input, "input '{k}' must be an integer")) };
    let v = match get(m, "what")? {
        "likelihood" => s.likelihood(x("xstar")?, x("x")?, prec),
        "posterior" => s.posterior(x("xstar")?, prec),
        "risk_prime" => s.risk_prime(x("xstar")?, prec),
        "marginal" => s.marginal(prec),
        "risk" => s.risk(prec),
        "p_correct" => s.prob_correct(prec),
        other => return fallible!(Input, "unknown kr_single_level what='{other}'"),
    };
    Ok(v.mid())
}

/// Kazan–Reiter two-level posterior (§3.2, Tables 7–8) on the Table 6 data, exact enumeration of the
/// model as written (`sampler=model`) or the exact stationary law of the paper's Gibbs sampler
/// (`sampler=paper`).
fn kr_two(m: &In, prec: u32) -> Fallible<Float> {
    use crate::risk::hier::{Prior2, Sampler};
    use crate::risk::paper::{table6_data, table6_model};
    let t = table6_model(Prior2::Unbounded);
    let d = table6_data();
    let post = match get(m, "sampler")? {
        "model" => t.posterior(&d, 8, prec),
        "paper" => t.gibbs_stationary(&d, Sampler::Paper, 8, prec)?,
        other => return fallible!(Input, "unknown sampler '{other}'"),
    };
    match get(m, "what")? {
        "p_x1" => Ok(post.p_target.mid()),
        "p_x2" => {
            let k: i64 = get(m, "k")?.parse().map_err(|_| err!(Input, "k must be an integer"))?;
            post.x2.iter().find(|(kk, _)| *kk == k).map(|(_, v)| v.mid()).ok_or_else(|| err!(Input, "no X2 = {k}"))
        }
        other => fallible!(Input, "unknown kr_two_level what='{other}'"),
    }
}

/// Kazan–Reiter §4.3 / S4 (Figures 4, 10, 11): the probability of a correct decision with the
/// hierarchy, and the mass where it turns a wrong decision right (`gain`) or a right one wrong
/// (`loss`), summed exactly over all the noisy data (`risk::decisions::prob_correct`, f64 screening
/// with exact tie detection). Model of the figures: p = 1/2, d = 27, Table 2 ρ₁, ρ₂; inputs `prior`
/// (unbounded | uniform:N | point:K), `procedure` (model = exact posterior of the model as written,
/// paper = the paper's Gibbs sampler's stationary law), truth `x1`, `x2` (default 1, 1).
fn kr_decisions(m: &In, prec: u32) -> Fallible<Float> {
    use crate::risk::decisions::{prob_correct, Procedure};
    use crate::risk::hier::{Prior2, Sampler, TwoLevel};
    use crate::risk::paper::{rho_block, rho_obg};
    let prior = Prior2::parse(get(m, "prior")?)?;
    let proc = match get(m, "procedure")? {
        "model" => Procedure::Exact,
        "paper" => Procedure::Gibbs(Sampler::Paper),
        other => return fallible!(Input, "unknown procedure '{other}' (model or paper)"),
    };
    let int = |k: &str| -> Fallible<i64> {
        m.get(k).map(|v| v.parse::<i64>().map_err(|_| err!(Input, "input '{k}' must be an integer"))).unwrap_or(Ok(1))
    };
    // ρ₂ of Figure 6's x axis (default: the Table 2 optimized-block-group value)
    let rho2 = if m.contains_key("rho2") { rat_in(m, "rho2")? } else { rho_obg() };
    let t = TwoLevel::new(Rational::from((1, 2)), 0, rho_block(), rho2, 27, prior)?;
    let c = prob_correct(&t, proc, int("x1")?, int("x2")?, None)?;
    let v = match get(m, "what")? {
        "p_correct" => c.p_correct,
        "gain" => c.gain,
        "loss" => c.loss,
        "net" => c.gain - c.loss,
        other => return fallible!(Input, "unknown kr_decisions what='{other}'"),
    };
    Ok(Float::with_val(prec, v))
}

/// The error terms of the paper's Fourier pipeline for the first term of (A.9) ([SSW24]
/// §A.6, App. D) on the Table 3 groups of the 2022-08-25 allocation at total ρ (`rho`) and ε (`eps`),
/// t_ε = (n/2)(ε/ρ − 1), L = 10³, window [t_ε L, 6 t_ε L], N = 10⁷ + 1 Boole points — evaluated by
/// `account::analysis::boole_error_terms`. `term`: `e0` (E₀⁽⁰⁾ + E₁⁽⁰⁾ + E₂⁽⁰⁾), `e0_2` (E₂⁽⁰⁾ alone), `e1`, `e2`,
/// `e3`, `total` (their sum).
impl Ctx {
    fn fdp_boole_error(&self, m: &In) -> Fallible<Float> {
        let rho = rat_in(m, "rho")?;
        let eps = rat_in(m, "eps")?;
        let t = Rational::from(5) * (Rational::from(&eps / &rho) - 1u32);
        if t <= 0 {
            return fallible!(Input, "the first term needs eps > rho (t_eps > 0)");
        }
        // held while computing: the rows of the same (ρ, ε) wait for the terms rather than compute them again
        let mut cache = lock(&self.boole_errors);
        let key = format!("{rho}|{eps}");
        let e = match cache.get(&key) {
            Some(e) => *e,
            None => {
                let e = crate::account::analysis::boole_error_terms(&rho, &t)?;
                cache.insert(key, e);
                e
            }
        };
        drop(cache);
        fdp_boole_term(m, &e)
    }
}

/// The total error bound of the paper's Fourier integral for the trade-off function ([SSW24, §A.7]) at
/// total ρ (`rho`): `term=alpha` over every ζ with ⌈ζL⌉ ≥ `edge`, `term=beta` over every ζ with
/// ⌈ζL − nL⌉ ≤ `edge` (`account::analysis::tradeoff_boole_error_terms`), E⁽⁰⁾ + E⁽¹⁾ + E⁽²⁾ + E⁽³⁾.
fn fdp_tradeoff_boole_error(m: &In) -> Fallible<Float> {
    let rho = rat_in(m, "rho")?;
    let edge: i64 = get(m, "edge")?.parse().map_err(|_| err!(Input, "edge must be an integer (lattice units)"))?;
    let alpha = match get(m, "term")? {
        "alpha" => true,
        "beta" => false,
        other => return fallible!(Input, "term must be alpha or beta, got {other}"),
    };
    let e = crate::account::analysis::tradeoff_boole_error_terms(&rho, alpha, edge)?;
    Ok(Float::with_val(128, crate::account::analysis::error_total(&e)))
}

fn fdp_boole_term(m: &In, e: &[f64; 4]) -> Fallible<Float> {
    // the Table 3 groups: k = 7
    let k = crate::account::analysis::table3_groups() as f64;
    let v = match get(m, "term")? {
        "e0" => e[0],
        // E₀⁽⁰⁾ = E₁⁽⁰⁾ = k e^{-12²/2}
        "e0_2" => e[0] - 2.0 * k * (-72.0f64).exp(),
        "e1" => e[1],
        "e2" => e[2],
        "e3" => e[3],
        "total" => e.iter().sum(),
        other => return fallible!(Input, "term must be e0, e0_2, e1, e2, e3 or total, got {other}"),
    };
    Ok(Float::with_val(128, v))
}

fn sigma2_pct(c: &Ctx, m: &In) -> Fallible<Float> {
    let (_, f) = c.level_reduction(m)?;
    Ok(Float::with_val(c.prec, 1 - f) * 100u32)
}

/// sup_y |P[S_n = y] − (1/B_n) ϕ(y/B_n)| over the lattice (Theorem A.11's r_{n,σ}, computed directly from
/// the exact pmf — the proof of Thm A.11 defines r_{n,σ}(y) = P[S_n = y] − ϕ(y)/B_n).
pub fn clt_residual_sup(sigma2: &Rational, n: u32) -> Fallible<Float> {
    // Precision high enough to resolve residuals down to ~1e-110 relative to masses of order 1.
    let prec = 512;
    let dist = crate::account::analysis::noise_sum(sigma2, n, prec)?;
    let bn2 = Float::with_val(prec, sigma2 * Rational::from(n));
    let bn = Float::with_val(prec, bn2.sqrt_ref());
    let two_pi = Float::with_val(prec, rug::float::Constant::Pi) * 2u32;
    let norm = Float::with_val(prec, two_pi.sqrt()) * &bn;
    let mut best = Float::with_val(prec, 0);
    let span = (12.0 * bn.to_f64()).ceil() as i64 + 2;
    for y in -span..=span {
        let z2 = Float::with_val(prec, y * y) / &bn2;
        let phi = Float::with_val(prec, -z2 / 2u32).exp() / &norm;
        let r = Float::with_val(prec, dist.pmf(y).mid() - phi).abs();
        if r > best {
            best = r;
        }
    }
    Ok(best)
}

fn moe_in(m: &In) -> Fallible<u32> {
    get(m, "moe")?.parse().map_err(|_| err!(Input, "moe must be a positive integer"))
}

/// SafeTab / SafeTab-P discrete Gaussian budgets from an MOE target ([HSM21]
/// eq. 37, safetab-p Table 7): level total ρ_i = s·ρ_base/(1−γ), Step 2 = s·ρ_base, ρ_base = 1.96²/(2 MOE²),
/// s = 9, γ = 0.1 — exact values; `rule=printed` applies the papers' printing rule (Step 2 = 0.9 × the
/// total *after* rounding it to 3 decimals).
fn safetab_dg(m: &In, p: u32) -> Fallible<Float> {
    use crate::tabulation::calib::{dg_budget_row, rho_base};
    let moe = moe_in(m)?;
    let row = dg_budget_row(moe, 9, &Rational::from((1, 10)));
    let printed_rule = m.get("rule").map(|r| r == "printed").unwrap_or(false);
    let bounded = m.get("bounded").map(|b| b == "1").unwrap_or(false);
    let v = match (get(m, "part")?, printed_rule) {
        ("total", false) => row.total_exact,
        ("total", true) => row.total_u,
        ("step2", false) => rho_base(moe) * Rational::from(9),
        ("step2", true) => row.step2_u,
        (other, _) => return fallible!(Input, "part must be total or step2, got {other}"),
    };
    // SafeTab-P Thm 2: bounded (replace) neighbours cost twice the budget.
    let v = if bounded { v * Rational::from(2) } else { v };
    Ok(Float::with_val(p, v))
}

/// SafeTab geometric budgets (eq. 38): ε_base = ln 20/(MOE+1), total 10 ε_base, Step 2 9 ε_base; with
/// `scale=rounded` the noise scale b = (MOE+1)/ln 20 is first rounded to 2 decimals (ε_base = 1/b), and
/// Step 2 = 0.9 × the printed (2-decimal) total.
fn safetab_geom(m: &In, p: u32) -> Fallible<Float> {
    use crate::tabulation::calib::{geometric_eps_base, geometric_scale_h1};
    let moe = moe_in(m)?;
    let rounded = m.get("noise_scale").map(|r| r == "rounded").unwrap_or(false);
    let base =
        if rounded { Float::with_val(p, Rational::from(geometric_scale_h1(moe)?.recip_ref())) } else { geometric_eps_base(moe, p).mid() };
    let total = Float::with_val(p, &base * 10u32);
    Ok(match get(m, "part")? {
        "total" => total,
        "step2" if rounded => {
            let t2 = Float::with_val(p, (Float::with_val(p, &total * 100u32)).round()) / 100u32;
            t2 * Float::with_val(p, 0.9f64.to_string().parse::<f64>().expect("invariant: a float literal"))
            // 0.9 × printed total
        }
        "step2" => Float::with_val(p, &base * 9u32),
        other => return fallible!(Input, "part must be total or step2, got {other}"),
    })
}

impl Ctx {
    /// SafeTab Table 2 (δ = 1e-10) from src/tabulation/safetab_re.rs (computed once): pure DP, RDP (eq. 39 with
    /// eq. 17, s = 9 or `s=10`), zCDP analytic and on the α grid.
    fn safetab_re(&self, m: &In) -> Fallible<Float> {
        // held while computing: the rows that need the table wait for it rather than compute it again
        let mut b = lock(&self.safetab_t2);
        if b.is_none() {
            *b = Some(crate::tabulation::safetab_re::table2_published(
                &parse_rational("1e-10").expect("invariant: a decimal constant"),
                128,
            )?);
        }
        let rows = b.as_ref().expect("invariant: filled just above");
        let idx = match (get(m, "what")?, m.get("s").map(|s| s.as_str())) {
            ("pure", _) => 0,
            ("rdp", Some("10")) => 2,
            ("rdp", _) => 1,
            ("rdp_exact", _) => 3,
            ("zcdp_analytic", _) => 4,
            ("zcdp_grid", _) => 5,
            (other, _) => return fallible!(Input, "unknown SafeTab accounting '{other}'"),
        };
        let v = rows[idx].get("value_lo").ok_or_else(|| err!(Input, "missing value"))?;
        Ok(Float::with_val(128, Float::parse(v).map_err(|e| err!(Input, "{e}"))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(s: &str) -> In {
        s.split(';').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn ctx() -> Ctx {
        Ctx::new(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data")), 128, 128)
    }

    fn val(q: &str, m: &str) -> f64 {
        ctx().compute(q, &inputs(m)).unwrap().unwrap().to_f64()
    }

    /// e^{-200} = 1.3838965267367376e-87 and e^{-72} = 5.380186160021138e-32 (independent values).
    #[test]
    fn recompute_gauss_tail_exp() {
        assert!((val("gauss_tail_exp", "z=20") / 1.3838965267367376e-87 - 1.0).abs() < 1e-14);
        assert!((val("gauss_tail_exp", "z=12") / 5.380186160021138e-32 - 1.0).abs() < 1e-14);
    }

    /// App. C.1's parts add up to the bound of Fact C.1 (< 2.6e-37), each part below the paper's stated bound.
    #[test]
    fn recompute_clt_residual_parts() {
        let part = |p: &str| val("clt_residual_part", &format!("n=10;sigma2=5;part={p}"));
        let (o1, o2, o3, t) = (part("omega1"), part("omega2"), part("omega3"), part("total"));
        assert!(((o1 + o2 + o3) / t - 1.0).abs() < 1e-12);
        assert!(o1 < 2.57e-37 && o2 < 2.1e-106 && o3 < 1.45e-110 && t < 2.6e-37, "{o1:e} {o2:e} {o3:e}");
        assert!(ctx().compute("clt_residual_part", &inputs("n=10;sigma2=5;part=omega9")).is_err());
    }

    /// The paper's E⁽⁰⁾ sum: its own printed parts 3.4e-29 + 14 × 5.4e-32 = 3.4756e-29 exceed the stated 3.41e-29,
    /// and so does the recomputed E⁽⁰⁾; E₂⁽⁰⁾ alone is within 3.4e-29. E⁽¹⁾'s union bound lies above the ν tails
    /// summed directly here (ν(X̄ > c) = Σ_{x > c} ϕ(x/B)/B), which exceed the printed 5.6e-29.
    #[test]
    fn recompute_fdp_boole_error_terms() {
        let c = ctx();
        let t = |term: &str| c.compute("fdp_boole_error", &inputs(&format!("rho=3.65;eps=21.97;term={term}"))).unwrap().unwrap().to_f64();
        let (e0, e02) = (t("e0"), t("e0_2"));
        assert!(e0 > 3.41e-29 && e02 <= 3.4e-29, "{e0:e} {e02:e}");
        // the paper's printed parts: 3.4e-29 + 14 × 5.4e-32 = 3.4756e-29 > 3.41e-29 as well
        let printed_parts: f64 = [3.4e-29, 14.0 * 5.4e-32].iter().sum();
        assert!(printed_parts > 3.41e-29);
        assert!(((e0 - e02) / (14.0 * (-72.0f64).exp()) - 1.0).abs() < 1e-9);
        // the ν tails of App. D.2 at ρ = 3.65, ε = 21.97: groups (a_i, n_i) of Table 3, σ_i² = 10/(2 a_i ρ)
        let groups: [(f64, f64); 7] =
            [(0.02, 10.0), (0.274, 10.0), (0.085, 10.0), (0.131, 20.0), (0.238, 10.0), (0.118, 10.0), (0.003, 10.0)];
        let tl: f64 = 5.0 * (21.97 / 3.65 - 1.0) * 1000.0;
        let mut nu = 0.0;
        for (a, n) in groups {
            let b2 = n * 10.0 / (2.0 * a * 3.65);
            let cut = 6.0 * tl / (7.0 * a * 1000.0);
            for x in (cut.floor() as i64 + 1)..(cut.floor() as i64 + 4000) {
                let xf = x as f64;
                nu += (-xf * xf / (2.0 * b2)).exp() / (2.0 * std::f64::consts::PI * b2).sqrt();
            }
        }
        let e1 = t("e1");
        assert!(nu > 5.6e-29 && nu < 5.9e-29 && e1 >= nu, "nu {nu:e} e1 {e1:e}");
        let (e2, e3, tot) = (t("e2"), t("e3"), t("total"));
        assert!(e2 < 1.3e-30 && e3 < 2.54e-24 && tot < 2.6e-24);
        assert!((tot - (e0 + e1 + e2 + e3)).abs() <= 1e-12 * tot);
        assert!(c.compute("fdp_boole_error", &inputs("rho=3.65;eps=3;term=e0")).is_err());
    }

    /// §A.7's bounds, the paper's terms over the windows of the trade-off function: α's 2.6e-24 holds for every
    /// ζ with ⌈ζL⌉ ≥ −10⁵ (E⁽³⁾ dominates, as in §A.6) and fails for the widest windows (⌈ζL⌉ near −U); β's
    /// 2.4e-23 holds with room. By the symmetry of ν, β's window [−U, e] is α's [−e, U] reflected: the same terms.
    #[test]
    fn recompute_fdp_tradeoff_boole_error() {
        let c = ctx();
        let t = |term: &str, edge: i64| {
            c.compute("fdp_tradeoff_boole_error", &inputs(&format!("rho=3.65;term={term};edge={edge}"))).unwrap().unwrap().to_f64()
        };
        let (a, b) = (t("alpha", -100_000), t("beta", 100_000));
        assert!(a < 2.6e-24 && a > 2.3e-24, "{a:e}");
        // (the two sums run over m in opposite orders: f64 rounding apart)
        assert!(b < 2.4e-23 && (a / b - 1.0).abs() < 1e-9, "{a:e} {b:e}");
        // measured: 2.537e-24 at -105000, 2.615e-24 at -110000, 4.63e-24 at -U
        assert!(t("alpha", -105_000) < 2.6e-24 && t("alpha", -110_000) > 2.6e-24 && t("alpha", -150_000) > 4.6e-24);
        // the threshold moves the bound only through the window: narrower windows, smaller terms
        assert!(t("alpha", 0) < a && t("alpha", 50_000) <= t("alpha", 0));
        assert!(c.compute("fdp_tradeoff_boole_error", &inputs("rho=3.65;term=alpha;edge=-200000")).is_err());
        assert!(c.compute("fdp_tradeoff_boole_error", &inputs("rho=3.65;term=gamma;edge=0")).is_err());
    }

    /// Figure 6's ρ₂: the input reaches the model (the Table 2 value reproduces the default; ρ₂ = 100 differs).
    #[test]
    fn recompute_kr_decisions_rho2() {
        let base = "prior=unbounded;procedure=model;what=p_correct;x2=1";
        let d = val("kr_decisions", base);
        let same = val("kr_decisions", &format!("{base};rho2=103534592/420045025"));
        let big = val("kr_decisions", &format!("{base};rho2=100"));
        assert_eq!(d, same);
        assert!((big - d).abs() > 1e-4, "{d} {big}");
    }

    /// KR Table 8, X₂ = 4: the exact values (model 3.9433%, paper's sampler 4.0357%, computed independently in
    /// the investigation) are more than 2.5 binomial standard deviations of a 10⁴-draw run below 4.55%.
    #[test]
    fn recompute_kr_table8_x2_4_is_monte_carlo() {
        let model = val("kr_two_level", "sampler=model;what=p_x2;k=4");
        let paper = val("kr_two_level", "sampler=paper;what=p_x2;k=4");
        assert!((model - 0.039433).abs() < 1e-6 && (paper - 0.040357).abs() < 1e-6, "{model} {paper}");
        for v in [model, paper] {
            assert!((0.0455 - v) / (v * (1.0 - v) / 1e4).sqrt() > 2.5);
        }
    }
}
