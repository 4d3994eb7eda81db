//! Planning decays in double precision: the tilted engine's reach search (`account::engines::tilted`)
//! evaluates sup_{t ≥ t*} |M(c + it)| at a dozen t* for each tilt it tries, and for the subsampled Gaussian
//! and mixtures of Gaussians builds the layer cake of the tilted loss for each tilt. Both are planning: the
//! line's certified rest is computed afterwards from [`Decay::ln_upper`] in interval arithmetic. Here the
//! same formulas in f64 (`mgf.rs` module doc), at a tenth of the cost.

use super::mgf::{Decay, Mgf};
use super::mgf_quad::PIECES;
use super::mgf_strip::{plan_strips, PlanStrip};
use crate::noise::direction::Direction;
use rug::{Float, Rational};
use std::f64::consts::PI;

/// A decay bound for planning, in f64: [`Decay`]'s variants (converted once, [`PlanDecay::of`]), or the
/// subsampled Gaussian's and the mixture's layer cake computed in f64.
pub enum PlanDecay {
    Gaussian { eta: f64, c: f64 },
    Components { m_c: f64, parts: Vec<(f64, f64)> },
    Laplace { eps0: f64, c: f64 },
    BoundedRange { eps: f64, c: f64 },
    Strip(PlanStrip),
    Mix { t_lo: f64, t_hi: f64, cut: Box<PlanDecay>, plain: Box<PlanDecay> },
    Min(Vec<PlanDecay>),
}

/// The decay for the reach search: in f64 for the subsampled Gaussian and the mixtures, whose layer cake is
/// rebuilt at every tilt tried; the certified one otherwise.
pub fn planning_decay(m: &Mgf, dir: Direction, c: f64, m_c: f64) -> PlanDecay {
    let f64_parts = |parts: &[(Rational, Rational)]| -> Vec<(f64, f64)> { parts.iter().map(|(q, e)| (q.to_f64(), e.to_f64())).collect() };
    match m {
        Mgf::PoissonGaussian { q, eta } => sub_decay(&f64_parts(&[(q.clone(), eta.clone())]), dir, c, m_c),
        Mgf::Mixture { parts } => sub_decay(&f64_parts(parts), dir, c, m_c),
        Mgf::Branches { t_lo, t_hi, cut, plain } => {
            // `Mgf::decay`'s: each branch's own bound against its M(c), mixed, or their layer cakes together
            let own = |m: &Mgf| planning_decay(m, dir, c, m.ln_real_f64(dir, c).exp());
            let (d_cut, d_plain, t_lo, t_hi) = (own(cut), own(plain), t_lo.to_f64(), t_hi.to_f64());
            let mut parts: Vec<(f64, f64)> = d_cut.cake().iter().map(|(m, l)| (m * t_lo, *l)).collect();
            parts.extend(d_plain.cake().iter().map(|(m, l)| (m * (1.0 - t_hi), *l)));
            let mix = PlanDecay::Mix { t_lo, t_hi, cut: Box::new(d_cut), plain: Box::new(d_plain) };
            PlanDecay::Min(vec![PlanDecay::Components { m_c, parts }, mix])
        }
        _ => PlanDecay::of(&m.decay(dir, &Float::with_val(64, c), &Float::with_val(64, m_c), 64)),
    }
}

impl PlanDecay {
    /// The certified bound's quantities in f64, once (the reach search evaluates it a dozen times).
    pub fn of(d: &Decay) -> PlanDecay {
        match d {
            Decay::Gaussian { eta, c } => PlanDecay::Gaussian { eta: eta.to_f64(), c: c.to_f64() },
            Decay::Components { m_c_hi, parts } => {
                PlanDecay::Components { m_c: m_c_hi.to_f64(), parts: parts.iter().map(|(m, l)| (m.to_f64(), l.to_f64())).collect() }
            }
            Decay::Laplace { eps0, c } => PlanDecay::Laplace { eps0: eps0.to_f64(), c: c.to_f64() },
            Decay::BoundedRange { eps, c } => PlanDecay::BoundedRange { eps: eps.to_f64(), c: c.to_f64() },
            Decay::Strip(s) => PlanDecay::Strip(PlanStrip::of(s)),
            Decay::Mix { t_lo, t_hi, cut, plain } => PlanDecay::Mix {
                t_lo: t_lo.to_f64(),
                t_hi: t_hi.to_f64(),
                cut: Box::new(PlanDecay::of(cut)),
                plain: Box::new(PlanDecay::of(plain)),
            },
            Decay::Min(bounds) => PlanDecay::Min(bounds.iter().map(PlanDecay::of).collect()),
        }
    }

    /// The layer cake's uniform components (`Decay::cake`).
    fn cake(&self) -> &[(f64, f64)] {
        match self {
            PlanDecay::Components { parts, .. } => parts,
            PlanDecay::Min(bounds) => bounds.iter().map(PlanDecay::cake).find(|p| !p.is_empty()).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// ln sup_{t ≥ t*} |M(c + it)|, approximately: [`Decay::ln_upper`]'s formulas in f64 (−∞ where the
    /// components exhaust M(c)).
    pub fn ln_upper(&self, t: f64) -> f64 {
        match self {
            PlanDecay::Gaussian { eta, c } => eta * (c * c + c - t * t),
            PlanDecay::Components { m_c, parts } => components(*m_c, parts, t),
            PlanDecay::Laplace { eps0: e, c } => {
                let (c1, c2) = (1.0 + c, 1.0 + 2.0 * c);
                let ratio = ((c1 * c1 + t * t) / (c2 * c2 + 4.0 * t * t)).sqrt();
                ((c * e).exp() * ratio + 0.5 * (-c1 * e).exp()).ln()
            }
            PlanDecay::BoundedRange { eps: e, c } => {
                // e^{ε/2} cosh((c + ½)ε)/((e^ε − 1)|c + ½ + it|), in logarithms
                let w = c + 0.5;
                let ln_cosh = w * e + (-2.0 * w * e).exp().ln_1p() - std::f64::consts::LN_2;
                e / 2.0 - e.exp_m1().ln() + ln_cosh - 0.5 * (w * w + t * t).ln()
            }
            PlanDecay::Strip(s) => s.ln_upper(t),
            PlanDecay::Mix { t_lo, t_hi, cut, plain } => {
                let (a, b) = (cut.ln_upper(t), plain.ln_upper(t));
                let top = a.max(b);
                if top.is_infinite() {
                    return top;
                }
                let mix = |w: f64| w * (a - top).exp() + (1.0 - w) * (b - top).exp();
                top + mix(*t_lo).max(mix(*t_hi)).ln()
            }
            PlanDecay::Min(bounds) => bounds.iter().map(|b| b.ln_upper(t)).fold(f64::INFINITY, f64::min),
        }
    }
}

/// ln(M(c) − Σ_j m_jΛ_j (1 − sup_{s ≥ tΛ_j/2} |sinc s|)) (`mgf.rs` module doc).
fn components(m_c: f64, parts: &[(f64, f64)], t: f64) -> f64 {
    let gain: f64 = parts.iter().map(|(m_lambda, lambda)| m_lambda * (1.0 - sinc_sup(t * lambda * 0.5))).sum();
    let rest = m_c - gain;
    if rest <= 0.0 {
        f64::NEG_INFINITY
    } else {
        rest.ln()
    }
}

/// sup_{s ≥ s₀} |sin s / s| as bounded in `mgf.rs`: the alternating Taylor series up to π, 1/s₀ beyond.
fn sinc_sup(s0: f64) -> f64 {
    let s = s0.max(0.0);
    if s > PI {
        return 1.0 / s;
    }
    let s2 = s * s;
    (1.0 - s2 / 6.0 + s2 * s2 / 120.0).max(1.0 / PI)
}

/// `Sub::decay` of `mgf.rs` in f64: the smallest of the layer cake ([`sub_components`]) and the shifted
/// contour's bounds (`mgf_strip`).
pub fn sub_decay(parts: &[(f64, f64)], dir: Direction, c: f64, m_c: f64) -> PlanDecay {
    let kr = super::mgf::kappa_re(dir, c);
    PlanDecay::Min(
        std::iter::once(sub_components(parts, dir, c, m_c)).chain(plan_strips(parts, kr).into_iter().map(PlanDecay::Strip)).collect(),
    )
}

/// The layer cake of the tilted loss of a mixture of Gaussians r(x) = p₀ + Σᵢ pᵢ e^{μᵢx − ηᵢ} (components
/// `(pᵢ, ηᵢ)`; one component: the subsampled Gaussian) at tilt c, in f64: `Sub::decay` of `mgf.rs`.
pub fn sub_components(parts: &[(f64, f64)], dir: Direction, c: f64, m_c: f64) -> PlanDecay {
    let comps: Vec<(f64, f64, f64)> = parts.iter().map(|&(q, eta)| (q, (2.0 * eta).sqrt(), eta)).collect();
    let p0 = 1.0 - parts.iter().map(|(q, _)| q).sum::<f64>();
    let mu_max = comps.iter().map(|c| c.1).fold(0.0, f64::max);
    let kr = super::mgf::kappa_re(dir, c);
    let (x0, x1) = (-6.0, 6.0 + kr.max(0.0) * mu_max);
    let width = (x1 - x0) / PIECES as f64;
    // (ln r′, ln r, ln φ) at x, None where r′ or r is not positive in f64
    let ln_pos = |v: f64| (v > 0.0).then(|| v.ln());
    let at = |x: f64| {
        let u: Vec<f64> = comps.iter().map(|(q, mu, eta)| q * (mu * x - eta).exp()).collect();
        let slope: f64 = u.iter().zip(&comps).map(|(u, (_, mu, _))| mu * u).sum();
        (ln_pos(slope), ln_pos(p0 + u.iter().sum::<f64>()), -x * x / 2.0)
    };
    let ln_norm = 0.5 * (2.0 * PI).ln();
    let mut pieces = Vec::with_capacity(PIECES);
    let mut prev = at(x0);
    for j in 1..=PIECES {
        let next = at(x0 + width * j as f64);
        let ln_phi = prev.2.min(next.2);
        let piece = match (prev.1, next.1, next.0) {
            (Some(r0), Some(r1), Some(ln_slope)) => {
                let ln_r = if kr + 1.0 >= 0.0 { r0 } else { r1 };
                let lambda = r1 - r0;
                (lambda > 0.0).then(|| ((ln_phi + (kr + 1.0) * ln_r - ln_slope - ln_norm).exp(), lambda))
            }
            _ => None,
        };
        pieces.push(piece.unwrap_or((0.0, 0.0)));
        prev = next;
    }
    PlanDecay::Components { m_c, parts: layers(&pieces) }
}

/// `mgf_quad::layers` in f64: for each level y among the pieces' lower bounds, the longest run of pieces at
/// or above it, as (height × run, run).
fn layers(pieces: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut levels: Vec<f64> = pieces.iter().map(|(m, _)| *m).filter(|m| *m > 0.0).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let mut below = 0.0;
    levels
        .into_iter()
        .map(|y| {
            let (mut best, mut run) = (0.0f64, 0.0f64);
            for (m, l) in pieces {
                run = if *m >= y { run + l } else { 0.0 };
                best = best.max(run);
            }
            let out = ((y - below) * best, best);
            below = y;
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f64 planning decay follows the certified one (MNIST's subsampled Gaussian and a two-component
    /// mixture, both directions, tilts 0.5–8, t* from 0.1 to 10⁴): within 1e-9 in ln where the bound is
    /// finite, and −∞ together.
    #[test]
    fn planning_decays_follow_the_certified_ones() {
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let laws = [
            Mgf::PoissonGaussian { q: q("256/60000"), eta: Rational::from(1) / (Rational::from(2) * q("121/100")) },
            Mgf::Mixture { parts: vec![(q("1/10"), q("1/2")), (q("1/20"), q("2"))] },
        ];
        for m in &laws {
            let parts: Vec<(f64, f64)> = match m {
                Mgf::PoissonGaussian { q, eta } => vec![(q.to_f64(), eta.to_f64())],
                Mgf::Mixture { parts } => parts.iter().map(|(p, e)| (p.to_f64(), e.to_f64())).collect(),
                _ => unreachable!(),
            };
            for dir in [Direction::Remove, Direction::Add] {
                for c in [0.5, 2.0, 8.0] {
                    let m_c = m.ln_real_f64(dir, c).exp() * (1.0 + 1e-9);
                    let exact = m.decay(dir, &Float::with_val(64, c), &Float::with_val(64, m_c), 64);
                    let plan = sub_decay(&parts, dir, c, m_c);
                    for t in [0.1, 1.0, 10.0, 100.0, 1e4] {
                        let (a, b) = (exact.ln_upper(t).to_f64(), plan.ln_upper(t));
                        let f = PlanDecay::of(&exact).ln_upper(t);
                        assert!(a == b || (a - b).abs() < 1e-9 * a.abs().max(1.0), "{m:?} {dir:?} c = {c}, t = {t}: {a} vs {b}");
                        assert!(a == f || (a - f).abs() < 1e-9 * a.abs().max(1.0), "{m:?} {dir:?} c = {c}, t = {t}: {a} vs {f}");
                    }
                }
            }
        }
    }

    /// For a branch-revealing mixture (truncated Poisson sampling's pair, as in `mgf_tests`), the f64
    /// planning decay follows the certified one within 1e-6 in ln (both directions, tilts 0.75 and 3, t* from
    /// 1 to 10³): the branches' M(c) are read from their f64 planning sums there, from certified lines here.
    #[test]
    fn planning_follows_a_mixture_of_branches() {
        let m = crate::noise::mgf_check::truncated_pair();
        for dir in [Direction::Remove, Direction::Add] {
            for c in [0.75, 3.0] {
                let m_c = m.ln_real_f64(dir, c).exp() * (1.0 + 1e-9);
                let exact = PlanDecay::of(&m.decay(dir, &Float::with_val(64, c), &Float::with_val(64, m_c), 64));
                let plan = planning_decay(&m, dir, c, m_c);
                for t in [1.0, 10.0, 100.0, 1e3] {
                    let (a, b) = (exact.ln_upper(t), plan.ln_upper(t));
                    assert!((a - b).abs() < 1e-6 * a.abs().max(1.0), "{dir:?} c = {c}, t = {t}: {a} vs {b}");
                }
            }
        }
    }
}
