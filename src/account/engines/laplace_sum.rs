//! The exact privacy profile of n releases of Laplace mechanisms with one ε₀ = Δ/b, as a finite sum:
//! no grid, no truncation, every digit the working precision carries; and of releases with several ε₀, the
//! same sum over the sums of their knots ([`LaplaceSum::mixed`]). The same sum's last row (m = n
//! below) is the profile of n releases of the bounded-range pair of the exponential mechanism
//! (`noise::bounded_range`, the Laplace law's continuous part conditioned: [`LaplaceSum::bounded_range`]).
//!
//! One release (`noise::laplace`): under A the loss L is an atom at ε₀ (mass ½), an atom at −ε₀ (mass
//! ½e^{−ε₀}) and the density ¼e^{−(ε₀ − ℓ)/2} on (−ε₀, ε₀) [DRS22, Ex. 2.9]. Writing a = ε₀, the law is
//! e^{−a/2} e^{ℓ/2} ν(dℓ) with the symmetric measure ν = ½δ_a + ½δ_{−a} + ¼·Leb(−a, a), and e^{ℓ/2}
//! passes through convolution, so n releases have the law e^{−na/2} e^{ℓ/2} ν^{*n}(dℓ) and
//!
//!   δ_n(ε) = E_A[(1 − e^{ε − L})₊] = e^{−na/2} ∫_{ℓ > ε} (e^{ℓ/2} − e^{ε − ℓ/2}) ν^{*n}(dℓ).      (1)
//!
//! Expanding ν^{*n} by the number m of continuous factors: the atoms convolve to binomial atoms, the
//! m-fold convolution of Leb(−a, a) is the B-spline Σ_i (−1)^i C(m,i) (ℓ + ma − 2ia)₊^{m−1}/(m−1)!
//! [Sch46, eq. 4], and together, with knots x_k = (2k − n)a,
//!
//!   ν^{*n} = 2^{−n} Σ_k C(n,k) δ_{x_k} + 2^{−n} Σ_{m≥1} 2^{−m} Σ_k W_{m,k} (ℓ − x_k)₊^{m−1}/(m−1)!,
//!   W_{m,k} = C(n,m) [z^k] (1 − z)^m (1 + z)^{n−m}                                               (2)
//!
//! (exact integers, by the recurrence W's polynomials obey: P_{m+1}(z)(1 + z) = P_m(z)(1 − z)). Each
//! m-term has compact support, so its truncated powers may be taken from the right:
//! Σ_k W_{m,k}(ℓ − x_k)₊^{m−1} = (−1)^m Σ_k W_{m,k}(x_k − ℓ)₊^{m−1} (the polynomial Σ_k W_{m,k}(ℓ − x_k)^{m−1}
//! vanishes: P_m has a zero of order m at z = 1). Then (1) is a finite sum of elementary integrals over
//! (ε, x_k):
//!
//!   δ_n(ε) = e^{−na/2} 2^{−n} Σ_{x_k > ε} [ C(n,k)(e^{x_k/2} − e^{ε − x_k/2})
//!            + Σ_{m≥1} (−1)^m 2^{−m} W_{m,k} (e^{x_k/2} E_m(−½, d_k) − e^{ε − x_k/2} E_m(½, d_k)) ],     (3)
//!
//!   d_k = x_k − ε,   E_m(β, d) = ∫_0^d e^{βu} u^{m−1}/(m−1)! du = e^{βd} Σ_{j≥0} (−β)^j d^{m+j}/(m+j)!
//!
//! (the incomplete gamma function's series [DLMF, eq. 8.7.1], continued to β > 0),
//!
//! E_n by its series (a certified tail), the lower m by the backward recurrence
//! E_{m−1} = e^{βd}d^{m−1}/(m−1)! − βE_m (integration by parts; |β| = ½ damps its errors).
//!
//! The sum (3) cancels (W alternates, C(n,m) 2^n is large): it is evaluated in outward-rounded interval
//! arithmetic, so the bracket holds the truth at any precision and its width says what the cancellation
//! cost; the engine raises the precision until the digits asked are met.
//!
//! Row m of (3) is δ's part from the configurations with m continuous factors, each part ≥ 0 and at most
//! their mass, which is binomial: under A (and B) each release is continuous with probability
//! p = ½(1 − e^{−a}). The engine keeps the rows up to the M whose Chernoff bound of P[Bin(n, p) > M]
//! [Hoe63, Thm 1] is far below the digits asked, and adds that bound to every upper end
//! ([`LaplaceSum::truncated`]): at a = 1/10, 1,000 releases keep some 140 rows. The work is
//! (n + 1)(M + 1) terms per δ, counted ([`LaplaceSum::work`]), never timed. ε(δ) by a certified regula falsi on
//! δ(ε) (decreasing), each end moved only on a decided comparison.

use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::fallible;
use crate::noise::loss::LossLaw;
use crate::num::Interval;
use rug::{Float, Integer, Rational};
use std::sync::Arc;

/// Largest work of one δ the engine takes, in (n + 1)(rows + 1)·bits (every row kept, this was n = 300:
/// 7.4e7 at ε₀ = 1/10, ε(δ) in 0.8 s; n = 600: 5.3e8, 5.8 s; with the rows truncated n = 1000 at ε₀ = 1/10 is
/// 6e7, 3 s).
pub(super) const MAX_WORK: f64 = 2.5e9;

/// Highest first precision the engine takes (bits). The work model above is linear in the bits, which holds
/// to a few thousand; the cancellation of (3) needs ~1.5·n·ε₀ bits, so a large ε₀ of a few releases ran
/// for minutes in a handful of steps (a scale of 1e-6 given for an ε₀ of 1e-6: 1.5 million bits at n = 3;
/// ε₀ = 1e4: 45,000 bits, over 120 s; ε₀ = 1000: 4,672 bits, 2.3 s, now 0.22 s). n = 1000 at ε₀ = 1 needs
/// 3,700.
pub(super) const MAX_PREC: u32 = 1 << 13;

/// Precision raises (×1.5 each) after the first, where the cancellation of (3) ate more than foreseen.
pub(super) const RAISES: u32 = 3;

/// The engine: the exact sum of n Laplace releases with one ε₀.
pub(in crate::account) struct LaplaceSumEngine;

impl super::LawEngine for LaplaceSumEngine {
    fn name(&self) -> &'static str {
        "laplace-sum"
    }

    fn offer(&self, job: &super::Job) -> super::Offer {
        match releases(job.laws) {
            Ok(shape) => super::Offer::Takes { stands: true, expects: None, seconds: seconds(&shape, job.q, job.digits) },
            Err(why) => super::Offer::Declined(why),
        }
    }

    fn answer(&self, job: &super::Job) -> Fallible<Option<Certified>> {
        answer(job.laws, job.q, job.digits, job.trust)
    }
}

/// The exact sum's estimated time for a query on these releases (None: not estimated).
pub(super) fn seconds(shape: &Shape, q: Query, digits: u32) -> Option<f64> {
    let n = shape.n();
    if shape.bounded {
        (n <= BOUNDED_RANGE_CHEAP_UP_TO).then_some(BOUNDED_RANGE_SECONDS)
    } else if let [(a, _)] = &shape.scales[..] {
        Some(estimated_seconds(a, n, q, digits))
    } else {
        Some(mixed_seconds(shape, q, digits))
    }
}

/// Most bounded-range releases (the exponential mechanism, alone) whose exact sum is cheap: few releases' moment
/// generating function decays like t^{−n} only, so the inversion's line is long, where this sum answers in
/// milliseconds (measured at ε = 1/10, 1/2, 2: 3, 5 and 10 releases 0.2–1.2 s there against 3–4 ms here;
/// even at 50, 17–24 ms against 20–27 ms).
const BOUNDED_RANGE_CHEAP_UP_TO: u64 = 50;
/// What those take at most, as measured (above).
const BOUNDED_RANGE_SECONDS: f64 = 0.03;

/// The bits of left-out mass 2^−bits the sum allows itself at first ([`LaplaceSum::truncated`]): far below
/// the digits asked of the value (δ at ε and f at α assumed above 2^−64; a smaller value misses the
/// digits, and the engine's raises keep more rows).
pub(super) fn tail_bits(q: Query, digits: u32) -> f64 {
    let value_bits = match q {
        Query::Epsilon(d) => -d.to_f64().max(1e-300).log2(),
        Query::Delta(_) | Query::Tradeoff(_) => 64.0,
    };
    bits_below(digits, value_bits)
}

/// The bits of left-out mass 2^−bits that leave `digits` of a value of 2^−`value_bits` untouched.
fn bits_below(digits: u32, value_bits: f64) -> f64 {
    3.33 * f64::from(digits + 2) + value_bits.max(0.0) + 8.0
}

/// The δ evaluations a query takes, about (the time estimates' factor): one for δ(ε), some 10 for an ε(δ),
/// 25 for an f(α).
pub(super) fn evaluations(q: Query) -> f64 {
    match q {
        Query::Delta(_) => 1.0,
        Query::Epsilon(_) => 10.0,
        Query::Tradeoff(_) => 25.0,
    }
}

/// Seconds per interval step and bit of precision, on this project's 2-core machine (the estimates only).
pub(super) const SECONDS_PER_STEP_BIT: f64 = 3e-9;

/// The exact sum's time for a query, estimated from its count of work (never timed): its [`evaluations`],
/// each (n + 1)(rows + 1) steps at the first precision.
fn estimated_seconds(a: &Rational, n: u64, q: Query, digits: u32) -> f64 {
    let n = n as usize;
    let rows = rows_for(n, continuous_mass(a), tail_bits(q, digits));
    let prec = f64::from(first_prec(n, rows, &(Rational::from(n) * a), false, digits + 1));
    SECONDS_PER_STEP_BIT * ((n + 1) * (rows + 1)) as f64 * prec * evaluations(q)
}

/// The releases a composition holds, as this engine takes them: Laplace mechanisms, their number at each ε₀
/// (increasing ε₀), or bounded-range pairs with one ε (`bounded`).
pub(super) struct Shape {
    pub(super) scales: Vec<(Rational, u64)>,
    pub(super) bounded: bool,
    /// [`count_knots`] of the scales, counted once
    knots: f64,
}

impl Shape {
    /// The composed law of these releases, the rows left out at most 2^−`bits` of mass (one ε₀; with
    /// several, or bounded-range pairs, every row).
    pub(super) fn build(&self, bits: f64) -> Fallible<LaplaceSum> {
        let (a, n) = (&self.scales[0].0, self.n());
        match (self.bounded, self.scales.len()) {
            (true, _) => LaplaceSum::bounded_range(a, n),
            (false, 1) => LaplaceSum::truncated(a, n, bits),
            _ => LaplaceSum::mixed(&self.scales),
        }
    }

    /// The number of releases.
    pub(super) fn n(&self) -> u64 {
        self.scales.iter().map(|(_, n)| n).sum()
    }

    /// The products of weights [`LaplaceSum::mixed`] takes, at most: each ε₀ in turn, the knots and rows so
    /// far times its own (n_i + 1)² weights.
    fn products(&self) -> f64 {
        let (mut knots, mut rows, mut total) = (1.0, 1.0, 0.0);
        for (_, n) in &self.scales {
            let k = *n as f64 + 1.0;
            total += knots * rows * k * k;
            knots *= k;
            rows += *n as f64;
        }
        total
    }
}

/// Most products of weights with several ε₀ ([`Shape::products`]: 923,521 at 30 + 30 releases, 0.2 s).
const MAX_MIXED_PRODUCTS: f64 = 2e7;

/// Most interval steps of one δ with several ε₀, knots × (n + 1) (20,301 at 50 + 50 releases of 1/3 and 1).
const MAX_MIXED_STEPS: f64 = 2e6;

/// Most sums Π(n_i + 1) whose distinct values [`count_knots`] counts.
const COUNTED_KNOTS: f64 = 2e5;

/// The knots of the composed law with several ε₀: the distinct Σ_i (2k_i − n_i)a_i, counted where there are
/// at most [`COUNTED_KNOTS`] sums (commensurate ε₀ share many: 201 of 2,601 for 50 + 50 releases of 1/3
/// and 1), else their number Π(n_i + 1), an upper bound.
fn count_knots(scales: &[(Rational, u64)]) -> f64 {
    let sums: f64 = scales.iter().map(|(_, n)| *n as f64 + 1.0).product();
    if sums > COUNTED_KNOTS {
        return sums;
    }
    let mut knots = std::collections::BTreeSet::from([Rational::new()]);
    for (a, n) in scales {
        let steps: Vec<Rational> = (0..=*n).map(|k| Rational::from(2 * k as i64 - *n as i64) * a).collect();
        knots = knots.iter().flat_map(|x| steps.iter().map(move |y| Rational::from(x + y))).collect();
    }
    knots.len() as f64
}

/// The largest loss of these releases, Σ_i n_i a_i (na for one ε₀).
fn largest_loss(scales: &[(Rational, u64)]) -> Rational {
    scales.iter().map(|(a, n)| Rational::from(a * *n)).fold(Rational::new(), |t, x| t + x)
}

/// The releases of a composition this engine takes, or why it does not: every law a Laplace loss law (one
/// ε₀, or several whose weights take at most [`MAX_MIXED_PRODUCTS`] products), or every law a bounded-range
/// pair with one ε; at most [`MAX_RELEASES`] releases.
pub(super) fn releases(laws: &[(Arc<dyn LossLaw>, u64)]) -> Result<Shape, String> {
    // Laplace mechanisms, or bounded-range pairs with one ε (the Laplace law's continuous part)
    let bounded = laws.first().is_some_and(|(l, _)| l.bounded_range_eps().is_some());
    let eps_of = |l: &Arc<dyn LossLaw>| if bounded { l.bounded_range_eps() } else { l.laplace_eps0() };
    let mut scales: Vec<(Rational, u64)> = Vec::new();
    for (l, c) in laws {
        let Some(a) = eps_of(l) else { return Err("not a Laplace mechanism".into()) };
        match scales.iter_mut().find(|(b, _)| *b == a) {
            Some((_, n)) => *n += c,
            None => scales.push((a, *c)),
        }
    }
    scales.sort_by(|x, y| x.0.cmp(&y.0));
    let knots = count_knots(&scales);
    let shape = Shape { scales, bounded, knots };
    if shape.scales.is_empty() {
        return Err("not a Laplace mechanism".into());
    }
    if bounded && shape.scales.len() > 1 {
        return Err("not bounded-range mechanisms with one epsilon".into());
    }
    if shape.n() > MAX_RELEASES {
        return Err(format!("more than {MAX_RELEASES} releases"));
    }
    let steps = shape.knots * (shape.n() + 1) as f64;
    if shape.scales.len() > 1 && (shape.products() > MAX_MIXED_PRODUCTS || steps > MAX_MIXED_STEPS) {
        return Err(format!(
            "Laplace mechanisms with {} eps0, whose exact sum would take {:.1e} products and {steps:.1e} steps a delta",
            shape.scales.len(),
            shape.products()
        ));
    }
    Ok(shape)
}

/// The exact sum's time for a query with several ε₀, estimated from its count of work (never timed): the
/// weights' products, and its [`evaluations`], each knots·(n + 1) steps at the first precision.
fn mixed_seconds(shape: &Shape, q: Query, digits: u32) -> f64 {
    let n = shape.n() as usize;
    let top = largest_loss(&shape.scales);
    let prec = f64::from(first_prec(n, n, &top, false, digits + 1));
    SECONDS_PER_PRODUCT * shape.products() + MIXED_SECONDS_PER_STEP_BIT * shape.knots * (n + 1) as f64 * prec * evaluations(q)
}

/// Seconds per product of two weights (big integers), on this project's 2-core machine (the estimates only;
/// measured 3.8e-8 at 50 + 50 releases, 3.7e-8 at 60 + 60).
const SECONDS_PER_PRODUCT: f64 = 4e-8;
/// Seconds per interval step and bit with several ε₀ (measured 3.8e-9 at 50 + 50 and 60 + 60 releases, 8e-9 at
/// 30 + 30, 1.2e-8 at 10 + 10, where fixed costs weigh more).
const MIXED_SECONDS_PER_STEP_BIT: f64 = 5e-9;

/// The accountant's query on a composition of laws, where every law is a Laplace loss law with one ε₀
/// and there are at most [`MAX_RELEASES`] of them: ε(δ), δ(ε) or f(α) to the digits asked (None: not this
/// engine's composition).
pub(in crate::account) fn answer(laws: &[(Arc<dyn LossLaw>, u64)], q: Query, digits: u32, trust: Trust) -> Fallible<Option<Certified>> {
    let Ok(shape) = releases(laws) else { return Ok(None) };
    let (n, bounded) = (shape.n(), shape.bounded);
    // the rows kept: their left-out mass at most 2^−bits (every row, with several ε₀)
    let mut bits = tail_bits(q, digits);
    let build = |bits: f64| shape.build(bits);
    let mut sum = build(bits)?;
    let mut prec = sum.first_prec(digits + 1);
    // the work of one δ, (n + 1)(rows + 1) steps at `prec` bits: beyond the cap (a large ε₀·n, whose cancellation
    // needs ~1.5·n·ε₀ bits) the pld grid answers
    if sum.work() as f64 * f64::from(prec) > MAX_WORK || prec > MAX_PREC {
        return Ok(None);
    }
    // (the progress bar's estimate only)
    let seconds = SECONDS_PER_STEP_BIT * sum.work() as f64 * f64::from(prec) * evaluations(q);
    let _progress = crate::num::progress::begin("exact Laplace sum", seconds);
    let mut best = None;
    for raise in 0..=RAISES {
        let Some(iv) = sum.query(q, digits + 1, prec)? else { return Ok(None) };
        let (what, name) = if bounded { ("bounded-range release", "epsilon") } else { ("Laplace release", "epsilon0") };
        let rows = sum.rows_note();
        let values = match &shape.scales[..] {
            [(a, _)] => crate::num::format::fmt_rational(a),
            several => several.iter().map(|(a, c)| format!("{} ({c})", crate::num::format::fmt_rational(a))).collect::<Vec<_>>().join(", "),
        };
        let detail = format!("{n} {what}{} with {name} = {values}: the exact finite sum{rows}, {prec} bits", if n == 1 { "" } else { "s" });
        // (a δ or f below the 2^−64 assumed: the left-out mass is then sized by the value's lower end)
        let value_bits = match q {
            Query::Delta(_) | Query::Tradeoff(_) if *iv.lo() > 0 => -iv.lo().to_f64().max(f64::MIN_POSITIVE).log2(),
            _ => 0.0,
        };
        let c = Certified::new(iv, Engine::LaplaceSum, trust, detail)?;
        let done = c.meets(digits);
        best = Some(c);
        if done {
            break;
        }
        prec += prec / 2;
        // (and more rows, where some were left out: the bracket may be short by their mass; every row for the
        // last raise, where the work cap allows, so that the truncation never costs digits)
        if sum.rows < sum.n {
            bits = (bits * 1.5).max(bits_below(digits, value_bits) + 8.0);
            if raise + 1 == RAISES && ((n + 1) * (n + 1)) as f64 * f64::from(prec) <= MAX_WORK {
                bits = f64::INFINITY;
            }
            sum = build(bits)?;
        }
    }
    Ok(best)
}

/// Most releases the engine takes: a δ costs (n + 1)(M + 1)/2 interval steps with M ≈ n·p + O(√n) rows
/// kept, at ~M/2 + 3.3·digits + 1.5·n·ε₀ bits (measured on 2 cores, ε(1e-5) at 21 digits, b = 10: n = 100
/// 0.05 s, 300 0.25–0.4 s, 500 0.5–0.8 s, 800 1.3–1.8 s, 1000 3.0 s; with every row kept and 2n bits more,
/// 0.13, 0.81, 3.2, 13.5 s and beyond the cap; the pld grid took 100 s for 3 digits at 500); beyond, the
/// pld grid answers. Where its estimated work is cheap ([`estimated_seconds`]) it is tried before the tilted
/// Fourier engine (unless that one's own estimate is lower), which answers from ~150 releases of ε₀ = 1 and
/// ~1,000 of ε₀ = 1/10 but may spend long finding fewer beyond its reach.
pub const MAX_RELEASES: u64 = 1000;

/// The composed law of n releases of Laplace mechanisms with one ε₀ = a, ready for any number of queries.
#[derive(Debug)]
pub struct LaplaceSum {
    /// ε₀ (with several ε₀, the smallest: it only scales the search near ε = 0)
    a: Rational,
    n: usize,
    /// the knots x_k, increasing: (2k − n)a for one ε₀; with several, every Σ_i (2k_i − n_i)a_i ([`LaplaceSum::mixed`])
    knots: Vec<Rational>,
    /// the largest loss, Σ_i n_i a_i (na for one ε₀): the last knot
    top: Rational,
    /// W_{m,k} of (2), rows m = 0..=`rows` (row 0: the binomial atoms C(n,k)), k indexing `knots`
    w: Weights,
    /// the factor's largest loss: e^{−norm_top/2} in (3) (`top` but where the law is conditioned on atoms,
    /// [`LaplaceSum::conditioned`])
    norm_top: Rational,
    /// A[L = +∞] (0 but where the law is conditioned on atoms)
    inf: Option<Interval>,
    /// the last row of (2) kept: the configurations with more continuous factors are left out of the sums,
    /// and their mass under A and under B, at most `tail`, is added to the upper ends ([`LaplaceSum::truncated`])
    rows: usize,
    /// an upper bound of P[Bin(n, p) > rows], p = ½(1 − e^{−a}) (0 where every row is kept)
    tail: Float,
    /// the bounded-range pair's law (`noise::bounded_range`): the Laplace law's continuous part conditioned,
    /// ν′ = (2/(1 − e^{−a}))·¼Leb(−a, a), so only the row m = n of (2) is kept, times (2/(1 − e^{−a}))^n
    bounded: bool,
}

/// W_{m,k} of (2): exact integers, or enclosures where the law is conditioned on atoms
/// ([`LaplaceSum::conditioned`]; None: 0).
#[derive(Debug)]
enum Weights {
    Exact(Vec<Vec<Integer>>),
    Enclosed(Vec<Vec<Option<Interval>>>),
}

impl Weights {
    /// W_{m,k} enclosed at `prec` bits (an enclosure at its own); None where it is 0.
    fn at(&self, m: usize, k: usize, prec: u32) -> Option<Interval> {
        match self {
            Weights::Exact(w) => (w[m][k] != 0).then(|| int(&w[m][k], prec)),
            Weights::Enclosed(w) => w[m][k].clone(),
        }
    }
}

impl LaplaceSum {
    /// Every row of (2) kept: the exact sum.
    pub fn new(a: &Rational, n: u64) -> Fallible<LaplaceSum> {
        LaplaceSum::new_rows(a, n, |n, _| n)
    }

    /// The sum (3) with the rows m > M left out, M the fewest rows whose left-out mass is at most 2^−`bits`.
    /// Under A (and under B alike: e^{∓ℓ/2} ν^{*n} gives each release the same continuous mass) the number of
    /// continuous factors is Bin(n, p) with p = ½(1 − e^{−a}), and row m is E_A[(1 − e^{ε − L})₊; m of them]
    /// ≥ 0, at most their mass: so δ lies in [the kept rows' sum, that sum + P[Bin(n, p) > M]], and so does
    /// each tail. Few continuous factors carry the mass where a is small: 1,000 releases of a = 1/10 keep
    /// 144 rows at 2^−98 (p = 0.048, ε(1e-5) to 21 digits), and the work falls by n/M.
    pub fn truncated(a: &Rational, n: u64, bits: f64) -> Fallible<LaplaceSum> {
        let mut sum = LaplaceSum::new_rows(a, n, |n, p| rows_for(n, p, bits))?;
        sum.tail = binomial_tail(sum.n, &sum.a, sum.rows);
        Ok(sum)
    }

    fn new_rows(a: &Rational, n: u64, rows: impl Fn(usize, f64) -> usize) -> Fallible<LaplaceSum> {
        if *a <= 0 {
            return fallible!(Input, "the Laplace sum needs epsilon0 > 0");
        }
        if n == 0 || n > MAX_RELEASES {
            return fallible!(Declined, "the exact Laplace sum takes 1 to {MAX_RELEASES} releases, not {n}");
        }
        let n = n as usize;
        let m = rows(n, continuous_mass(a)).min(n);
        let knots = (0..=n).map(|k| Rational::from(2 * k as i64 - n as i64) * a).collect();
        let top = Rational::from(n) * a;
        let (w, norm_top) = (Weights::Exact(weights(n, m)), top.clone());
        Ok(LaplaceSum { a: a.clone(), n, knots, top, w, norm_top, inf: None, rows: m, tail: Float::new(64), bounded: false })
    }

    /// n_i releases at each of several ε₀ = a_i: the law ν_{a_1}^{*n_1} * ν_{a_2}^{*n_2} * ⋯, every row kept.
    /// Each factor is (2), its own W_{m,k} at its own knots; truncated powers convolve as
    /// (ℓ − x)₊^{p−1}/(p−1)! * (ℓ − y)₊^{q−1}/(q−1)! = (ℓ − x − y)₊^{p+q−1}/(p+q−1)! (a Beta integral; an atom
    /// is p = 0) and the factors 2^{−n_i}, 2^{−m_i} multiply, so the product is (2) with rows m = Σ m_i, knots
    /// Σ_i (2k_i − n_i)a_i, and weights the sums of the products Π_i W^{(i)}_{m_i,k_i} that reach them. Every
    /// row has compact support (a convolution of compactly supported parts), so its polynomial vanishes and
    /// (3) holds as for one ε₀, with e^{−Σ n_i a_i/2} for e^{−na/2}. The weights take Π(n_i + 1)² products.
    pub fn mixed(scales: &[(Rational, u64)]) -> Fallible<LaplaceSum> {
        let n_total: u64 = scales.iter().map(|(_, n)| n).sum();
        if scales.is_empty() || scales.iter().any(|(a, n)| *a <= 0 || *n == 0) || n_total > MAX_RELEASES {
            return fallible!(Declined, "the exact Laplace sum takes 1 to {MAX_RELEASES} releases of positive epsilon0");
        }
        // knot → its weights by row m
        let mut acc: std::collections::BTreeMap<Rational, Vec<Integer>> = [(Rational::new(), vec![Integer::from(1)])].into();
        for (a, n) in scales {
            let n = *n as usize;
            let w = weights(n, n);
            let mut next: std::collections::BTreeMap<Rational, Vec<Integer>> = std::collections::BTreeMap::new();
            for (x, row) in &acc {
                for k in 0..=n {
                    let y = x + Rational::from(2 * k as i64 - n as i64) * a;
                    let entry = next.entry(y).or_default();
                    entry.resize(entry.len().max(row.len() + n), Integer::new());
                    for (m1, w1) in row.iter().enumerate().filter(|(_, w1)| **w1 != 0) {
                        for (m2, w2) in w.iter().map(|r| &r[k]).enumerate().filter(|(_, w2)| **w2 != 0) {
                            entry[m1 + m2] += Integer::from(w1 * w2);
                        }
                    }
                }
            }
            acc = next;
        }
        let n = n_total as usize;
        let knots: Vec<Rational> = acc.keys().cloned().collect();
        let mut w = vec![vec![Integer::new(); knots.len()]; n + 1];
        for (j, row) in acc.into_values().enumerate() {
            for (m, x) in row.into_iter().enumerate() {
                w[m][j] = x;
            }
        }
        let a = scales.iter().map(|(a, _)| a.clone()).min().expect("invariant: scales is not empty");
        let top = largest_loss(scales);
        let (w, norm_top) = (Weights::Exact(w), top.clone());
        Ok(LaplaceSum { a, n, knots, top, w, norm_top, inf: None, rows: n, tail: Float::new(64), bounded: false })
    }

    /// n releases of the bounded-range pair with ε = a (the exponential mechanism's class,
    /// `noise::bounded_range` (1)): A has the density e^{−a/2} e^{ℓ/2} ν′ with ν′ of [`LaplaceSum`]'s
    /// `bounded`, so (1)–(3) hold with the atoms and every m < n dropped and the factor (2/(1 − e^{−a}))^n.
    pub fn bounded_range(a: &Rational, n: u64) -> Fallible<LaplaceSum> {
        let mut sum = LaplaceSum::new(a, n)?;
        if let Weights::Exact(w) = &mut sum.w {
            for row in w.iter_mut().take(sum.n) {
                row.iter_mut().for_each(|w| *w = Integer::new());
            }
        }
        sum.bounded = true;
        Ok(sum)
    }

    /// This law beside an independent law of atoms (`laplace_atoms`): A-masses a_j at exact losses ℓ_j
    /// (`atoms`), `inf` at +∞, and atoms left out of mass at most `left` under A (and under B where f is
    /// asked) whose losses are at most `max_loss`. Under A the sum's finite part is
    /// Σ_j a_j·(this law shifted by ℓ_j) = e^{−na/2} 2^{−n} e^{z/2} Σ_j a_j e^{−ℓ_j/2} ν^{*n}(dz − ℓ_j), so (2)
    /// holds with the knots x_k + ℓ_j (merged where they meet) and the weights Σ_j a_j e^{−ℓ_j/2} W_{m,k},
    /// enclosed at `prec` bits, and (3) with e^{−na/2} as before; under B = e^{−L}A alike. The rows left out
    /// weigh at most `tail` under either law (Σ_j a_j ≤ 1 and Σ_j a_j e^{−ℓ_j} ≤ 1), and the atoms left
    /// out at most `left`: both are added to the upper ends below the largest loss, max ℓ + na.
    pub(super) fn conditioned(
        &self,
        atoms: &[(Rational, Interval)],
        inf: &Interval,
        left: &Float,
        max_loss: &Rational,
        prec: u32,
    ) -> LaplaceSum {
        // (this law's weights enclosed once, knot by knot, not once per atom)
        let own: Vec<Vec<Option<Interval>>> =
            (0..self.knots.len()).map(|k| (0..=self.rows).map(|m| self.w.at(m, k, prec)).collect()).collect();
        let mut merged: std::collections::BTreeMap<Rational, Vec<Option<Interval>>> = Default::default();
        for (l, a) in atoms {
            let c = a.mul(&Interval::from_rational(&(-Rational::from(l / 2u32)), prec).exp());
            for (x, weights) in self.knots.iter().zip(&own) {
                let row = merged.entry(Rational::from(x + l)).or_insert_with(|| vec![None; self.rows + 1]);
                for (entry, w) in row.iter_mut().zip(weights) {
                    if let Some(w) = w {
                        let t = w.mul(&c);
                        *entry = Some(match entry.take() {
                            Some(e) => e.add(&t),
                            None => t,
                        });
                    }
                }
            }
        }
        let knots: Vec<Rational> = merged.keys().cloned().collect();
        let mut w = vec![vec![None; knots.len()]; self.rows + 1];
        for (k, row) in merged.into_values().enumerate() {
            for (m, x) in row.into_iter().enumerate() {
                w[m][k] = x;
            }
        }
        let tail = Float::with_val_round(64, &self.tail + left, rug::float::Round::Up).0;
        LaplaceSum {
            a: self.a.clone(),
            n: self.n,
            knots,
            top: Rational::from(max_loss + &self.top),
            w: Weights::Enclosed(w),
            norm_top: self.norm_top.clone(),
            inf: Some(inf.clone()),
            rows: self.rows,
            tail,
            bounded: self.bounded,
        }
    }

    /// The query on this law at `prec` bits, ε and f searched to `digits` (None: f's threshold beyond reach).
    pub(super) fn query(&self, q: Query, digits: u32, prec: u32) -> Fallible<Option<Interval>> {
        Ok(Some(match q {
            Query::Delta(e) => self.delta(e, prec),
            Query::Epsilon(d) => self.epsilon(d, digits, prec),
            Query::Tradeoff(al) => match self.tradeoff(al, digits, prec)? {
                Some(iv) => iv,
                None => return Ok(None),
            },
        }))
    }

    /// e^{−na/2}/2^n, times (2/(1 − e^{−a}))^n for the bounded-range law: the factor of (3) and of the tails.
    fn norm(&self, prec: u32) -> Interval {
        let scale = Interval::from_rational(&(-Rational::from(&self.norm_top / 2u32)), prec).exp();
        let two_n = Interval::from_rational(&Rational::from(Integer::from(1) << self.n as u32), prec);
        let base = scale.div(&two_n);
        if !self.bounded {
            return base;
        }
        let a = Interval::from_rational(&self.a, prec + 32);
        let ln_kappa = Interval::ln2(prec + 32).sub(&a.neg().exp_m1().neg().ln());
        base.mul(&ln_kappa.mul_u64(self.n as u64).exp())
    }

    /// Interval steps of one δ(ε) (the work budget's unit): one per kept row m and knot k with x_k > ε, at
    /// most (n + 1)(rows + 1) (the bounded-range law: one row).
    pub fn work(&self) -> u64 {
        let kept = if self.bounded { 1 } else { self.rows + 1 };
        (self.knots.len() * kept) as u64
    }

    /// The lowest row of (2) with weights: 1, or n for the bounded-range law (its only row).
    fn low(&self) -> usize {
        if self.bounded {
            self.n
        } else {
            1
        }
    }

    /// `x`, a probability of the loss at or above ε from the kept rows, with the left-out rows' mass added to
    /// its upper end, clipped to [0, 1]; nothing is added at ε ≥ na (L ≤ na in every configuration, and below
    /// it in every left-out one).
    fn with_tail(&self, x: Interval, eps: &Rational) -> Interval {
        let p = x.prec();
        let (lo, hi) = x.into_parts();
        let hi = if *eps >= self.top { hi } else { Float::with_val_round(p, &hi + &self.tail, rug::float::Round::Up).0 };
        Interval::new(lo, hi).clamp_to(&Float::with_val(p, 0), &Float::with_val(p, 1))
    }

    /// Where rows are left out, which and their mass (the detail's words); else nothing.
    pub(super) fn rows_note(&self) -> String {
        if self.rows < self.n {
            format!(" of the configurations with at most {} continuous parts (the rest, at most {:.1e} under either law, added to the upper ends)", self.rows, self.tail.to_f64())
        } else {
            String::new()
        }
    }

    /// A working precision (bits) that usually meets `digits` at once: the cancellation of the kept rows of
    /// (3), the backward recurrence of E_m(½, ·) up to ~1.5·n·a more ([`first_prec`]).
    pub fn first_prec(&self, digits: u32) -> u32 {
        first_prec(self.n, self.rows, &self.norm_top, self.bounded, digits)
    }

    /// δ_n(ε) of (3), enclosed at `prec` bits, clipped to [0, 1].
    pub fn delta(&self, eps: &Rational, prec: u32) -> Interval {
        let half = Rational::from((1, 2));
        let ie = Interval::from_rational(eps, prec);
        // the knots' terms in parallel, summed in the order of k (the same enclosure on any number of threads)
        let terms = self.per_knot(|k| {
            let x = &self.knots[k];
            if *x <= *eps {
                return None;
            }
            let hx = Interval::from_rational(x, prec).mul_rational(&half);
            let ex = hx.exp();
            let emx = ie.sub(&hx).exp();
            let atoms = ex.sub(&emx).mul(&self.w.at(0, k, prec).unwrap_or_else(|| Interval::zero(prec)));
            let d = Rational::from(x - eps);
            Some([atoms, self.continuous(k, &d, &ex, &emx, prec)])
        });
        let mut total = Interval::zero(prec);
        for [atoms, continuous] in &terms {
            total = total.add(atoms).add(continuous);
        }
        let zero = Float::with_val(prec, 0);
        let one = Float::with_val(prec, 1);
        total = total.mul(&self.norm(prec));
        if let Some(inf) = &self.inf {
            total = total.add(inf);
        }
        self.with_tail(total.clamp_to(&zero, &one), eps)
    }

    /// `term`(k) for the knots k = 0..=n, computed in parallel (each knot's O(n) sum over m is independent
    /// of the others'), the Some in the order of k: the caller sums them in that order, so the enclosure does
    /// not depend on the number of threads.
    fn per_knot<T: Send>(&self, term: impl Fn(usize) -> Option<T> + Sync + Send) -> Vec<T> {
        use rayon::prelude::*;
        (0..self.knots.len()).into_par_iter().filter_map(term).collect()
    }

    /// Σ_{m≥1} (−1)^m 2^{−m} W_{m,k} (e^{x/2} E_m(−½, d) − e^{ε−x/2} E_m(½, d)) of (3), for one knot x_k > ε.
    fn continuous(&self, k: usize, d: &Rational, ex: &Interval, emx: &Interval, prec: u32) -> Interval {
        let [j] = self.continuous_by(k, d, prec, |em, ep| [ex.mul(em).sub(&emx.mul(ep))]);
        j
    }

    /// Σ_{m≥1} (−1)^m 2^{−m} W_{m,k} J_m for one knot x_k > ε, with the J_m = `pick`(E_m(−½, d), E_m(½, d))
    /// (several sums at once: one per entry of `pick`'s array).
    fn continuous_by<const K: usize>(
        &self,
        k: usize,
        d: &Rational,
        prec: u32,
        pick: impl Fn(&Interval, &Interval) -> [Interval; K],
    ) -> [Interval; K] {
        let (n, low) = (self.rows, self.low());
        let half = Rational::from((1, 2));
        let di = Interval::from_rational(d, prec);
        let mut acc: [Interval; K] = std::array::from_fn(|_| Interval::zero(prec));
        if n == 0 {
            return acc;
        }
        let (mut em, mut ep) = (series(n, -1, d, prec), series(n, 1, d, prec));
        // t_m = e^{βd} d^{m−1}/(m−1)! at m = rows
        let pow = di.pow_u64(n as u64 - 1).div(&int(&Integer::from(Integer::factorial(n as u32 - 1)), prec));
        let hd = di.mul_rational(&half);
        let (mut tm, mut tp) = (pow.mul(&hd.neg().exp()), pow.mul(&hd.exp()));
        for m in (low..=n).rev() {
            if let Some(w) = self.w.at(m, k, prec) {
                // (−1)^m 2^{−m} W_{m,k}, once for the K sums (the power of two and the sign are exact, so
                // each term rounds as j·W_{m,k} would)
                let mut weight = w.mul_pow2(-(m as i32));
                if m % 2 == 1 {
                    weight = weight.neg();
                }
                for (a, j) in acc.iter_mut().zip(pick(&em, &ep)) {
                    *a = a.add(&j.mul(&weight));
                }
            }
            if m == low {
                break;
            }
            // E_{m−1} = t_m − βE_m, then t_{m−1} = t_m (m − 1)/d
            em = tm.add(&em.mul_rational(&half));
            ep = tp.sub(&ep.mul_rational(&half));
            tm = tm.mul_u64(m as u64 - 1).div(&di);
            tp = tp.mul_u64(m as u64 - 1).div(&di);
        }
        acc
    }

    /// The composed law's tails at ε, enclosed: (A[L ≥ ε], B[L ≥ ε], B[L > ε]). Under A the law is
    /// e^{−na/2} e^{ℓ/2} ν^{*n}(dℓ), under B = e^{−L}A it is e^{−na/2} e^{−ℓ/2} ν^{*n}(dℓ), so with (2) the
    /// tails above ε are the two halves of (3): the atoms at x_k ≥ ε (> ε for the strict tail) weighted by
    /// C(n,k) e^{±x_k/2}, and the continuous parts e^{x_k/2} E_m(−½, d_k), e^{−x_k/2} E_m(½, d_k).
    pub fn upper_tails(&self, eps: &Rational, prec: u32) -> (Interval, Interval, Interval) {
        let (a_ge, b_ge, b_gt) = self.kept_upper_tails(eps, prec);
        (self.with_tail(a_ge, eps), self.with_tail(b_ge, eps), self.with_tail(b_gt, eps))
    }

    /// [`LaplaceSum::upper_tails`] of the kept rows alone (each end below the truth by at most `tail`).
    fn kept_upper_tails(&self, eps: &Rational, prec: u32) -> (Interval, Interval, Interval) {
        let half = Rational::from((1, 2));
        // per knot x_k ≥ ε: its atoms under A and B, and (x_k > ε) its continuous parts, in parallel
        let terms = self.per_knot(|k| {
            let x = &self.knots[k];
            if *x < *eps {
                return None;
            }
            let hx = Interval::from_rational(x, prec).mul_rational(&half);
            let (ex, emx) = (hx.exp(), hx.neg().exp());
            let c = self.w.at(0, k, prec).unwrap_or_else(|| Interval::zero(prec));
            let atoms = [ex.mul(&c), emx.mul(&c)];
            let continuous = (*x != *eps).then(|| {
                let d = Rational::from(x - eps);
                self.continuous_by(k, &d, prec, |em, ep| [ex.mul(em), emx.mul(ep)])
            });
            Some((atoms, continuous))
        });
        // summed in the order of k, as one thread would
        let (mut a_ge, mut b_ge, mut b_gt) = (Interval::zero(prec), Interval::zero(prec), Interval::zero(prec));
        for ([atom_a, atom_b], continuous) in &terms {
            a_ge = a_ge.add(atom_a);
            b_ge = b_ge.add(atom_b);
            if let Some([ca, cb]) = continuous {
                a_ge = a_ge.add(ca);
                b_ge = b_ge.add(cb);
                b_gt = b_gt.add(atom_b).add(cb);
            }
        }
        let (zero, one) = (Float::with_val(prec, 0), Float::with_val(prec, 1));
        let factor = self.norm(prec);
        let norm = |x: Interval| x.mul(&factor).clamp_to(&zero, &one);
        let a_ge = match &self.inf {
            Some(inf) => a_ge.mul(&factor).add(inf).clamp_to(&zero, &one),
            None => norm(a_ge),
        };
        (a_ge, norm(b_ge), norm(b_gt))
    }

    /// (A[L < ε], B[L ≥ ε], B[L > ε]) of [`LaplaceSum::upper_tails`].
    pub fn tails(&self, eps: &Rational, prec: u32) -> (Interval, Interval, Interval) {
        let (a_ge, b_ge, b_gt) = self.upper_tails(eps, prec);
        let (zero, one) = (Float::with_val(prec, 0), Float::with_val(prec, 1));
        (Interval::one(prec).sub(&a_ge).clamp_to(&zero, &one), b_ge, b_gt)
    }

    /// f(α), certified ([`crate::account::single`]'s concave search on g(u) = A[L < ε] + u(B[L ≥ ε] − α),
    /// the knots x_k its test points where one lies between the ends). The law is symmetric: one direction.
    pub fn tradeoff(&self, alpha: &Rational, digits: u32, prec: u32) -> Fallible<Option<Interval>> {
        if *alpha <= 0 || *alpha >= 1 {
            return Ok(None);
        }
        let al = Interval::from_rational(alpha, prec);
        let at = |e: Rational| {
            let (a_below, b_ge, b_gt) = self.tails(&e, prec);
            Ok(crate::account::single::Point::new(e, &a_below, b_ge, b_gt, &al))
        };
        crate::account::single::tradeoff_concave(&at, &|lo, hi| self.knot_between(lo, hi), &al, digits)
    }

    /// The knot x_k strictly between `lo` and `hi` nearest their midpoint, if any.
    fn knot_between(&self, lo: &Rational, hi: &Rational) -> Option<Rational> {
        let mid = Rational::from(lo + hi) / 2u32;
        // the knots either side of the midpoint (they are increasing)
        let i = self.knots.partition_point(|x| *x < mid);
        [i.checked_sub(1), Some(i)]
            .into_iter()
            .flatten()
            .filter_map(|k| self.knots.get(k))
            .filter(|x| *x > lo && *x < hi)
            .min_by(|p, q| Rational::from(*p - &mid).abs().cmp(&Rational::from(*q - &mid).abs()))
            .cloned()
    }
}

/// [`LaplaceSum::first_prec`] of n releases whose largest loss is `top` (na for one ε₀ = a) with `rows` kept.
fn first_prec(n: usize, rows: usize, top: &Rational, bounded: bool, digits: u32) -> u32 {
    let na = top.to_f64().min(1e6);
    // (measured: the kept rows' sums lose 10–45 bits to cancellation at 100–1,000 releases of ε₀ = 1/100 to 2,
    // far below the 2n once allowed; the bounded-range row keeps that allowance)
    let cancel = if bounded { 2.0 * n as f64 } else { 0.5 * rows as f64 };
    (96.0 + 3.33 * f64::from(digits) + cancel + 1.5 * na).ceil() as u32
}

#[path = "laplace_sum_terms.rs"]
mod terms;
use terms::*;

#[path = "laplace_sum_search.rs"]
pub(super) mod search;

#[cfg(test)]
#[path = "laplace_sum_tests.rs"]
mod tests;
