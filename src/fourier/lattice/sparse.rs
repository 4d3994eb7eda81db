//! A finite integer law with many atoms — a discretised privacy-loss law (`pld::discretize`) — as a factor
//! of the lattice Fourier inversion (`super`), evaluated in f64 ball arithmetic (`num::ball`).
//!
//! The law has certified masses m_x at the indices x of `idx` (increasing, in {0, …, len − 1}). What the
//! inversion asks of it (see `factor`):
//!
//! * ln φ(a + ib), φ(u) = Σ_x m_x e^{ux}, certified: with x₀ the index of the largest tilted mass,
//!   φ(u) = e^{u x₀} Σ_x w_x ζ^{x − x₀}, w_x = m_x e^{a(x − x₀)}, ζ = e^{ib}; the sum by Horner's rule over
//!   the atoms in complex balls (radii carry every rounding and the masses' own widths), the prefactor in
//!   MPFR. Thousands of atoms cost microseconds where MPFR complex exponentials per atom would cost
//!   milliseconds.
//! * a certified bound of |ψ(t)| = |φ(a + it)|/φ(a) for all t at distance ≥ d from 2πℤ: the tilted law,
//!   folded modulo N, is transformed by a radix-2 FFT in complex balls (so ψ at t_j = 2πj/N is enclosed,
//!   the folding being exact at those points), and between nodes |ψ| moves by at most
//!   |t − t_j|·Σ_x q_x|x − x₀|/Σ_x q_x (its derivative's bound). The suffix maxima of these block bounds
//!   give the bound beyond d. Computed once per tilt and cached, with the tilted weights.

use crate::num::ball::{Ball, CBall, U};
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use num_complex::Complex64;
use rug::float::Round;
use rug::Float;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::{Arc, Mutex};

/// A finite law with certified masses at sparse indices.
#[derive(Debug)]
pub struct SparseLaw {
    idx: Vec<i64>,
    /// mass midpoints and radii (f64, outward: [m − r, m + r] contains the certified enclosure)
    m: Vec<f64>,
    r: Vec<f64>,
    tilts: Mutex<HashMap<u64, Arc<Tilted>>>,
}

/// What one tilt a needs, computed once: the reference index, the tilted weights and the modulus bound.
#[derive(Debug)]
struct Tilted {
    x0: i64,
    /// w_k = m_k e^{a(x_k − x0)}
    w: Vec<Ball>,
    /// ln of the bound of |ψ| on [t_j − π/N, π] at j = 0..=N/2 (suffix maxima)
    env: Vec<f64>,
    /// the FFT size N
    nf: usize,
}

impl SparseLaw {
    /// From certified masses at indices 0, …, masses.len() − 1 (zeros skipped).
    pub fn new(masses: &[Interval]) -> SparseLaw {
        let mut idx = Vec::new();
        let mut m = Vec::new();
        let mut r = Vec::new();
        for (i, x) in masses.iter().enumerate() {
            if *x.hi() == 0 {
                continue;
            }
            let lo = Float::with_val_round(53, x.lo(), Round::Down).0.to_f64().max(0.0);
            let hi = Float::with_val_round(53, x.hi(), Round::Up).0.to_f64();
            let b = Ball::from_bounds(lo, hi);
            idx.push(i as i64);
            m.push(b.m);
            r.push(b.r);
        }
        SparseLaw { idx, m, r, tilts: Mutex::new(HashMap::new()) }
    }

    /// The index of the largest tilted mass m_x e^{ax} (f64).
    fn top(&self, a: f64) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, (&x, &m)) in self.idx.iter().zip(&self.m).enumerate() {
            if m > 0.0 {
                let v = m.ln() + a * x as f64;
                if best.is_none_or(|b| v > b.1) {
                    best = Some((i, v));
                }
            }
        }
        best.map(|b| b.0)
    }

    /// Mean and variance (f64, midpoints, normalised by their total).
    pub fn mean_var(&self) -> (f64, f64) {
        let t: f64 = self.m.iter().sum();
        let mean = self.idx.iter().zip(&self.m).map(|(&x, &m)| x as f64 * m).sum::<f64>() / t;
        let var = self.idx.iter().zip(&self.m).map(|(&x, &m)| (x as f64 - mean).powi(2) * m).sum::<f64>() / t;
        (mean, var)
    }

    pub fn support(&self) -> (i64, i64) {
        (*self.idx.first().unwrap_or(&0), *self.idx.last().unwrap_or(&0))
    }

    /// ln φ(u) in f64 (sizes and guesses only).
    pub fn ln_mgf_f64(&self, u: Complex64) -> Complex64 {
        let Some(j) = self.top(u.re) else { return Complex64::new(f64::NAN, f64::NAN) };
        let x0 = self.idx[j] as f64;
        let s: Complex64 = self.idx.iter().zip(&self.m).filter(|(_, &m)| m > 0.0).map(|(&x, &m)| (u * (x as f64 - x0)).exp() * m).sum();
        s.ln() + u * x0
    }

    /// d/da ln φ(a): the mean of the tilted law (f64).
    pub fn tilted_mean_f64(&self, a: f64) -> f64 {
        let Some(j) = self.top(a) else { return f64::NAN };
        let x0 = self.idx[j] as f64;
        let (mut num, mut den) = (0.0, 0.0);
        for (&x, &m) in self.idx.iter().zip(&self.m) {
            if m > 0.0 {
                let w = m * (a * (x as f64 - x0)).exp();
                num += x as f64 * w;
                den += w;
            }
        }
        num / den
    }

    /// ln φ(a + ib), certified, for real intervals a and b (None if the sum's ball may contain 0).
    pub fn ln_mgf(&self, a: &Interval, b: &Interval, p: u32) -> Option<CInterval> {
        let af = a.mid().to_f64();
        // the inversion's tilts are exact f64 values: use the cached weights then
        let t = if a.lo() == a.hi() && Float::with_val(64, af) == *a.lo() {
            self.tilted(af)
        } else {
            Arc::new(self.tilt(Ball::from_bounds(round_f64(a.lo(), false), round_f64(a.hi(), true)), af)?)
        };
        let x0 = t.x0;
        let bb = Ball::from_bounds(round_f64(b.lo(), false), round_f64(b.hi(), true));
        let zeta = CBall::cis(bb);
        // Horner from the top index down: s = Σ w_x ζ^{x − x_min}
        let mut s = CBall::new(0.0, 0.0, 0.0);
        let mut prev: Option<i64> = None;
        let mut zeta_gap = (1i64, zeta);
        for k in (0..self.idx.len()).rev() {
            let x = self.idx[k];
            if let Some(px) = prev {
                let gap = px - x;
                if gap != zeta_gap.0 {
                    zeta_gap = (gap, zeta.powu(gap as u32));
                }
                s = s.mul(zeta_gap.1);
            }
            s = s.add(CBall::real(t.w[k]));
            prev = Some(x);
        }
        let x_min = prev?;
        // a tilt whose weights overflowed (inf − inf): no certified value at this node
        if !(s.re.is_finite() && s.im.is_finite() && s.r.is_finite()) {
            return None;
        }
        let sre = Interval::new(Float::with_val(p, s.re - s.r), Float::with_val(p, s.re + s.r));
        let sim = Interval::new(Float::with_val(p, s.im - s.r), Float::with_val(p, s.im + s.r));
        let sum = CInterval::new(widen_ulp(sre), widen_ulp(sim));
        let ln_s = crate::num::cinterval::cln(&sum)?;
        // φ(a + ib) = e^{a x0} e^{ib x_min} s
        Some(CInterval::new(a.mul(&Interval::from_i64(x0, p)), b.mul(&Interval::from_i64(x_min, p))).add(&ln_s))
    }

    /// The weights of tilt `ab` (a ball; `af` its f64 value) with the reference index; no bound.
    fn tilt(&self, ab: Ball, af: f64) -> Option<Tilted> {
        let j0 = self.top(af)?;
        let x0 = self.idx[j0];
        let w = self
            .idx
            .iter()
            .zip(self.m.iter().zip(&self.r))
            .map(|(&x, (&m, &r))| Ball::new(m, r).mul(Ball::new((x - x0) as f64, 0.0).mul(ab).exp()))
            .collect();
        Some(Tilted { x0, w, env: Vec::new(), nf: 0 })
    }

    /// The cached weights and bound of the exact tilt a.
    fn tilted(&self, a: f64) -> Arc<Tilted> {
        if let Some(t) = self.tilts.lock().unwrap_or_else(|e| e.into_inner()).get(&a.to_bits()) {
            return t.clone();
        }
        let t = match self.tilt(Ball::exact(a), a) {
            Some(mut t) => {
                let (env, nf) = envelope(&self.idx, &t.w, t.x0);
                t.env = env;
                t.nf = nf;
                t
            }
            None => Tilted { x0: 0, w: Vec::new(), env: Vec::new(), nf: 0 },
        };
        let t = Arc::new(t);
        self.tilts.lock().unwrap_or_else(|e| e.into_inner()).insert(a.to_bits(), t.clone());
        t
    }

    /// A certified upper bound of ln |ψ(t)| for every t at distance ≥ d from 2πℤ (module doc).
    pub fn ln_abs_bound(&self, a: f64, d: f64) -> f64 {
        let t = self.tilted(a);
        if t.nf == 0 || !(d >= 0.0) {
            return 0.0;
        }
        // the first block reaching past d: block j covers [t_j − π/N, t_j + π/N]
        let j = ((d * t.nf as f64 / (2.0 * PI)) + 0.5).floor().max(0.0) as usize;
        t.env[j.min(t.env.len() - 1)]
    }
}

/// The modulus bound of a tilted law (module doc): ln of the suffix maxima of the block bounds at
/// j = 0..=N/2, and N.
fn envelope(idx: &[i64], w: &[Ball], x0: i64) -> (Vec<f64>, usize) {
    let total_lo: f64 = w.iter().map(|b| (b.m - b.r).max(0.0)).sum::<f64>() * (1.0 - (w.len() as f64 + 4.0) * U);
    let total_hi: f64 = w.iter().map(|b| b.m + b.r).sum::<f64>() * (1.0 + (w.len() as f64 + 4.0) * U);
    if !(total_lo > 0.0) || !total_hi.is_finite() {
        return (Vec::new(), 0);
    }
    // Lipschitz constant of |Σ w e^{it(x − x0)}| in t, normalised
    let lip = idx.iter().zip(w).map(|(&x, b)| (b.m + b.r) * (x - x0).unsigned_abs() as f64).sum::<f64>()
        * (1.0 + (w.len() as f64 + 4.0) * U)
        / total_lo;
    if !lip.is_finite() {
        return (Vec::new(), 0);
    }
    let nf = ((400.0 * lip).clamp(4096.0, 65536.0) as usize).next_power_of_two();
    // fold modulo N (exact at the nodes t_j = 2πj/N)
    let mut v = vec![CBall::ZERO; nf];
    for (&x, b) in idx.iter().zip(w) {
        let i = (x - x0).rem_euclid(nf as i64) as usize;
        v[i] = v[i].add(CBall::real(*b));
    }
    fft_ball(&mut v);
    let slack = lip * PI / nf as f64 * (1.0 + 4.0 * U);
    let half = nf / 2;
    let mut env = vec![0.0f64; half + 1];
    for j in 0..=half {
        // |z| ≤ √(re² + im²)(1 + 4U) + r (Euclidean: CBall::abs_up's |re| + |im| is up to √2 too large)
        let z = v[j];
        let modulus = (z.re * z.re + z.im * z.im).sqrt() * (1.0 + 4.0 * U) + z.r * (1.0 + U);
        let b = (modulus / total_lo + slack) * (1.0 + 4.0 * U);
        env[j] = if b > 0.0 { b.ln() + 4.0 * U } else { f64::NEG_INFINITY };
    }
    for j in (0..half).rev() {
        env[j] = env[j].max(env[j + 1]);
    }
    (env.into_iter().map(|x| x.min(0.0)).collect(), nf)
}

/// In-place radix-2 decimation-in-time FFT in complex balls (X_j = Σ_x v_x e^{−2πijx/N}; N a power of 2):
/// every butterfly's rounding, and the twiddles' libm error, are carried by the radii.
fn fft_ball(v: &mut [CBall]) {
    let n = v.len();
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if j > i {
            v.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let half = len / 2;
        // twiddles e^{−2πik/len}: θ = 2πk/len as a ball (TAU's radius scaled, one rounding)
        let tw: Vec<CBall> = (0..half)
            .map(|k| {
                let th = crate::num::ball::TAU.mul(Ball::exact(k as f64 / len as f64));
                CBall::cis(th.neg())
            })
            .collect();
        for start in (0..n).step_by(len) {
            for k in 0..half {
                let a = v[start + k];
                let b = v[start + k + half].mul(tw[k]);
                v[start + k] = a.add(b);
                v[start + k + half] = a.add(b.scale_exact(-1.0));
            }
        }
        len *= 2;
    }
}

fn round_f64(x: &Float, up: bool) -> f64 {
    Float::with_val_round(53, x, if up { Round::Up } else { Round::Down }).0.to_f64()
}

/// An interval widened by one ulp of its precision at both ends (the f64 → MPFR conversions are exact;
/// this covers nothing but is cheap insurance against a sign slip in the ball's bounds).
fn widen_ulp(x: Interval) -> Interval {
    let mut lo = x.lo().clone();
    let mut hi = x.hi().clone();
    lo.next_down();
    hi.next_up();
    Interval::new(lo, hi)
}
