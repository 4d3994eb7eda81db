//! The discrete Gaussian N_Z(0, σ²) tabulated for the accuracy studies: its pmf (from the exact σ², in
//! MPFR, rounded to f64), the exact error expectations of a released count, and a fast sampler.
//!
//! **Exact expectations** ([SSW24, §3.2], Figure 6 and footnote 9; §3.4.1,
//! Figure 8): a true count y ≥ 0 is released as y + X, X ~ N_Z(0, σ²), or after the paper's non-negative
//! post-processing as max(0, y + X). Since max(0, y + X) − y = max(X, −y), the four errors of one count are
//! E X², E|X|, E max(X, −y)², E|max(X, −y)|, sums over the pmf. For y beyond the table's radius the
//! post-processing never binds (to the table's truncation) and the last two equal the first two.
//!
//! **Sampler.** Monte Carlo over 421,545 blocks × 9 counts × 1,000 trials is 3.8·10⁹ draws per noise level,
//! out of reach of the exact CKS sampler (`noise::sampler`, ~10² ns a draw). The simulation therefore
//! draws from an alias table (Walker/Vose) built in *integer* arithmetic: each pmf value is rounded to a
//! weight w_x ∈ ℕ with Σ w_x = 2⁶⁴ exactly, the table is built without rounding, and one 64-bit word
//! selects a column (top bits) and accepts or aliases (low bits) — so the sampled law is exactly
//! w_x / 2⁶⁴. Its total-variation distance to N_Z(0, σ²) (rounding of the pmf plus the mass beyond the
//! radius, which is below 2⁻⁶⁴ of the peak) is computed and reported (`tv_bound`, ~1e-17): over 10¹⁰ draws
//! the simulation coincides with one from the exact law except with probability below 10¹⁰ · tv_bound.
//! `--exact-sampler` uses the CKS sampler instead (same statistics, ~30× slower).

use crate::accuracy::DiscreteGaussian;
use crate::error::Fallible;
use crate::fallible;
use crate::noise::sampler::DiscreteGaussianSampler;
use rand_chacha::rand_core::RngCore;
use rug::{Float, Rational};

/// Bits of relative truncation of the table: weights beyond the radius are below 2^-64 of the peak.
const TABLE_BITS: u32 = 40; // DiscreteGaussian::radius adds 24 guard bits: 2^-64

/// N_Z(0, σ²) on [−R, R] with f64 probabilities and the derived constants.
#[derive(Clone, Debug)]
pub struct DgTable {
    pub radius: i64,
    /// p[x + R] = P[X = x] (f64 rounding of the MPFR value)
    pub pmf: Vec<f64>,
    /// Var X (= E X²) and E|X| from the table
    pub var: f64,
    pub mean_abs: f64,
    /// certified upper bound on P[|X| > R]
    pub tail: f64,
}

impl DgTable {
    pub fn new(sigma2: &Rational) -> Fallible<DgTable> {
        let dg = DiscreteGaussian::new(sigma2.clone())?;
        let radius = dg.radius(TABLE_BITS) as i64;
        if radius > (1 << 20) {
            return fallible!(Resource, "sigma2 = {} is too large for the tabulated sampler (radius {radius})", sigma2.to_f64());
        }
        let prec = 128;
        let z = dg.normaliser_theta(prec).mid();
        let two_s2 = Float::with_val(prec, sigma2 * Rational::from(2u32));
        let mut pmf = vec![0.0; (2 * radius + 1) as usize];
        for x in 0..=radius {
            let e = Float::with_val(prec, x * x) / &two_s2;
            let p = (Float::with_val(prec, -e).exp() / &z).to_f64();
            pmf[(radius + x) as usize] = p;
            pmf[(radius - x) as usize] = p;
        }
        let (mut var, mut mean_abs) = (0.0, 0.0);
        // smallest terms first
        for x in (1..=radius).rev() {
            let p = pmf[(radius + x) as usize];
            var += 2.0 * p * (x * x) as f64;
            mean_abs += 2.0 * p * x as f64;
        }
        let tail = dg.tail_gt(&Rational::from(radius), 64).hi().to_f64() * 2.0;
        Ok(DgTable { radius, pmf, var, mean_abs, tail })
    }

    pub fn p(&self, x: i64) -> f64 {
        if x.abs() > self.radius {
            0.0
        } else {
            self.pmf[(x + self.radius) as usize]
        }
    }

    /// Exact expected errors of one released count with true value y ≥ 0:
    /// [E X², E|X|, E max(X,−y)², E|max(X,−y)|].
    pub fn count_errors(&self, y: u64) -> [f64; 4] {
        if y as i64 > self.radius || y > (1 << 40) {
            return [self.var, self.mean_abs, self.var, self.mean_abs];
        }
        let y = y as i64;
        let (mut a, mut b) = (0.0, 0.0);
        // x < −y: released 0, error −y; x ≥ −y: error x. Smallest terms first on each side.
        let mut below = 0.0;
        for x in -self.radius..-y {
            below += self.p(x);
        }
        for x in (-y..=self.radius).rev() {
            if x == 0 {
                continue;
            }
            let p = self.p(x);
            a += p * (x * x) as f64;
            b += p * x.abs() as f64;
        }
        let yf = y as f64;
        [self.var, self.mean_abs, a + below * yf * yf, b + below * yf]
    }
}

/// A draw from a noise law (the integer alias table, or the exact CKS sampler).
pub trait Draw: Sync {
    fn draw<R: RngCore>(&self, rng: &mut R) -> i64;
}

/// Walker/Vose alias table in exact integer arithmetic (module doc).
#[derive(Clone, Debug)]
pub struct AliasDg {
    radius: i64,
    /// bits of the column index; the low 64 − `bits` bits of a word are the acceptance coin
    bits: u32,
    threshold: Vec<u64>,
    alias: Vec<u32>,
    /// total-variation distance of the sampled law w/2^64 to N_Z(0, σ²)
    pub tv_bound: f64,
}

impl AliasDg {
    pub fn new(t: &DgTable) -> AliasDg {
        let n = t.pmf.len();
        let bits = (n.next_power_of_two().max(2)).trailing_zeros();
        let m = 1usize << bits;
        let cap: u128 = 1u128 << (64 - bits);
        let total: u128 = 1u128 << 64;
        // integer weights summing to exactly 2^64
        let mut w: Vec<u128> = t.pmf.iter().map(|&p| (p * total as f64).round() as u128).collect();
        w.resize(m, 0);
        let s: u128 = w.iter().sum();
        let mode = t.radius as usize;
        if s <= total {
            w[mode] += total - s;
        } else {
            w[mode] -= s - total;
        }
        // TV to the target: rounding of each cell + the truncated tails
        let mut tv = t.tail;
        for (i, &p) in t.pmf.iter().enumerate() {
            tv += (w[i] as f64 / total as f64 - p).abs() / 2.0;
        }
        let mut threshold = vec![0u64; m];
        let mut alias: Vec<u32> = (0..m as u32).collect();
        let mut small: Vec<usize> = Vec::new();
        let mut large: Vec<usize> = Vec::new();
        for (i, &wi) in w.iter().enumerate() {
            if wi < cap {
                small.push(i)
            } else {
                large.push(i)
            }
        }
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            threshold[s] = w[s] as u64;
            alias[s] = l as u32;
            w[l] -= cap - w[s];
            if w[l] < cap {
                large.pop();
                small.push(l);
            }
        }
        // exact arithmetic: whatever remains holds exactly one column's capacity
        for i in large.into_iter().chain(small) {
            debug_assert_eq!(w[i], cap);
            threshold[i] = (cap - 1) as u64;
            alias[i] = i as u32;
        }
        AliasDg { radius: t.radius, bits, threshold, alias, tv_bound: tv }
    }

    /// The exact law of the sampler, P[X = x] = q[x + R] (the tests' check of the TV bound).
    #[cfg(test)]
    pub fn law(&self) -> Vec<f64> {
        let m = self.threshold.len();
        let cap = 1u128 << (64 - self.bits);
        let mut q = vec![0u128; m];
        for i in 0..m {
            // accept i when coin < threshold (or always for a full column, aliased to itself)
            let acc = if self.alias[i] as usize == i { cap } else { self.threshold[i] as u128 };
            q[i] += acc;
            q[self.alias[i] as usize] += cap - acc;
        }
        let n = (2 * self.radius + 1) as usize;
        q[..n].iter().map(|&v| v as f64 / (1u128 << 64) as f64).collect()
    }
}

impl Draw for AliasDg {
    #[inline]
    fn draw<R: RngCore>(&self, rng: &mut R) -> i64 {
        let r = rng.next_u64();
        let i = (r >> (64 - self.bits)) as usize;
        let coin = r & ((1u64 << (64 - self.bits)) - 1);
        let j = if coin < self.threshold[i] { i } else { self.alias[i] as usize };
        j as i64 - self.radius
    }
}

impl Draw for DiscreteGaussianSampler {
    fn draw<R: RngCore>(&self, rng: &mut R) -> i64 {
        self.sample(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::sampler::NoiseSource;

    #[test]
    fn table_moments_match_the_theta_series() {
        for s2 in ["5", "456.62", "1/3"] {
            let s2 = crate::num::parse_rational(s2).unwrap();
            let t = DgTable::new(&s2).unwrap();
            let v = DiscreteGaussian::new(s2.clone()).unwrap().variance_theta(128).mid().to_f64();
            assert!((t.var - v).abs() <= 1e-13 * v, "{} vs {v}", t.var);
            let total: f64 = t.pmf.iter().sum();
            assert!((total - 1.0).abs() < 1e-14);
            assert!(t.tail < 1e-17);
        }
    }

    /// max(X, −y) for y = 0 is the positive part: E max(X,0)² = Var/2, E max(X,0) = E|X|/2 (symmetry).
    #[test]
    fn count_errors_at_zero_and_far_from_zero() {
        let t = DgTable::new(&Rational::from(7)).unwrap();
        let e = t.count_errors(0);
        assert!((e[2] - t.var / 2.0).abs() < 1e-14 * t.var);
        assert!((e[3] - t.mean_abs / 2.0).abs() < 1e-14);
        let f = t.count_errors(1000);
        assert_eq!(f, [t.var, t.mean_abs, t.var, t.mean_abs]);
        // y = 1 by hand: Σ_x p(x) max(x, −1)² = Σ_{x ≥ −1} p x² + P[X < −1]
        let by_hand: f64 = (-t.radius..=t.radius).map(|x| t.p(x) * (x.max(-1) * x.max(-1)) as f64).sum();
        assert!((t.count_errors(1)[2] - by_hand).abs() < 1e-13);
    }

    #[test]
    fn alias_law_is_the_pmf_and_draws_follow_it() {
        let t = DgTable::new(&crate::num::parse_rational("456.62").unwrap()).unwrap();
        let a = AliasDg::new(&t);
        let q = a.law();
        let tv: f64 = q.iter().zip(&t.pmf).map(|(a, b)| (a - b).abs()).sum::<f64>() / 2.0;
        assert!(tv <= a.tv_bound + 1e-18 && a.tv_bound < 1e-15, "tv {tv}, bound {}", a.tv_bound);
        // 400k draws: mean ~ 0, variance ~ σ² within 5 standard errors; chi-square over 8 bins
        let mut src = NoiseSource::seeded(11);
        let n = 400_000;
        let (mut s1, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let x = a.draw(&mut src.rng) as f64;
            s1 += x;
            s2 += x * x;
        }
        let m = s1 / n as f64;
        let v = s2 / n as f64;
        assert!(m.abs() < 5.0 * (t.var / n as f64).sqrt(), "mean {m}");
        assert!((v - t.var).abs() < 5.0 * t.var * (2.0 / n as f64).sqrt(), "var {v}");
    }
}
