//! Certified distributions of integer-valued statistics: a window of interval masses plus a bound on
//! the mass outside the window.
//!
//! The privacy loss of any composition of discrete Gaussian mechanisms on integer queries is an
//! affine function of such a statistic (see `profile.rs`), so this is the lattice on which the
//! privacy-loss distribution lives.

use crate::err;
use crate::error::Fallible;
use crate::noise::dgauss::GUARD_BITS;
use crate::noise::gauss_terms::{gauss_tail_upper, radius_for_bits, GaussTable};
use crate::noise::DiscreteGaussian;
use crate::num::dd::DD;
use crate::num::Interval;
use rayon::prelude::*;
use rug::float::Round;
#[cfg(test)]
use rug::ops::Pow;
use rug::ops::{AddAssignRound, AssignRound};
use rug::{Float, Rational};

/// Distribution of an integer random variable V: for v in [min, min + len), P[V = v] ∈ [lo, hi];
/// the total mass outside the window is at most `outside`.
#[derive(Clone, Debug)]
pub struct LatticeDist {
    pub min: i64,
    pub lo: Vec<Float>,
    pub hi: Vec<Float>,
    pub outside: Float,
    pub prec: u32,
}

/// Tail sums of a lattice law: P[V ≥ m] and P[V ≤ m] enclosed for every integer m. Stored as MPFR
/// interval end points (the MPFR engine), or for the fixed-precision engines as double-double values with
/// one relative error bound (no MPFR copy of the window). For a law symmetric about 0 (every composition
/// of discrete Gaussians) the lower tail is read off the upper one, P[V ≤ m] = P[V ≥ −m], and not stored.
#[derive(Clone, Debug)]
pub struct Tails {
    min: i64,
    store: Store,
    outside: Float,
    prec: u32,
}

/// Tails computed on demand instead of stored (the lattice Fourier inversion, `fourier::lattice`): every
/// value certified. `window` is a range of m outside which each tail is below `outside` (used as the
/// search range); `hint` an uncertified guess of the segment where δ(ε) crosses δ, from which the
/// certified search starts.
pub trait TailOracle: Send + Sync + std::fmt::Debug {
    /// P[V ≥ m], certified ([0, 1] when it cannot be evaluated; the error is kept for `error`).
    fn ge(&self, m: i64) -> Interval;
    /// P[V ≤ m], certified (as `ge`).
    fn le(&self, m: i64) -> Interval;
    /// (min, max) of the search window.
    fn window(&self) -> (i64, i64);
    /// A guess of the segment k where δ(ε) = P[V ≥ k + 1] − e^{c + hk} P[V ≤ −D − k − 1] crosses `delta`.
    fn hint(&self, delta: &Rational, h: &Rational, c: &Rational, d: i64) -> Option<i64>;
    /// The first error met while evaluating (the accountant reports it instead of a wide bracket).
    fn error(&self) -> Option<crate::error::Error>;
    /// A guess of the largest m with P[V ≤ m] ≤ α (the trade-off search starts there; never a value).
    fn quantile_le(&self, _alpha: f64) -> Option<i64> {
        None
    }
}

#[derive(Clone, Debug)]
enum Store {
    /// `up_lo[i]` ≤ P[V ≥ min + i] ≤ `up_hi[i]` (sums of lower masses; of upper masses plus the outside
    /// mass); the same for P[V ≤ min + i] in `low_*`, empty when the law is symmetric
    Mpfr { up_lo: Vec<Float>, up_hi: Vec<Float>, low_lo: Vec<Float>, low_hi: Vec<Float> },
    /// P[V ≥ min + i] ∈ [up_i(1 − rel), up_i(1 + rel) + outside], symmetric laws only
    Dd { up: Vec<DD>, rel: Float },
    /// computed on demand
    Oracle(std::sync::Arc<dyn TailOracle>),
}

/// Sensitivity-1 discrete Laplace groups above this many shifts take the binomial closed form (below it
/// binary powering is as fast, and keeps the bits of the outputs written with it).
pub const DLAP_BINOMIAL_FROM: u64 = 64;

impl LatticeDist {
    pub fn max(&self) -> i64 {
        self.min + self.lo.len() as i64 - 1
    }

    pub fn len(&self) -> usize {
        self.lo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Certified P[V = v].
    pub fn pmf(&self, v: i64) -> Interval {
        if v < self.min || v > self.max() {
            return Interval::new(Float::with_val(self.prec, 0), self.outside.clone());
        }
        let i = (v - self.min) as usize;
        Interval::new(self.lo[i].clone(), self.hi[i].clone())
    }

    /// The law of S = X_1 + … + X_n for i.i.d. X_i ~ N_Z(0, σ²), built exactly from the residue-class
    /// structure of the lattice sum ([SSW24, eq. A.5]):
    ///
    /// P[S = y] = D_{y mod n} · exp(-y²/(2nσ²)) / Z^n,
    ///
    /// because Σx_i² = y²/n + Σ(x_i − y/n)² and the inner lattice sum depends on y only through y mod n.
    /// The n constants D_k are computed by the recursion W_m(k) = Σ_x w(x) W_{m−1}(k − x) over the number
    /// of summands m (w(x) = exp(-x²/(2σ²)), W_m(z) = D^{(m)}_{z mod m} exp(-z²/(2mσ²))), truncating the
    /// x-sum where the dropped weight is below 2^-(prec+GUARD_BITS) and adding a rigorous bound for it.
    /// The window is |y| ≤ M with the mass beyond bounded by the Gaussian tail of each residue class.
    pub fn iid_dgauss_sum(sigma2: &Rational, n: u32, prec: u32) -> LatticeDist {
        Self::iid_dgauss_sum_bits(sigma2, n, prec, prec + GUARD_BITS)
    }

    /// As [`iid_dgauss_sum`](Self::iid_dgauss_sum) with an explicit truncation level: the mass left
    /// outside the window is below about 2^-bits.
    pub fn iid_dgauss_sum_bits(sigma2: &Rational, n: u32, prec: u32, bits: u32) -> LatticeDist {
        assert!(n >= 1);
        assert!(*sigma2 > 0);
        let p = prec.max(64) + 32;
        let dg = DiscreteGaussian { sigma2: sigma2.clone() };
        let k = radius_for_bits(sigma2, bits);
        // Gaussian tables g_v(z) = exp(-z²/(2v)): one per variance v = mσ², built once and long enough for
        // both of its uses (the divisor of step m, the W_{m} of step m + 1); a table's entries do not depend
        // on its length, so sharing changes no bit
        let w = GaussTable::new(sigma2, k + 2, p); // w(x), x ≤ K, and g_1 of step m = 2
        let mut g_prev: Option<GaussTable> = None;
        let tail_w = gauss_tail_upper(sigma2, k as u64 + 1, p); // Σ_{x>K} w(x)
        let z = dg.normaliser_direct(p);

        // D^{(m)}_r for r in 0..m, as (lo, hi); start with m = 1: D = [1].
        let mut d_lo = vec![Float::with_val(p, 1)];
        let mut d_hi = vec![Float::with_val(p, 1)];
        // W_{m-1}(z) for z in [-K, m-1+K], rebuilt in place at every m
        let mut wl: Vec<Float> = Vec::with_capacity(2 * k + n as usize);
        let mut wh: Vec<Float> = Vec::with_capacity(2 * k + n as usize);
        // Upper bound on max_z W_m(z): W_m(z) ≤ Z^m (total unnormalised mass).
        for m in 2..=n {
            let prev = (m - 1) as i64;
            let v_m = sigma2 * Rational::from(m);
            // g_{m-1}(|z|) for |z| ≤ K + m (built at the previous step, or w for m = 2).
            let g = g_prev.as_ref().unwrap_or(&w);
            let wmax_prev = z.powu(m - 1).into_parts().1;
            let drop = Float::with_val_round(p, &tail_w * 2u32, Round::Up).0;
            let drop = Float::with_val_round(p, &drop * &wmax_prev, Round::Up).0;
            // g_m, long enough to serve as g_{(m+1)-1} at the next step
            let g_m = GaussTable::new(&v_m, k + m as usize + 2, p);
            // W_{m-1}(z) for z in [-K, m-1+K], computed once per m.
            let zmin = -(k as i64);
            let zlen = 2 * k + m as usize;
            while wl.len() < zlen {
                wl.push(Float::new(p));
                wh.push(Float::new(p));
            }
            for i in 0..zlen {
                let zz = zmin + i as i64;
                let cls = zz.rem_euclid(prev) as usize;
                let az = zz.unsigned_abs() as usize;
                wl[i].assign_round(&d_lo[cls] * &g.lo[az], Round::Down);
                wh[i].assign_round(&d_hi[cls] * &g.hi[az], Round::Up);
            }
            let mut nd_lo = Vec::with_capacity(m as usize);
            let mut nd_hi = Vec::with_capacity(m as usize);
            let mut tl = Float::new(p);
            let mut th = Float::new(p);
            let mut pl = Float::new(p);
            let mut ph = Float::new(p);
            // S_m is symmetric, so P[S_m = −r] = P[S_m = r] gives D_{m−r} = D_r (1 ≤ r < m): only
            // r ≤ m/2 is summed, the other half copied
            for r in 0..=(m / 2) as i64 {
                // Σ_x w(|x|) W(r − x) = w(0) W(r) + Σ_{x≥1} w(x) (W(r − x) + W(r + x))
                let c = (r - zmin) as usize;
                let mut s_lo = Float::with_val_round(p, &w.lo[0] * &wl[c], Round::Down).0;
                let mut s_hi = Float::with_val_round(p, &w.hi[0] * &wh[c], Round::Up).0;
                for x in 1..=k {
                    pl.assign_round(&wl[c - x] + &wl[c + x], Round::Down);
                    ph.assign_round(&wh[c - x] + &wh[c + x], Round::Up);
                    tl.assign_round(&w.lo[x] * &pl, Round::Down);
                    th.assign_round(&w.hi[x] * &ph, Round::Up);
                    s_lo.add_assign_round(&tl, Round::Down);
                    s_hi.add_assign_round(&th, Round::Up);
                }
                s_hi.add_assign_round(&drop, Round::Up);
                // D^{(m)}_r = W_m(r) / exp(-r²/(2mσ²))
                nd_lo.push(Float::with_val_round(p, &s_lo / &g_m.hi[r as usize], Round::Down).0);
                nd_hi.push(Float::with_val_round(p, &s_hi / &g_m.lo[r as usize], Round::Up).0);
            }
            for r in (m / 2 + 1) as usize..m as usize {
                nd_lo.push(nd_lo[m as usize - r].clone());
                nd_hi.push(nd_hi[m as usize - r].clone());
            }
            d_lo = nd_lo;
            d_hi = nd_hi;
            g_prev = Some(g_m);
        }

        Self::iid_window(&d_lo, &d_hi, sigma2, n, &z, prec, p, bits)
    }

    /// The law of S on its window |y| ≤ M from the residue constants D_k (`d_lo`, `d_hi`) of
    /// [`iid_dgauss_sum_bits`](Self::iid_dgauss_sum_bits), with the mass beyond bounded (Z the normaliser).
    #[allow(clippy::too_many_arguments)]
    fn iid_window(d_lo: &[Float], d_hi: &[Float], sigma2: &Rational, n: u32, z: &Interval, prec: u32, p: u32, bits: u32) -> LatticeDist {
        // Window |y| ≤ M for S.
        let v_n = sigma2 * Rational::from(n);
        let mm = radius_for_bits(&v_n, bits) + n as usize;
        let g = GaussTable::new(&v_n, mm + 1, p);
        let zn = z.powu(n);
        let mut lo = Vec::with_capacity(2 * mm + 1);
        let mut hi = Vec::with_capacity(2 * mm + 1);
        for y in -(mm as i64)..=(mm as i64) {
            let cls = y.rem_euclid(n as i64) as usize;
            let ay = y.unsigned_abs() as usize;
            let a = Float::with_val_round(p, &d_lo[cls] * &g.lo[ay], Round::Down).0;
            let b = Float::with_val_round(p, &d_hi[cls] * &g.hi[ay], Round::Up).0;
            lo.push(Float::with_val_round(prec, &a / zn.hi(), Round::Down).0);
            hi.push(Float::with_val_round(prec, &b / zn.lo(), Round::Up).0);
        }
        // Mass outside: 2 · max_k D_k · Σ_{y > M} exp(-y²/(2nσ²)) / Z^n.
        let mut dmax = d_hi[0].clone();
        for d in d_hi {
            if *d > dmax {
                dmax = d.clone();
            }
        }
        let t = gauss_tail_upper(&v_n, mm as u64 + 1, p);
        let out = Float::with_val_round(p, &t * &dmax, Round::Up).0;
        let out = Float::with_val_round(p, &out * 2u32, Round::Up).0;
        let out = Float::with_val_round(prec, &out / zn.lo(), Round::Up).0;
        LatticeDist { min: -(mm as i64), lo, hi, outside: out, prec }
    }

    /// The privacy-loss statistic of one discrete Laplace shift under the alternative: for noise
    /// X ~ DLap(b) and sensitivity μ the loss at output y = x + μ is (|y| − |y − μ|)/b = (2T − μ)/b with
    /// T = clamp(x + μ, 0, μ) ∈ {0, …, μ}: P[T = 0] = P[X ≤ −μ], P[T = j] = P[X = j − μ] (0 < j < μ),
    /// P[T = μ] = P[X ≥ 0]. The law of the sum of n such statistics, by binary powering of exact
    /// convolutions (outward rounding, no truncation: the support is {0, …, nμ}).
    /// Sensitivity 1: each shift's statistic is Bernoulli(q), q = P[X ≥ 0], so the sum of n is
    /// Binomial(n, q), its pmf by the recurrence P(k + 1) = P(k)·(n − k)/(k + 1)·q/(1 − q) from
    /// P(0) = (1 − q)^n in outward-rounded interval arithmetic: n steps instead of squarings of
    /// n-entry windows (n = 1e5 took minutes; ~n² work).
    fn dlap_binomial(d: &crate::noise::dlaplace::DiscreteLaplace, n: u64, prec: u32) -> Fallible<LatticeDist> {
        let p = prec + 32;
        let q = d.tail_ge(0, p);
        let q1 = d.cdf(-1, p);
        if *q1.lo() <= 0 {
            // P[X ≤ −1] = e^{−1/b}/(1 + e^{−1/b}) below MPFR's exponent range (b ≲ 1e-9): no ratio to
            // recur with (the powering would take hours at this n)
            return Err(err!(
                Declined,
                "discrete Laplace of scale {:.3e}: its tail P[X <= -1] underflows the working range",
                d.scale.to_f64()
            )
            .over_limits());
        }
        let r = q.div(&q1);
        let mut cur = q1.powu(n as u32);
        let mut lo = Vec::with_capacity(n as usize + 1);
        let mut hi = Vec::with_capacity(n as usize + 1);
        for k in 0..=n {
            lo.push(cur.lo().clone());
            hi.push(cur.hi().clone());
            if k < n {
                cur = cur.mul(&r).mul_rational(&Rational::from((n - k, k + 1)));
            }
            if k % 4096 == 4095 {
                crate::num::cancel::check()?;
            }
        }
        Ok(LatticeDist { min: 0, lo, hi, outside: Float::with_val(prec, 0), prec })
    }

    pub fn dlap_shift_sum(scale: &Rational, mu: u32, n: u64, prec: u32) -> Fallible<LatticeDist> {
        (mu as u64).checked_mul(n).filter(|&s| s < crate::pld::frame::MAX_WINDOW).ok_or_else(|| {
            err!(Declined, "{n} discrete Laplace shifts of sensitivity {mu} need a lattice of {} entries", (mu as f64) * (n as f64))
                .over_limits()
        })?;
        let d = crate::noise::dlaplace::DiscreteLaplace::new(scale.clone())?;
        if mu == 1 && n > DLAP_BINOMIAL_FROM {
            return Self::dlap_binomial(&d, n, prec);
        }
        Self::dlap_powering(&d, mu, n, prec)
    }

    /// The sum of n shift statistics by binary powering of the one-shift law on {0, …, μ}.
    fn dlap_powering(d: &crate::noise::dlaplace::DiscreteLaplace, mu: u32, n: u64, prec: u32) -> Fallible<LatticeDist> {
        let m = mu as i64;
        let law: Vec<Interval> = (0..=m)
            .map(|j| {
                if j == 0 {
                    d.cdf(-m, prec)
                } else if j == m {
                    d.tail_ge(0, prec)
                } else {
                    d.pmf(j - m, prec)
                }
            })
            .collect();
        let base = LatticeDist {
            min: 0,
            lo: law.iter().map(|i| i.lo().clone()).collect(),
            hi: law.iter().map(|i| i.hi().clone()).collect(),
            outside: Float::with_val(prec, 0),
            prec,
        };
        let mut acc: Option<LatticeDist> = None;
        let mut pw = base;
        let mut k = n;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => pw.clone(),
                    Some(a) => crate::pld::lattice::convolve_scaled(&a, &pw, 1),
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            pw = crate::pld::lattice::convolve_scaled(&pw, &pw, 1);
            crate::num::cancel::check()?;
        }
        Ok(acc.expect("invariant: n >= 1"))
    }

    /// True if the window is symmetric about 0 with equal enclosures at ±y (checked, not assumed).
    pub fn is_symmetric(&self) -> bool {
        self.min == -self.max()
            && (0..self.len()).all(|i| self.lo[i] == self.lo[self.len() - 1 - i] && self.hi[i] == self.hi[self.len() - 1 - i])
    }

    /// Tail sums in both directions, accumulated from each end with outward rounding.
    pub fn tails(&self) -> Tails {
        let p = self.prec;
        let one = Float::with_val(p, 1);
        let accumulate = |order: &mut dyn Iterator<Item = usize>| {
            let n = self.len();
            let mut lo = vec![Float::with_val(p, 0); n];
            let mut hi = vec![Float::with_val(p, 0); n];
            let mut slo = Float::with_val(p, 0);
            let mut shi = self.outside.clone();
            for i in order {
                slo = Float::with_val_round(p, &slo + &self.lo[i], Round::Down).0;
                shi = Float::with_val_round(p, &shi + &self.hi[i], Round::Up).0;
                lo[i] = if slo > one { one.clone() } else { slo.clone() };
                hi[i] = if shi > one { one.clone() } else { shi.clone() };
            }
            (lo, hi)
        };
        let (up_lo, up_hi) = accumulate(&mut (0..self.len()).rev());
        let (low_lo, low_hi) = if self.is_symmetric() { (Vec::new(), Vec::new()) } else { accumulate(&mut (0..self.len())) };
        Tails { min: self.min, store: Store::Mpfr { up_lo, up_hi, low_lo, low_hi }, outside: self.outside.clone(), prec: p }
    }

    /// Certified bounds on the total mass (should contain 1).
    pub fn total_mass(&self) -> Interval {
        let lo = self.tails().ge(self.min).into_parts().0;
        let mut hi = Float::with_val(self.prec, 0);
        for h in &self.hi {
            hi = Float::with_val_round(self.prec, &hi + h, Round::Up).0;
        }
        hi = Float::with_val_round(self.prec, &hi + &self.outside, Round::Up).0;
        Interval::new(lo, hi)
    }
}

impl Tails {
    /// Tails of a symmetric law on [min, −min] from double-double upper sums with a relative bound.
    pub fn from_dd(min: i64, up: Vec<DD>, rel: Float, outside: Float) -> Tails {
        Tails { min, store: Store::Dd { up, rel }, outside, prec: 128 }
    }

    /// Tails computed on demand by `oracle`, at precision `prec`; `outside` bounds each tail beyond its window.
    pub fn from_oracle(oracle: std::sync::Arc<dyn TailOracle>, outside: Float, prec: u32) -> Tails {
        let (min, _) = oracle.window();
        Tails { min, store: Store::Oracle(oracle), outside, prec }
    }

    /// The oracle behind on-demand tails.
    pub fn oracle(&self) -> Option<&std::sync::Arc<dyn TailOracle>> {
        match &self.store {
            Store::Oracle(o) => Some(o),
            _ => None,
        }
    }

    fn len(&self) -> usize {
        match &self.store {
            Store::Mpfr { up_lo, .. } => up_lo.len(),
            Store::Dd { up, .. } => up.len(),
            Store::Oracle(o) => (o.window().1 - o.window().0 + 1) as usize,
        }
    }

    /// The enclosure of the stored upper sum at window index i (in range).
    fn up_at(&self, i: usize) -> Interval {
        match &self.store {
            Store::Mpfr { up_lo, up_hi, .. } => Interval::new(up_lo[i].clone(), up_hi[i].clone()),
            Store::Dd { up, rel } => self.dd_interval(&up[i], rel),
            Store::Oracle(o) => o.ge(self.min + i as i64),
        }
    }

    fn dd_interval(&self, v: &DD, rel: &Float) -> Interval {
        let p = self.prec;
        let x = v.to_float();
        let one = Float::with_val(p, 1);
        let lo = Float::with_val_round(p, &x * Float::with_val_round(p, &one - rel, Round::Down).0, Round::Down).0;
        let hi = Float::with_val_round(p, &x * Float::with_val_round(p, &one + rel, Round::Up).0, Round::Up).0;
        let hi = Float::with_val_round(p, &hi + &self.outside, Round::Up).0;
        let lo = if lo < 0 { Float::with_val(p, 0) } else { lo };
        Interval::new(lo, if hi > one { one } else { hi })
    }

    /// Certified P[V ≥ m].
    pub fn ge(&self, m: i64) -> Interval {
        if let Store::Oracle(o) = &self.store {
            return o.ge(m);
        }
        let p = self.prec;
        if m < self.min {
            return Interval::new(self.up_at(0).into_parts().0, Float::with_val(p, 1));
        }
        let i = (m - self.min) as usize;
        if i >= self.len() {
            return Interval::new(Float::with_val(p, 0), self.outside.clone());
        }
        self.up_at(i)
    }

    /// Certified P[V ≤ m].
    pub fn le(&self, m: i64) -> Interval {
        if let Store::Oracle(o) = &self.store {
            return o.le(m);
        }
        let Store::Mpfr { low_lo, low_hi, .. } = &self.store else { return self.ge(-m) };
        if low_lo.is_empty() {
            return self.ge(-m);
        }
        let p = self.prec;
        let n = low_lo.len();
        if m < self.min {
            return Interval::new(Float::with_val(p, 0), self.outside.clone());
        }
        let i = (m - self.min) as usize;
        if i >= n {
            return Interval::new(low_lo[n - 1].clone(), Float::with_val(p, 1));
        }
        Interval::new(low_lo[i].clone(), low_hi[i].clone())
    }

    /// Smallest and largest m of the window (beyond it only [0, outside] is known of the far tail).
    pub fn min_index(&self) -> i64 {
        self.min
    }

    pub fn max_index(&self) -> i64 {
        if let Store::Oracle(o) = &self.store {
            return o.window().1;
        }
        self.min + self.len() as i64 - 1
    }

    /// Bound on the mass outside the window.
    pub fn outside(&self) -> &Float {
        &self.outside
    }

    pub fn prec(&self) -> u32 {
        self.prec
    }
}

/// The law of w·X from the law of X (support spread out with stride w).
pub fn scale_law(d: &LatticeDist, w: i64) -> LatticeDist {
    if w == 1 {
        return d.clone();
    }
    let p = d.prec;
    let n = (d.len() - 1) * w as usize + 1;
    let mut lo = vec![Float::with_val(p, 0); n];
    let mut hi = vec![Float::with_val(p, 0); n];
    for i in 0..d.len() {
        lo[i * w as usize] = d.lo[i].clone();
        hi[i * w as usize] = d.hi[i].clone();
    }
    LatticeDist { min: d.min * w, lo, hi, outside: d.outside.clone(), prec: p }
}

/// Law of A + w·B for independent A, B (exact convolution with outward rounding, parallel over outputs).
pub fn convolve_scaled(a: &LatticeDist, b: &LatticeDist, w: i64) -> LatticeDist {
    let p = a.prec.max(b.prec);
    let min = a.min + w * b.min;
    let max = a.max() + w * b.max();
    let n = (max - min + 1) as usize;
    let out: Vec<(Float, Float)> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|j| {
            let v = min + j as i64;
            let mut slo = Float::with_val(p, 0);
            let mut shi = Float::with_val(p, 0);
            // b index k: need a index v − w(b.min + k) − a.min in [0, a.len)
            let amax = a.len() as i64 - 1;
            // v − w b_val − a.min ∈ [0, amax]  ⇔  b_val ∈ [(v − a.min − amax)/w, (v − a.min)/w]
            let bv_lo = div_ceil(v - a.min - amax, w).max(b.min);
            let bv_hi = (v - a.min).div_euclid(w).min(b.max());
            if crate::num::cancel::requested() {
                return (slo, shi);
            } // discarded: see num::cancel
            let mut bv = bv_lo;
            while bv <= bv_hi {
                let ai = (v - w * bv - a.min) as usize;
                let bi = (bv - b.min) as usize;
                slo = Float::with_val_round(p, &slo + Float::with_val_round(p, &a.lo[ai] * &b.lo[bi], Round::Down).0, Round::Down).0;
                shi = Float::with_val_round(p, &shi + Float::with_val_round(p, &a.hi[ai] * &b.hi[bi], Round::Up).0, Round::Up).0;
                bv += 1;
            }
            (slo, shi)
        })
        .collect();
    let (lo, hi): (Vec<Float>, Vec<Float>) = out.into_iter().unzip();
    // Outside mass: if both lie in their windows the sum lies in this window, so P[outside] ≤ out_a + out_b.
    let outside = Float::with_val_round(p, &a.outside + &b.outside, Round::Up).0;
    LatticeDist { min, lo, hi, outside, prec: p }
}

pub(crate) fn div_ceil(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// Drop window entries at both ends whose total upper mass is below 2^-bits, adding it to the outside bound.
#[cfg(test)]
pub fn truncate(mut d: LatticeDist, bits: u32) -> LatticeDist {
    let p = d.prec;
    let thresh = Float::with_val(p, Float::with_val(p, 2).pow(-(bits as i32)));
    let n = d.len();
    let (mut first, mut last) = (0usize, n);
    let mut dropped = Float::with_val(p, 0);
    loop {
        // drop the smaller end entry while the running total stays below the threshold
        if last - first <= 1 {
            break;
        }
        let i = if d.hi[first] <= d.hi[last - 1] { first } else { last - 1 };
        let next = Float::with_val_round(p, &dropped + &d.hi[i], Round::Up).0;
        if next > thresh {
            break;
        }
        dropped = next;
        if i == first {
            first += 1;
        } else {
            last -= 1;
        }
    }
    if first == 0 && last == n {
        return d;
    }
    d.lo = d.lo[first..last].to_vec();
    d.hi = d.hi[first..last].to_vec();
    d.min += first as i64;
    d.outside = Float::with_val_round(p, &d.outside + &dropped, Round::Up).0;
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    /// The residue-class construction against a plain n-fold convolution of the truncated pmf.
    #[test]
    fn residue_construction_matches_direct_convolution() {
        let s2 = parse_rational("2.5").unwrap();
        let n = 4u32;
        let prec = 160;
        let dist = LatticeDist::iid_dgauss_sum(&s2, n, prec);
        // Direct convolution in high-precision floats (not certified; reference to ~1e-40).
        let dg = DiscreteGaussian { sigma2: s2.clone() };
        let z = dg.normaliser_direct(300).mid();
        let k = 40i64;
        let base: Vec<Float> = (-k..=k).map(|x| Float::with_val(300, -(Float::with_val(300, x * x) / 5u32)).exp() / &z).collect();
        let mut acc = base.clone();
        for _ in 1..n {
            let mut out = vec![Float::with_val(300, 0); acc.len() + base.len() - 1];
            for (i, a) in acc.iter().enumerate() {
                for (j, b) in base.iter().enumerate() {
                    out[i + j] += Float::with_val(300, a * b);
                }
            }
            acc = out;
        }
        let off = n as i64 * k;
        for y in [-30i64, -7, -1, 0, 1, 2, 3, 13, 29] {
            let direct = &acc[(y + off) as usize];
            let iv = dist.pmf(y);
            let rel = Float::with_val(300, (Float::with_val(300, iv.mid()) - direct) / direct).abs();
            assert!(rel < 1e-40, "y = {y}: {iv} vs {direct}");
        }
        let tm = dist.total_mass();
        assert!(tm.contains(&Float::with_val(prec, 1)), "total mass {tm}");
    }

    #[test]
    fn survival_is_monotone_and_symmetric() {
        let s2 = parse_rational("5").unwrap();
        let dist = LatticeDist::iid_dgauss_sum(&s2, 10, 128);
        let s = dist.tails();
        // P[V ≥ 1] = P[V ≤ -1] = (1 − P[V=0])/2
        let a = s.ge(1);
        let p0 = dist.pmf(0);
        let b = Interval::one(128).sub(&p0).mul(&Interval::from_rational(&Rational::from((1, 2)), 128));
        assert!(a.overlaps(&b));
        for m in -20..20 {
            assert!(s.ge(m).lo() >= s.ge(m + 1).lo());
        }
    }

    /// The binomial closed form of n sensitivity-1 discrete Laplace shifts encloses the same law as binary
    /// powering of the one-shift law (both certified: every pair of enclosures overlaps) and is as narrow.
    #[test]
    fn dlap_binomial_matches_powering() {
        for (b, n) in [("4", 37u64), ("1/3", 200), ("50", 5)] {
            let d = crate::noise::dlaplace::DiscreteLaplace::new(crate::num::parse_rational(b).unwrap()).unwrap();
            let x = LatticeDist::dlap_binomial(&d, n, 128).unwrap();
            let y = LatticeDist::dlap_powering(&d, 1, n, 128).unwrap();
            assert_eq!((x.min, x.lo.len()), (y.min, y.lo.len()));
            for k in 0..x.lo.len() {
                assert!(x.lo[k] <= y.hi[k] && y.lo[k] <= x.hi[k], "b = {b}, n = {n}, k = {k}");
                let wx = Float::with_val(128, &x.hi[k] - &x.lo[k]);
                let wy = Float::with_val(128, &y.hi[k] - &y.lo[k]);
                assert!(wx <= Float::with_val(128, &wy * 4u32) + Float::with_val(128, &y.hi[k] * 1e-30), "b = {b}, n = {n}, k = {k}");
            }
        }
    }
}
