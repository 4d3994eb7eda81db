//! Truncated Poisson sampling of the Gaussian mechanism (dp_accounting's `TruncatedSubsampledGaussianDpEvent`;
//! jax_privacy's `truncated_dpsgd_event`): each of N records enters the batch with probability q, and a batch
//! of more than B records is cut down to B at random before the sum of clipped contributions (sensitivity 1)
//! gets N(0, σ²) noise.
//!
//! The pair accounted is dp_accounting's (`from_truncated_subsampled_gaussian_mechanism`, after [TPS25]), a
//! branch-revealing mixture: with t = P[Bin(N − 1, q) ≥ B] (the batch is truncated given the
//! record is sampled) the truncated branch, the replace-one pair of the Gaussian of standard deviation σ/2 on
//! a Poisson sample with probability q′ = P[Bin(N, q) > B]·B/(tN); otherwise the plain branch, the Poisson-
//! subsampled Gaussian under the neighbour relation asked. A branch-revealing mixture of two pairs is the
//! pair on the disjoint union, so its loss law is the mixture of the branches' loss laws:
//!
//!   A[L ≥ ℓ] = t A₂[L₂ ≥ ℓ] + (1 − t) A₁[L₁ ≥ ℓ], likewise for B.
//!
//! t and q′ are binomial tails, enclosed in interval arithmetic (the probabilities by their ratio recurrence
//! from (1 − q)^n, the rest of a tail past its mode bounded by a geometric series). The masses are mixed with
//! the enclosure of t, so they hold the true ones; q′ is rounded up to a rational, which can only weaken the
//! guarantee: the pair at a smaller q′ is the pair at a larger one post-processed (keep the output with
//! probability q′_small/q′_large, else replace it by fresh noise N(0, σ²/4), the same map under both data
//! sets). Results are certified bounds of the mechanism (trust `certified-bound`): the pair is an upper bound
//! by that analysis, and the bracket is certified for the pair.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::{Float, Rational};
use std::sync::Arc;

/// Precision of the binomial tails.
const TAIL_PREC: u32 = 256;
/// The largest expected batch q·N handled (the binomial sums run over a few of its standard deviations).
const MAX_EXPECTED_BATCH: f64 = 1e8;

/// The Gaussian mechanism on a truncated Poisson sample (module doc).
#[derive(Clone, Debug)]
pub struct TruncatedPoissonGaussian {
    sigma2: Rational,
    q: Rational,
    batch: u64,
    records: u64,
    /// P[Bin(N − 1, q) ≥ B], enclosed
    t: Interval,
    /// q′ rounded up
    q_prime: Rational,
    /// the plain branch (the Poisson-subsampled Gaussian under the relation) and the truncated one
    plain: Arc<dyn LossLaw>,
    cut: Arc<dyn LossLaw>,
}

impl TruncatedPoissonGaussian {
    /// σ² the noise variance (sensitivity 1), q the sampling probability, B the largest batch, N the records.
    pub fn new(sigma2: Rational, q: Rational, batch: u64, records: u64) -> Fallible<TruncatedPoissonGaussian> {
        if !(q > 0 && q < 1) {
            return crate::fallible!(Input, "the sampling probability must be in (0, 1), got {}", crate::num::format::fmt_rational(&q));
        }
        if batch == 0 || records == 0 {
            return crate::fallible!(Input, "the largest batch and the number of records must be positive");
        }
        if q.to_f64() * records as f64 > MAX_EXPECTED_BATCH {
            return crate::fallible!(
                Resource,
                "an expected batch of more than {MAX_EXPECTED_BATCH:e} records is beyond the binomial sums here"
            );
        }
        let t = binomial_tail(records - 1, &q, batch, TAIL_PREC);
        // q′ = P[Bin(N, q) > B]·B/(tN), rounded up (module doc); 1 at most
        let above = binomial_tail(records, &q, batch + 1, TAIL_PREC);
        let qp = above.mul_rational(&Rational::from((batch, records))).div(&t);
        let q_prime = match (*t.lo() > 0).then(|| qp.hi().to_rational()).flatten() {
            Some(x) if x < 1 => x,
            _ => Rational::from(1),
        };
        TruncatedPoissonGaussian::with_tails(sigma2, q, batch, records, t, q_prime)
    }

    /// The law with its binomial tails t and q′ given (they do not depend on the noise).
    fn with_tails(
        sigma2: Rational,
        q: Rational,
        batch: u64,
        records: u64,
        t: Interval,
        q_prime: Rational,
    ) -> Fallible<TruncatedPoissonGaussian> {
        let g: Arc<dyn LossLaw> = Arc::new(crate::noise::gauss::Gaussian::new(sigma2.clone(), Rational::from(1))?);
        let plain: Arc<dyn LossLaw> = Arc::new(crate::noise::subsample::PoissonSampled::new(g, q.clone())?);
        let fr = crate::num::format::fmt_rational;
        let spec = format!("gauss:sigma2={},mu=1,q={}", fr(&(sigma2.clone() / 4u32)), fr(&q_prime));
        let eta = Rational::from(2) / sigma2.clone();
        let cut: Arc<dyn LossLaw> = Arc::new(crate::noise::poisson_replace::PoissonReplaceGaussian::new(eta, q_prime.clone(), spec)?);
        Ok(TruncatedPoissonGaussian { sigma2, q, batch, records, t, q_prime, plain, cut })
    }

    /// From `--mech truncgauss:sigma=S,prob=Q,batch=B,records=N` (or `sigma2=`).
    pub fn law_from_params(p: &mut crate::noise::params::Params) -> Fallible<Arc<dyn LossLaw>> {
        let sigma2 = p.variance("sigma (the noise multiplier)")?;
        let q = p.positive("prob")?;
        let count =
            |p: &mut crate::noise::params::Params, key: &str| -> Fallible<u64> {
                let v = p.take(key).ok_or_else(|| crate::err!(Input, "mechanism '{}': missing {key}", p.spec()))?;
                v.trim().parse::<u64>().ok().filter(|x| (1..=1u64 << 50).contains(x)).ok_or_else(|| {
                    crate::err!(Input, "mechanism '{}': {key} must be a whole number between 1 and 2^50, got '{v}'", p.spec())
                })
            };
        let batch = count(p, "batch")?;
        let records = count(p, "records")?;
        let law = TruncatedPoissonGaussian::new(sigma2, q, batch, records).map_err(|e| e.context(format!("mechanism '{}'", p.spec())))?;
        Ok(Arc::new(law))
    }

    /// The mixture of the two branches' masses (t on the truncated one).
    fn mix(&self, cut: &Interval, plain: &Interval) -> Interval {
        let t = &self.t;
        t.mul(cut).add(&Interval::one(t.prec()).sub(t).mul(plain))
    }
}

impl LossLaw for TruncatedPoissonGaussian {
    fn spec(&self) -> String {
        let fr = crate::num::format::fmt_rational;
        format!("truncgauss:sigma2={},prob={},batch={},records={}", fr(&self.sigma2), fr(&self.q), self.batch, self.records)
    }

    fn symmetric(&self) -> bool {
        self.plain.symmetric()
    }

    fn split(&self, dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let a = self.cut.split(Direction::Remove, l, prec)?;
        let b = self.plain.split(dir, l, prec)?;
        Ok(Split {
            a_below: self.mix(&a.a_below, &b.a_below),
            a_above: self.mix(&a.a_above, &b.a_above),
            b_below: self.mix(&a.b_below, &b.b_below),
            b_above: self.mix(&a.b_above, &b.b_above),
        })
    }

    fn infinite(&self, dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        let (a1, b1) = self.cut.infinite(Direction::Remove, prec)?;
        let (a2, b2) = self.plain.infinite(dir, prec)?;
        Ok((self.mix(&a1, &a2), self.mix(&b1, &b2)))
    }

    fn range(&self, dir: Direction) -> LossRange {
        // the truncated branch's losses reach ±∞ continuously: so do the mixture's
        let (c, p) = (self.cut.range(Direction::Remove), self.plain.range(dir));
        let pick = |x: End, y: End, low: bool| match (&x, &y) {
            (End::Open, _) | (_, End::Open) => End::Open,
            _ if (x.to_f64(-1.0) < y.to_f64(-1.0)) == low => x,
            _ => y,
        };
        LossRange { lo: pick(c.lo, p.lo, true), hi: pick(c.hi, p.hi, false) }
    }

    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64 {
        // planning: the farther of the two branches' quantiles at their shares of the mass
        let t = self.t.to_f64().clamp(1e-300, 1.0);
        let a = self.cut.quantile(Direction::Remove, ln_p - t.ln(), upper);
        let b = self.plain.quantile(dir, ln_p - (1.0 - t).max(1e-300).ln(), upper);
        if upper {
            a.max(b)
        } else {
            a.min(b)
        }
    }

    /// Under replace-one the plain branch is the subsampled Gaussian's replace pair (dp_accounting's
    /// `REPLACE_ONE`); the truncated branch is a replace pair under both relations.
    fn under(&self, neighbors: Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        if neighbors != Neighbors::Replace || self.plain.symmetric() {
            return None;
        }
        let plain = match self.plain.under(Neighbors::Replace)? {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(Arc::new(TruncatedPoissonGaussian { plain, ..self.clone() })))
    }

    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        self.plain.shifts(neighbors)
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        let (t, q_prime) = (self.t.clone(), self.q_prime.clone());
        let law =
            TruncatedPoissonGaussian::with_tails(self.sigma2.clone() * c.clone(), self.q.clone(), self.batch, self.records, t, q_prime);
        let replace = self.plain.symmetric();
        Some(law.and_then(|l| match replace {
            true => l.under(Neighbors::Replace).unwrap_or_else(|| Ok(Arc::new(l.clone()))),
            false => Ok(Arc::new(l) as Arc<dyn LossLaw>),
        }))
    }

    /// The mixture of the branches' moment generating functions (`Mgf::Branches`), t enclosed by its
    /// 256-bit ends.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        let (cut, plain) = (self.cut.mgf()?, self.plain.mgf()?);
        let (t_lo, t_hi) = (self.t.lo().to_rational()?, self.t.hi().to_rational()?);
        Some(crate::noise::mgf::Mgf::Branches { t_lo, t_hi, cut: Box::new(cut), plain: Box::new(plain) })
    }

    fn is_bound(&self) -> bool {
        true
    }
}

/// P[Bin(n, q) ≥ k], enclosed at `prec` bits: the probabilities p_j by p_{j+1} = p_j (n − j)/(j + 1) · q/(1 − q)
/// from p₀ = (1 − q)^n; the terms from k on summed until, past the mode (ratio below 1 and falling), the rest
/// Σ_{i ≥ j} p_i ≤ p_j/(1 − r_j) is below 2^−prec of the sum. q ≥ 1 gives 1 (for k ≤ n).
pub fn binomial_tail(n: u64, q: &Rational, k: u64, prec: u32) -> Interval {
    let p = prec;
    if k == 0 {
        return Interval::one(p);
    }
    if k > n {
        return Interval::zero(p);
    }
    if *q >= 1 {
        return Interval::one(p);
    }
    let one = Interval::one(p);
    // 1 − q and the odds exactly in rationals before rounding: q within 2^−prec of 1 would round 1 − q's
    // enclosure to one holding 0
    let one_minus = Rational::from(1) - q;
    let odds = Interval::from_rational(&(q.clone() / one_minus.clone()), p);
    let mut pj = Interval::from_rational(&one_minus, p).pow_u64(n);
    let ratio = |j: u64| Interval::from_rational(&Rational::from((n - j, j + 1)), p).mul(&odds);
    for j in 0..k {
        pj = pj.mul(&ratio(j));
    }
    // pj = p_k now
    let mut sum = Interval::zero(p);
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32)));
    let mut j = k;
    loop {
        sum = sum.add(&pj);
        if j == n {
            return sum;
        }
        let r = ratio(j);
        pj = pj.mul(&r);
        j += 1;
        // past the mode the ratios fall: the rest from j on is at most p_j/(1 − r_j)
        let rj = ratio(j.min(n - 1));
        if *rj.hi() < 1 {
            let rest = pj.div(&one.sub(&rj));
            if *rest.hi() <= Float::with_val(p, sum.lo() * &tiny) {
                let hi = Interval::new(sum.lo().clone(), sum.add(&rest).hi().clone());
                return hi;
            }
        }
    }
}

#[cfg(test)]
mod tests;
