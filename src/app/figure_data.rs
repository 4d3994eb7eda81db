//! What the f-DP paper's figures show, computed: per-level profiles at the published and the Table 1
//! noise, the overall profiles, exact per-count errors. `report::figures` draws them.

use crate::budget::zcdp;
use crate::calibrate::{calibrate_factor, scale_groups};
use crate::census::Allocation;
use crate::model::GaussGroup;
use crate::noise::DiscreteGaussian;
use crate::num::{parse_rational, Arith};
use crate::pld::compose::{compose_groups_with, LatticeOpts};
use crate::pld::{compose_groups, PrivacyProfile};
use rug::{Float, Rational};

pub struct LevelData {
    pub name: String,
    pub rho: f64,
    pub prof: PrivacyProfile,
    pub reduced: PrivacyProfile,
    pub factor: f64,
    /// the level's σ² and the Table 1 reduced σ², when the level has one noise variance
    pub sigma2: Option<(Rational, Rational)>,
}

pub fn level_data(alloc: &Allocation, prec: u32) -> Result<Vec<LevelData>, String> {
    let d11 = parse_rational("1e-11").unwrap();
    let mut out = Vec::new();
    for l in &alloc.levels {
        let g = alloc.level_mechanisms(l);
        let prof = compose_groups(&g, prec)?;
        let target = zcdp::eps_bs(&l.rho, &d11, prec).mid();
        let br = calibrate_factor(&g, &d11, &target, 128, prec, 1e-12)?;
        let reduced = compose_groups(&scale_groups(&g, &br.lo), prec)?;
        let sigma2 = if g.len() == 1 { Some((g[0].sigma2.clone(), Rational::from(&g[0].sigma2 * &br.lo))) } else { None };
        out.push(LevelData { name: l.name.clone(), rho: l.rho.to_f64(), prof, reduced, factor: br.lo.to_f64(), sigma2 });
    }
    Ok(out)
}

/// Figure 13 of [SSW24]: the County level with every variance reduced by the
/// paper's 8.59% (factor 0.9141, as the caption states).
pub fn county_paper_reduced(alloc: &Allocation, prec: u32) -> Result<PrivacyProfile, String> {
    let l = alloc.level("County")?;
    Ok(compose_groups(&scale_groups(&alloc.level_mechanisms(l), &parse_rational("0.9141").unwrap()), prec)?)
}

/// Overall profiles: published noise, the paper's 8.59% uniform reduction, and the exact uniform factor.
pub struct OverallData {
    pub rho: f64,
    pub same: PrivacyProfile,
    pub paper: PrivacyProfile,
    pub exact_factor: (Rational, Rational),
    pub exact: PrivacyProfile,
}

pub fn overall_data(alloc: &Allocation, prec: u32) -> Result<OverallData, String> {
    let groups: Vec<GaussGroup> = alloc.all_mechanisms();
    let rho = alloc.total_rho();
    // the truncation depth of a 128-bit lattice at least, whatever the engine: prec = DD_PREC (the default
    // of `reproduce`) convolves in double-double with a rigorous bound, ~100× faster than 128-bit MPFR
    let opts = LatticeOpts { arith: Arith::from_legacy_prec(prec), depth: LatticeOpts::new(Arith::Mpfr(prec.max(128))).depth };
    let same = compose_groups_with(&groups, &opts)?;
    // The paper's §3.3: "variance proxy reduced by 8.59%".
    let paper_factor = parse_rational("0.9141").unwrap();
    let paper = compose_groups_with(&scale_groups(&groups, &paper_factor), &opts)?;
    let d10 = parse_rational("1e-10").unwrap();
    let target = zcdp::eps_bs(&rho, &d10, prec).mid().to_rational().unwrap();
    let br = crate::calibrate::calibrate_uniform(&groups, &d10, &target, false, prec, 1e-12)?;
    let exact = compose_groups_with(&scale_groups(&groups, &br.lo), &opts)?;
    Ok(OverallData { rho: rho.to_f64(), same, paper, exact_factor: (br.lo, br.hi), exact })
}

/// Exact expected squared and absolute error of a released count y + X and of max(0, y + X),
/// X ~ N_Z(0, σ²), for a true count y ≥ 0 ([SSW24, Figures 6] and 8:
/// computed from the pmf, not by simulation). Returns (MSE, MAE, MSE_pp, MAE_pp).
pub fn count_errors(sigma2: &Rational, y: i64) -> (f64, f64, f64, f64) {
    let dg = DiscreteGaussian { sigma2: sigma2.clone() };
    let prec = 128;
    let k = dg.radius(prec) as i64;
    let z = dg.normaliser_theta(prec).mid();
    let (mut mse, mut mae, mut msep, mut maep) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for x in -k..=k {
        let e = Rational::from(x * x) / (Rational::from(2u32) * sigma2.clone());
        let w = Float::with_val(prec, -Float::with_val(prec, &e)).exp();
        let p = (w / &z).to_f64();
        let xf = x as f64;
        mse += p * xf * xf;
        mae += p * xf.abs();
        let released = (y + x).max(0) - y;
        let rf = released as f64;
        msep += p * rf * rf;
        maep += p * rf.abs();
    }
    (mse, mae, msep, maep)
}
