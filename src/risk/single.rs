//! One level (KR §3.1), several levels with a target known to be unique (KR S1.1), and sequential
//! releases (KR S5.8). Every value is a certified [`Interval`].
//!
//! Model: the adversary knows m = x_{1,−t}; prior P[X₁ = m+1] = p, P[X₁ = m] = 1 − p; the release is
//! X₁* = X₁ + η, η ~ DG(0, 1/(2ρ)) with pmf e^{−ρη²}/Z(ρ), Z(ρ) = Σ_k e^{−ρk²}. The truth is x₁ = m+1.

use crate::error::Fallible;
use crate::fallible;
use crate::noise::DiscreteGaussian;
use crate::num::Interval;
use crate::risk::{check_count, check_p, check_rho};
use rug::float::Round;
use rug::{Float, Rational};

/// KR's DG(0, 1/(2ρ)) as a [`DiscreteGaussian`] (σ² = 1/(2ρ)).
pub fn kr_noise(rho: &Rational) -> DiscreteGaussian {
    DiscreteGaussian::new(Rational::from(rho.recip_ref()) / 2u32).expect("invariant: rho > 0")
}

fn q(v: &Rational, prec: u32) -> Interval {
    Interval::from_rational(v, prec)
}

/// Single-level setting: prior p, known count m, noise parameter ρ.
#[derive(Clone, Debug)]
pub struct SingleLevel {
    pub p: Rational,
    pub m: i64,
    pub rho: Rational,
}

/// The Bayes decision (3.5) with the tie rule: Target = decide m+1; Other = decide m.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Target,
    Other,
    /// exact tie P = 1/2 (decided as m by the tie rule)
    Tie,
}

impl SingleLevel {
    pub fn new(p: Rational, m: i64, rho: Rational) -> Fallible<Self> {
        check_p(&p)?;
        check_rho(&rho, "rho")?;
        check_count(m, "m", true)?;
        Ok(SingleLevel { p, m, rho })
    }

    /// (1 − p)/p.
    pub fn odds_against(&self) -> Rational {
        (1 - self.p.clone()) / self.p.clone()
    }

    /// P[X₁* = x* | X₁ = x] = e^{−ρ(x*−x)²}/Z(ρ) (KR eq. 2.1).
    pub fn likelihood(&self, xstar: i64, x: i64, prec: u32) -> Interval {
        let p = prec + 16;
        let z = kr_noise(&self.rho).normaliser_theta(p);
        let d = Rational::from(xstar - x);
        let e = -(Rational::from(&d * &d) * &self.rho);
        crate::noise::dgauss::round_to(&q(&e, p).exp().div(&z), prec)
    }

    /// (3.1) P[X₁ = m+1 | X₁* = x*] = 1 / (1 + ((1−p)/p)·e^{−ρ(2(x*−m)−1)}).
    pub fn posterior(&self, xstar: i64, prec: u32) -> Interval {
        let p = prec + 16;
        self.posterior_of(&self.lr_factor(xstar, p), &q(&self.odds_against(), p), prec)
    }

    /// e^{−ρ(2(x* − m) − 1)}, the likelihood ratio of X₁ = m against m+1, enclosed at `p`.
    fn lr_factor(&self, xstar: i64, p: u32) -> Interval {
        let j = xstar - self.m;
        q(&-(Rational::from(2 * j - 1) * &self.rho), p).exp()
    }

    /// (3.1) from the likelihood ratio `lr` ([`Self::lr_factor`]) and the odds (1 − p)/p, both enclosed
    /// at prec + 16.
    fn posterior_of(&self, lr: &Interval, odds: &Interval, prec: u32) -> Interval {
        let t = lr.mul(odds);
        let one = Interval::one(prec + 16);
        crate::noise::dgauss::round_to(&one.div(&one.add(&t)), prec)
    }

    /// (3.2) R′(x*) = posterior / p.
    pub fn risk_prime(&self, xstar: i64, prec: u32) -> Interval {
        let p = prec + 16;
        crate::noise::dgauss::round_to(&self.posterior(xstar, p).div(&q(&self.p, p)), prec)
    }

    /// (3.3) M = Σ_{x*} P[X₁ = m+1 | x*] P[X₁* = x* | X₁ = m+1], certified: the terms with |η| > K are
    /// in [0, P[|η| > K]] because the posterior lies in [0, 1].
    pub fn marginal(&self, prec: u32) -> Interval {
        self.marginal_with(&MarginalTerms::new(self.m, &self.rho, prec))
    }

    /// [`Self::marginal`] from its prior-free terms (computed for this m, ρ and precision; otherwise
    /// afresh).
    pub fn marginal_with(&self, terms: &MarginalTerms) -> Interval {
        let prec = terms.prec;
        if terms.m != self.m || terms.rho != self.rho {
            return self.marginal(prec);
        }
        let p = prec + 16;
        let odds = q(&self.odds_against(), p + 16);
        let mut s = Interval::zero(p);
        for (w, lr) in &terms.weights {
            s = s.add(&self.posterior_of(lr, &odds, p).mul(w));
        }
        let m = s.div(&terms.z);
        let m = Interval::new(
            m.lo().clone(),
            Float::with_val_round(p, m.hi() + Float::with_val_round(p, terms.tail.hi() * 2u32, Round::Up).0, Round::Up).0,
        );
        crate::noise::dgauss::round_to(&m, prec)
    }

    /// (3.4) R = M / p.
    pub fn risk(&self, prec: u32) -> Interval {
        let p = prec + 16;
        crate::noise::dgauss::round_to(&self.marginal(p).div(&q(&self.p, p)), prec)
    }

    /// Bayes decision (3.5) at x*: decide m+1 iff ρ(2(x*−m)−1) > ln((1−p)/p). Never a tie for rational
    /// p and ρ: for p = 1/2 the right side is 0 and ρ(2j−1) ≠ 0; otherwise ln((1−p)/p) is transcendental
    /// (Lindemann) and cannot equal a rational. The comparison is certified (precision raised until
    /// the enclosure of the logarithm separates).
    pub fn decide(&self, xstar: i64) -> Decision {
        let lhs = Rational::from(2 * (xstar - self.m) - 1) * &self.rho;
        let oa = self.odds_against();
        if oa == 1 {
            return if lhs > 0 { Decision::Target } else { Decision::Other };
        }
        let mut prec = 128;
        loop {
            let l = q(&oa, prec).ln();
            let r = q(&lhs, prec);
            if r.lo() > l.hi() {
                return Decision::Target;
            }
            if r.hi() < l.lo() {
                return Decision::Other;
            }
            prec *= 2;
            assert!(prec <= 1 << 20, "decision not separated: impossible for rational inputs");
        }
    }

    /// x̃*: the smallest x* with decision m+1 (KR after eq. 3.6). The posterior is increasing in x*.
    pub fn threshold(&self) -> i64 {
        let lnq = self.odds_against().to_f64().ln();
        let guess = (lnq / self.rho.to_f64() + 1.0) / 2.0;
        let mut j = if guess.is_finite() { guess.floor() as i64 + self.m } else { self.m };
        while self.decide(j) == Decision::Target {
            j -= 1;
        }
        while self.decide(j) != Decision::Target {
            j += 1;
        }
        j
    }

    /// (3.6) P[X̂₁ = m+1] = P[X₁* ≥ x̃* | X₁ = m+1] = P[η ≥ x̃* − m − 1], certified.
    pub fn prob_correct(&self, prec: u32) -> Interval {
        Self::prob_correct_many(&[self], prec).pop().expect("invariant: one model")
    }

    /// [`Self::prob_correct`] of models sharing ρ (e.g. the priors of Figure 3), the same intervals:
    /// the tails of one noise law at their thresholds.
    pub fn prob_correct_many(models: &[&SingleLevel], prec: u32) -> Vec<Interval> {
        let Some(first) = models.first() else { return Vec::new() };
        if models.iter().any(|s| s.rho != first.rho) {
            return models.iter().map(|s| s.prob_correct(prec)).collect();
        }
        let ts: Vec<Rational> = models.iter().map(|s| Rational::from(s.threshold() - s.m - 2)).collect(); // P[η > t] = P[η ≥ t+1]
        kr_noise(&first.rho).tails_gt(&ts, prec)
    }
}

/// The prior-free terms of the marginal posterior (3.3) at one (m, ρ, precision): the normaliser Z(ρ),
/// for η = −K..=K the noise weight e^{−ρη²} and the likelihood ratio at x* = m+1+η, and P[η > K]. A
/// sweep over priors (Figure 2) computes them once per ρ; [`SingleLevel::marginal_with`] does the rest
/// with the same operations as [`SingleLevel::marginal`].
pub struct MarginalTerms {
    m: i64,
    rho: Rational,
    prec: u32,
    z: Interval,
    /// (e^{−ρη²} at prec + 16, e^{−ρ(2η+1)} at prec + 32)
    weights: Vec<(Interval, Interval)>,
    tail: Interval,
}

impl MarginalTerms {
    pub fn new(m: i64, rho: &Rational, prec: u32) -> MarginalTerms {
        let p = prec + 16;
        let dg = kr_noise(rho);
        let z = dg.normaliser_theta(p);
        let k = dg.radius(prec) as i64;
        // the likelihood ratios through a model with any prior (they do not depend on it)
        let s = SingleLevel { p: Rational::from((1, 2)), m, rho: rho.clone() };
        let weights = (-k..=k).map(|eta| (q(&-(Rational::from(eta * eta) * rho), p).exp(), s.lr_factor(m + 1 + eta, p + 16))).collect();
        let tail = dg.tail_gt(&Rational::from(k), p); // P[η > K] = P[η < −K]
        MarginalTerms { m, rho: rho.clone(), prec, z, weights, tail }
    }
}

/// KR S1.1: target known to be unique at ℓ levels with parameters ρ₁..ρ_ℓ and releases x₁*..x_ℓ*:
/// P[X₁ = m+1 | x*] = 1/(1 + ((1−p)/p) e^{−Σᵢ ρᵢ(2(xᵢ*−m)−1)}), certified.
pub fn posterior_multi(p: &Rational, m: i64, rhos: &[Rational], xstars: &[i64], prec: u32) -> Fallible<Interval> {
    check_p(p)?;
    if rhos.len() != xstars.len() || rhos.is_empty() {
        return fallible!(Input, "need one released count per level");
    }
    let mut e = Rational::from(0);
    check_count(m, "m", true)?;
    for (r, x) in rhos.iter().zip(xstars) {
        check_rho(r, "rho")?;
        check_count(*x, "xstar", false)?;
        e -= Rational::from(2 * (x - m) - 1) * r;
    }
    let pp = prec + 16;
    let oa = (1 - p.clone()) / p.clone();
    let t = q(&e, pp).exp().mul(&q(&oa, pp));
    let one = Interval::one(pp);
    Ok(crate::noise::dgauss::round_to(&one.div(&one.add(&t)), prec))
}

/// KR S1.1 marginal posterior E[P[X₁ = m+1 | X*] | x₁ = m+1] for ℓ levels, as bounds [lo, hi] in f64
/// (a plotting/screening quantity). With ηᵢ the noises, the posterior is σ(c + Σρᵢ + 2W),
/// W = Σ ρᵢηᵢ, c = ln(p/(1−p)). Small products of supports are enumerated exactly; otherwise the law
/// of W is convolved on a grid of width h with every value rounded down (lower bound) and up (upper
/// bound) — σ is increasing, so the two runs bracket the exact value. Dropped tails (< 1e-17 each)
/// are added to the upper end.
pub fn marginal_multi_f64(p: f64, rhos: &[f64]) -> (f64, f64) {
    match marginal_multi_f64_prefixes(&[p], rhos)[0].last() {
        Some(b) => *b,
        None => {
            // no level: W = 0, the posterior is the prior σ(ln(p/(1 − p)))
            let v = 1.0 / (1.0 + (-(p / (1.0 - p)).ln()).exp());
            (v, v)
        }
    }
}

/// [`marginal_multi_f64`] for every prior of `ps` and every prefix of the levels:
/// `out[i][l − 1] = marginal_multi_f64(ps[i], &rhos[..l])`, the same values. The law of W over the
/// first l levels (enumerated or binned) is the one over l − 1 levels with one more level, and it does
/// not depend on the prior: each is built once, and only the final sums run per prior.
pub fn marginal_multi_f64_prefixes(ps: &[f64], rhos: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let tables: Vec<(i64, Vec<f64>)> = rhos.iter().map(|r| crate::risk::dg_pmf_f64(*r)).collect();
    let mut out = vec![Vec::with_capacity(rhos.len()); ps.len()];
    // the levels whose product of supports is small enough to enumerate W exactly
    let mut enumerated = 0;
    let mut size = 1.0f64;
    for (_, t) in &tables {
        size *= t.len() as f64;
        if size > 3.0e6 {
            break;
        }
        enumerated += 1;
    }
    let c_of = |p: f64, l: usize| (p / (1.0 - p)).ln() + rhos[..l].iter().sum::<f64>();
    let dropped = |l: usize| 1e-17 * l as f64;
    // exact enumeration of W
    let mut pts: Vec<(f64, f64)> = vec![(0.0, 1.0)];
    for (l, ((k, t), r)) in tables.iter().zip(rhos).take(enumerated).enumerate() {
        let mut next = Vec::with_capacity(pts.len() * t.len());
        for (w, pr) in &pts {
            for (i, pk) in t.iter().enumerate() {
                let eta = i as i64 - k;
                next.push((w + r * eta as f64, pr * pk));
            }
        }
        pts = next;
        for (o, &p) in out.iter_mut().zip(ps) {
            let c = c_of(p, l + 1);
            let v: f64 = pts.iter().map(|(w, pr)| pr * sig(c + 2.0 * w)).sum();
            o.push((v, v + dropped(l + 1)));
        }
    }
    if enumerated == rhos.len() {
        return out;
    }
    // the law of W convolved on a grid of width h, every value rounded down (lower bound) and up
    let h = 2e-5;
    let run = |up: bool| -> Vec<Vec<f64>> {
        // grid index i ↔ W = (i + off)·h; sums[l − 1 − enumerated][prior]
        let mut sums = Vec::new();
        let mut off: i64 = 0;
        let mut cur = vec![1.0f64];
        for (l, ((k, t), r)) in tables.iter().zip(rhos).enumerate() {
            let steps: Vec<i64> = (0..t.len())
                .map(|i| {
                    let v = r * (i as i64 - k) as f64 / h;
                    if up {
                        v.ceil() as i64
                    } else {
                        v.floor() as i64
                    }
                })
                .collect();
            let smin = *steps.iter().min().expect("invariant: at least one step");
            let smax = *steps.iter().max().expect("invariant: at least one step");
            let mut next = vec![0.0f64; cur.len() + (smax - smin) as usize];
            for (j, pk) in t.iter().enumerate() {
                let s = (steps[j] - smin) as usize;
                // next[i + s] += cur[i]·pk for every i (as slices: no bounds checks, vectorised)
                for (d, a) in next[s..s + cur.len()].iter_mut().zip(&cur) {
                    *d += a * pk;
                }
            }
            off += smin;
            cur = next;
            if l + 1 > enumerated {
                let c: Vec<f64> = ps.iter().map(|&p| c_of(p, l + 1)).collect();
                let sum = |c: f64| -> f64 { cur.iter().enumerate().map(|(i, pr)| pr * sig(c + 2.0 * (i as i64 + off) as f64 * h)).sum() };
                sums.push(c.iter().map(|&c| sum(c)).collect());
            }
        }
        sums
    };
    let (lo, hi) = (run(false), run(true));
    for (j, (lo, hi)) in lo.iter().zip(&hi).enumerate() {
        for (i, o) in out.iter_mut().enumerate() {
            o.push((lo[i], hi[i] + dropped(enumerated + j + 1)));
        }
    }
    out
}

/// One step of KR S5.8 (sequential releases).
#[derive(Clone, Debug)]
pub struct SequentialStep {
    pub rho: Rational,
    pub xstar: i64,
    /// P[X₁ = m+1 | x₁₁*, …, x₁,ᵢ₋₁*] — the updated prior
    pub prior: Interval,
    /// P[X₁ = m+1 | x₁₁*, …, x₁ᵢ*]
    pub posterior: Interval,
    /// R′(x₁ᵢ* | earlier) = posterior / prior (S5.2)
    pub conditional_risk: Interval,
    /// R′(x₁₁*, …, x₁ᵢ*) = Π conditional risks = posterior / p (S5.7–S5.8)
    pub cumulative_risk: Interval,
}

/// KR S5.8: the risk of sequential releases composes multiplicatively; each release updates the prior.
/// Computed as a chain of one-level posteriors (3.1) with the updated prior; the final posterior equals
/// the S1.1 posterior with all releases at once (checked in the tests).
pub fn sequential(p: &Rational, m: i64, releases: &[(Rational, i64)], prec: u32) -> Fallible<Vec<SequentialStep>> {
    check_p(p)?;
    if releases.is_empty() {
        return fallible!(Input, "no releases");
    }
    let pp = prec + 32;
    let mut prior = q(p, pp);
    let mut cum = Interval::one(pp);
    let mut out = Vec::new();
    let one = Interval::one(pp);
    check_count(m, "m", true)?;
    for (rho, x) in releases {
        check_rho(rho, "rho")?;
        check_count(*x, "xstar", false)?;
        // posterior = prior·L1 / (prior·L1 + (1−prior)·L0), L1/L0 = e^{ρ(2(x−m)−1)}
        let lr = q(&(Rational::from(2 * (x - m) - 1) * rho), pp).exp();
        let num = prior.mul(&lr);
        let other = one.sub(&prior);
        // num/(num + other) is increasing in num and decreasing in other: combine ends
        let post = Interval::new(
            Float::with_val_round(pp, num.lo() / Float::with_val_round(pp, num.lo() + other.hi(), Round::Up).0, Round::Down).0,
            Float::with_val_round(pp, num.hi() / Float::with_val_round(pp, num.hi() + other.lo(), Round::Down).0, Round::Up).0,
        );
        let cr = post.div(&prior);
        cum = cum.mul(&cr);
        out.push(SequentialStep {
            rho: rho.clone(),
            xstar: *x,
            prior: crate::noise::dgauss::round_to(&prior, prec),
            posterior: crate::noise::dgauss::round_to(&post, prec),
            conditional_risk: crate::noise::dgauss::round_to(&cr, prec),
            cumulative_risk: crate::noise::dgauss::round_to(&cum, prec),
        });
        prior = post;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    fn r(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    #[test]
    fn risk_single_posterior_is_bayes_rule() {
        let s = SingleLevel::new(r("1/5"), 3, r("0.3")).unwrap();
        for x in -3..8 {
            let l1 = s.likelihood(x, 4, 128);
            let l0 = s.likelihood(x, 3, 128);
            let p = q(&s.p, 128);
            let num = p.mul(&l1);
            let bayes = num.div(&num.add(&Interval::one(128).sub(&p).mul(&l0)));
            assert!(bayes.overlaps(&s.posterior(x, 128)));
        }
        // p = 1/2: P(correct) = (1 + 1/Z)/2 (the research notes' closed form)
        let h = SingleLevel::new(r("1/2"), 0, r("0.099")).unwrap();
        let z = kr_noise(&h.rho).normaliser_theta(128);
        let one = Interval::one(128);
        let closed = one.add(&one.div(&z)).mul(&q(&r("1/2"), 128));
        assert!(closed.overlaps(&h.prob_correct(128)));
        assert_eq!(h.threshold(), 1);
    }

    #[test]
    fn risk_sequential_equals_joint_posterior() {
        let p = r("1/10");
        let rel = vec![(r("0.0992"), 2), (r("0.2465"), 1), (r("0.05"), -1)];
        let steps = sequential(&p, 0, &rel, 128).unwrap();
        let joint = posterior_multi(&p, 0, &[r("0.0992"), r("0.2465"), r("0.05")], &[2, 1, -1], 128).unwrap();
        assert!(joint.overlaps(&steps[2].posterior));
        let ratio = joint.div(&q(&p, 128));
        assert!(ratio.overlaps(&steps[2].cumulative_risk));
    }

    #[test]
    fn risk_multi_marginal_one_level_matches_certified() {
        let s = SingleLevel::new(r("1/5"), 0, r("0.0992263542254750")).unwrap();
        let m = s.marginal(128).to_f64();
        let (lo, hi) = marginal_multi_f64(0.2, &[0.0992263542254750]);
        assert!(lo - 1e-12 <= m && m <= hi + 1e-12, "{lo} {m} {hi}");
        // binned path brackets the enumerated one
        let rh = [0.0992, 0.2465, 0.0504, 0.0514, 0.0505];
        let (a, b) = marginal_multi_f64(0.5, &rh);
        assert!(a <= b && b - a < 1e-3, "{a} {b}");
    }
}
