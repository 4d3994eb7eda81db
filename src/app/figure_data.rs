//! What the f-DP paper's figures show, computed: per-level profiles at the published and the Table 1
//! noise, the overall profiles, the lattices of Figures 10 and 11, exact per-count errors. Every profile
//! comes from the accountant ([`Accountant::lattice_profile`]); `plots::figures` draws them.

use crate::account::{lattice_depth, Accountant, Options, Profile};
use crate::budget::zcdp;
use crate::calibrate::{calibrate_factor, scale_groups};
use crate::census::Allocation;
use crate::error::Fallible;
use crate::model::{Composition, GaussGroup};
use crate::noise::DiscreteGaussian;
use crate::num::{parse_rational, Arith};
use rug::{Float, Rational};

/// The profile of discrete Gaussian add/remove shifts on the lattice a bare precision names (53: f64,
/// 106: double-double, else MPFR bits), at that engine's default depth.
pub fn gauss_profile(groups: &[GaussGroup], prec: u32) -> Fallible<Profile> {
    Accountant::of_gauss(groups)?.lattice_profile(Arith::from_legacy_prec(prec), None)
}

pub struct LevelData {
    pub name: String,
    pub rho: f64,
    pub prof: Profile,
    pub reduced: Profile,
    pub factor: f64,
    /// the level's σ² and the Table 1 reduced σ², when the level has one noise variance
    pub sigma2: Option<(Rational, Rational)>,
}

pub fn level_data(alloc: &Allocation, prec: u32) -> Fallible<Vec<LevelData>> {
    let d11 = parse_rational("1e-11").expect("invariant: a decimal constant");
    let mut out = Vec::new();
    for l in &alloc.levels {
        let g = alloc.level_mechanisms(l);
        let prof = gauss_profile(&g, prec)?;
        let target = zcdp::eps_bs(&l.rho, &d11, prec).mid();
        let br = calibrate_factor(&g, &d11, &target, 128, prec, 1e-12)?;
        let reduced = gauss_profile(&scale_groups(&g, &br.lo), prec)?;
        let sigma2 = if g.len() == 1 { Some((g[0].sigma2.clone(), Rational::from(&g[0].sigma2 * &br.lo))) } else { None };
        out.push(LevelData { name: l.name.clone(), rho: l.rho.to_f64(), prof, reduced, factor: br.lo.to_f64(), sigma2 });
    }
    Ok(out)
}

/// Figure 13 of [SSW24]: the County level with every variance reduced by the
/// paper's 8.59% (factor 0.9141, as the caption states).
pub fn county_paper_reduced(alloc: &Allocation, prec: u32) -> Fallible<Profile> {
    let l = alloc.level("County")?;
    gauss_profile(&scale_groups(&alloc.level_mechanisms(l), &parse_rational("0.9141").expect("invariant: a decimal constant")), prec)
}

/// Overall profiles: published noise, the paper's 8.59% uniform reduction, and the exact uniform factor.
pub struct OverallData {
    pub rho: f64,
    pub same: Profile,
    pub paper: Profile,
    pub exact_factor: (Rational, Rational),
    pub exact: Profile,
}

pub fn overall_data(alloc: &Allocation, prec: u32) -> Fallible<OverallData> {
    let groups: Vec<GaussGroup> = alloc.all_mechanisms();
    let rho = alloc.total_rho();
    // the truncation depth of a 128-bit lattice at least, whatever the engine: prec = 128 (double-double, the default
    // of `reproduce`) convolves in double-double with a rigorous bound, ~100× faster than 128-bit MPFR
    let (arith, depth) = (Arith::from_legacy_prec(prec), Some(lattice_depth(Arith::Mpfr(prec.max(128)))));
    let profile = |g: &[GaussGroup]| -> Fallible<Profile> { Accountant::of_gauss(g)?.lattice_profile(arith, depth) };
    let same = profile(&groups)?;
    // The paper's §3.3: "variance proxy reduced by 8.59%".
    let paper_factor = parse_rational("0.9141").expect("invariant: a decimal constant");
    let paper = profile(&scale_groups(&groups, &paper_factor))?;
    let d10 = parse_rational("1e-10").expect("invariant: a decimal constant");
    let target = zcdp::eps_bs(&rho, &d10, prec).mid().to_rational().expect("invariant: a finite epsilon");
    let br = crate::calibrate::calibrate_uniform(&groups, &d10, &target, false, prec, 1e-12)?;
    let exact = profile(&scale_groups(&groups, &br.lo))?;
    Ok(OverallData { rho: rho.to_f64(), same, paper, exact_factor: (br.lo, br.hi), exact })
}

/// Figure 11 (the ACS 5-year comparison): n = 1890 queries of N_Z(0, σ²) composed in 30 blocks of 63 on
/// the certified f64 lattice, truncated deep enough to resolve the second term e^ε·P[…] of δ(ε) up to
/// `eps_top` (δ(ε) = first − e^ε·second: the second term must be resolved below 2^-(ε log2 e + 160)).
pub fn acs_1890_profile(sigma2: &Rational, eps_top: f64) -> Fallible<Profile> {
    let block = Composition::gaussian(sigma2.clone(), 63, 1)?;
    let blocks: Vec<Composition> = (0..30).map(|_| block.clone()).collect();
    let depth = lattice_depth(Arith::F64) + (eps_top * std::f64::consts::LOG2_E).ceil() as u32;
    Accountant::of_blocks(&blocks, Options::default())?.lattice_profile(Arith::F64, Some(depth))
}

/// Figure 10 (Theorem A.11, the local CLT): the exact pmf of S_n = X₁ + … + X_n, X_i ~ N_Z(0, σ²), at
/// y = −span..=span — its midpoints in f64 (128-bit law) — and the residual |P[S_n = y] − ϕ(y/B_n)/B_n|
/// as log10, computed in 512-bit MPFR (the residual is far below f64 resolution of the masses: the exact
/// pmf is certified to ~1e-150 there), B_n² = nσ².
pub struct LocalClt {
    pub bn: f64,
    pub span: i64,
    pub pmf: Vec<(i64, f64)>,
    pub log10_residual: Vec<(i64, f64)>,
}

pub fn local_clt(sigma2: &Rational, n: u32) -> Fallible<LocalClt> {
    let dist = crate::account::analysis::noise_sum(sigma2, n, 128)?;
    let bn = (sigma2.to_f64() * n as f64).sqrt();
    let span = (5.0 * bn).ceil() as i64;
    let pmf = (-span..=span).map(|y| (y, dist.pmf(y).mid().to_f64())).collect();
    let hp = 512;
    let dist_hp = crate::account::analysis::noise_sum(sigma2, n, hp)?;
    let bn2 = Float::with_val(hp, sigma2 * Rational::from(n));
    let norm = Float::with_val(hp, Float::with_val(hp, rug::float::Constant::Pi) * 2u32 * &bn2).sqrt();
    let log10_residual = (-span..=span)
        .map(|y| {
            let phi = Float::with_val(hp, -Float::with_val(hp, y * y) / Float::with_val(hp, &bn2 * 2u32)).exp() / &norm;
            let r = Float::with_val(hp, dist_hp.pmf(y).mid() - phi).abs();
            (y, r.to_f64().max(1e-300).log10())
        })
        .collect();
    Ok(LocalClt { bn, span, pmf, log10_residual })
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
