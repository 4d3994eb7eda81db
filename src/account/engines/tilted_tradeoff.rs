//! f(α) on the tilted engine's lines: the Neyman–Pearson threshold located on this direction's line, or,
//! below 0, on the swapped pair's ([`Composition::tradeoff`]; `docs/tilted-fourier.md`, "f(α) below 0 in one
//! coarse line and one full line").

use super::*;
use crate::noise::gauss::normal_quantile_f64;

impl Composition<'_> {
    /// f(α) = sup_ε [1 − δ(ε) − e^ε α] in this direction (the convex conjugate of its privacy profile
    /// [DRS22, Prop. 2.12]), certified, and the line's description. The supremum sits at the threshold ε*
    /// of the Neyman–Pearson test, where the alternative's mass above it, −δ'(ε) e^{−ε}, is α; a threshold
    /// below 0 (α near 1) is found on the swapped pair's line (`tradeoff_below_zero`). None: not decided.
    pub(super) fn tradeoff(&self, alpha: &Rational) -> Fallible<Option<(Interval, String)>> {
        if *alpha <= 0 || *alpha >= 1 {
            return Ok(None);
        }
        let plan = self.first_line(alpha)?;
        let Some(first) = self.tradeoff_at(alpha, &plan, None)? else { return Ok(None) };
        // f = g(u*) is a difference (1 − α − δ' below 0, 1 − δ − uα above) smaller than the δ the line
        // certifies to the digits asked, so its bracket may fall a few digits short: once more on a line
        // planned for that many more digits, at the threshold found (measured: 1,000 to 100,000 Laplace
        // releases, 15–19 of 20; starting there saves the line at the planned guess, which below 0 is
        // 10–1,600% off the threshold)
        let Some(more) = shortfall(&first.0, self.digits) else { return Ok(Some((first.0, first.1))) };
        let finer = Composition { digits: self.digits + more + 2, ..*self };
        let best = match finer.tradeoff_at(alpha, &plan, Some(first.2))? {
            Some(f) if f.0.log10_rel_width() < first.0.log10_rel_width() => f,
            _ => first,
        };
        Ok(Some((best.0, best.1)))
    }

    /// [`Composition::tradeoff`] on lines planned for `self.digits`, from the threshold `start` (else the
    /// first line `plan`), with the threshold found.
    fn tradeoff_at(&self, alpha: &Rational, plan: &FirstLine, start: Option<Threshold>) -> Fallible<Option<(Interval, String, Threshold)>> {
        let al = Interval::from_rational(alpha, self.prec);
        let below_tried = match start {
            Some(Threshold::Below(g)) => return self.tradeoff_below_zero(alpha, &al, Some(Guess::Found(g))),
            Some(Threshold::Above(_)) => false,
            None => plan.below,
        };
        if below_tried {
            if let Some(r) = self.tradeoff_below_zero(alpha, &al, plan.at.map(Guess::Planned))? {
                return Ok(Some(r));
            }
        }
        let guess = match start {
            Some(Threshold::Above(g)) => Some(g),
            // (the swapped pair's line did not decide it: the threshold above 0 after all)
            None if plan.below => self.threshold_point(alpha.to_f64().ln())?,
            _ => plan.at,
        };
        let Some(mut guess) = guess else { return Ok(None) };
        for round in 0..2 {
            let Some(line) = self.line(guess)? else { return Ok(None) };
            let Some(e) = line.threshold(&al.mid(), guess, false, self.digits / 2 + 8) else {
                // the line puts the threshold below 0 (the swapped pair's line, unless it was asked already)
                return if below_tried { Ok(None) } else { self.tradeoff_below_zero(alpha, &al, plan.below_guess()) };
            };
            let iv = line.tradeoff_bracket(&e, &al, self.digits, false);
            let found = e.to_f64().max(0.0);
            if round == 1 || meets(&iv, self.digits) || (iv.is_some() && line.near(guess, found)) {
                return Ok(iv.map(|iv| (iv, line.describe(), Threshold::Above(found))));
            }
            // the line was planned far from the threshold: once more at it
            guess = found;
        }
        Ok(None)
    }

    /// Planning: where f(α)'s first line goes, from the query alone (the query and the engine's price
    /// both start here). The side of 0 of the threshold: below where the swapped pair's α-quantile of the
    /// loss is above 0 ([`Composition::loss_quantile`]), else (no quantile) by the Chernoff test
    /// ([`Composition::threshold_below_zero`]). The point: below 0, on the swapped pair's line at the
    /// quantile, else at its Chernoff estimate ([`Composition::swapped_threshold_point`]); above 0, near the
    /// bulk (α ≥ 1/100) at minus the quantile where it is below 0 (for q = 0.1, σ = 0.6, T = 100 at α = 1/10
    /// the Chernoff estimate said 3.49 and the threshold is at 0.59, a line spent), else at the Chernoff
    /// estimate ([`Composition::threshold_point`]), the better guess in the far tail.
    pub(super) fn first_line(&self, alpha: &Rational) -> Fallible<FirstLine> {
        let a = alpha.to_f64();
        let quantile = self.swapped().loss_quantile(a);
        let below = quantile.map_or_else(|| self.threshold_below_zero(a.ln()), |x| x > 0.0);
        let at = match quantile {
            Some(x) if x > 0.0 => Some(x),
            _ if below => self.swapped().swapped_threshold_point((Rational::from(1) - alpha).to_f64().ln())?,
            Some(x) if x < 0.0 && near_the_bulk(a) => Some(-x),
            _ => self.threshold_point(a.ln())?,
        };
        Ok(FirstLine { below, at, quantile })
    }

    /// Planning, on the swapped pair: the threshold where its P[L > ε'] = `target`, located on a line of
    /// [`LOCATE_DIGITS`] digits at the planning's `guess` (the Chernoff estimate is 10–1,600% off there, near
    /// the bulk of the loss, and a line at full digits so far off is spent only to find that out).
    /// Also the digits f's bracket `al` falls short by on that line, where the threshold is near its point
    /// (else 0): f is a difference smaller than the δ the line certifies, so the full line lacks them too and
    /// is planned for them at once (1,000 Laplace releases at α = 1/1000: 4 digits, a line saved).
    fn located(&self, guess: f64, target: &Interval, al: &Interval) -> Fallible<Option<(f64, u32)>> {
        // (on laws whose planning values are closed forms or direct sums: on the subsampled Gaussian's the
        // estimate is near enough that the coarse line cost more than it saved, measured on MNIST, prv's
        // README and q = 0.1, σ = 0.6, T = 100 at α = 1/2, 1/10, 1/1000)
        if self.digits <= LOCATE_DIGITS || !self.exact_real() {
            return Ok(None);
        }
        let coarse = Composition { digits: LOCATE_DIGITS, ..*self };
        let Some(line) = coarse.line(guess)? else { return Ok(None) };
        let Some(e) = line.threshold(&target.mid(), guess, true, LOCATE_DIGITS) else { return Ok(None) };
        let found = e.to_f64().max(0.0);
        let short = match line.near(guess, found) {
            true => line.tradeoff_bracket(&e, al, LOCATE_DIGITS, true).and_then(|iv| shortfall(&iv, LOCATE_DIGITS)),
            false => None,
        };
        Ok(Some((found, short.filter(|s| *s < LOCATE_DIGITS).unwrap_or(0))))
    }

    /// Planning: whether the Chernoff estimate puts f(α)'s threshold below 0 (its estimate of the
    /// alternative's mass above 0 is at most α = e^`ln_a`).
    pub(super) fn threshold_below_zero(&self, ln_a: f64) -> bool {
        self.tilt(0.0).1 <= ln_a
    }

    /// Planning: the α-quantile x of the loss under this direction's first measure (A[L ≤ x] = α), by the
    /// Cornish–Fisher expansion from the loss's first three cumulants [CF37], read off ln M at three small
    /// tilts (ln M(c) = κ₁c + κ₂c²/2 + κ₃c³/6 + O(c⁴)). None where they are not finite or the variance is
    /// not positive. Under the other direction's second measure the loss is −L: there f(α)'s threshold
    /// is −x, below 0 where x > 0 (the Chernoff bound of δ(0) cannot tell that near the bulk of the loss:
    /// for α = 1/2, and for 1,000 Laplace releases at α = 1/1000, it put the threshold above 0 and a
    /// full line was spent to find it below).
    pub(super) fn loss_quantile(&self, alpha: f64) -> Option<f64> {
        let cumulants = |h: f64| -> Option<(f64, f64, f64)> {
            let (k1, k2, k3) = (self.ln_mgf(h), self.ln_mgf(2.0 * h), self.ln_mgf(3.0 * h));
            let a = (18.0 * k1 - 9.0 * k2 + 2.0 * k3) / 6.0;
            let b = (4.0 * k2 - 5.0 * k1 - k3) / 2.0;
            let d = (k3 - 3.0 * k2 + 3.0 * k1) / 6.0;
            let (m, v, t) = (a / h, 2.0 * b / (h * h), 6.0 * d / (h * h * h));
            (m.is_finite() && v > 0.0 && t.is_finite()).then_some((m, v, t))
        };
        // (the step a twentieth of a standard deviation's reciprocal: the c⁴ term small, the differences
        // well above the rounding)
        let (_, v0, _) = cumulants(1.0 / 1024.0)?;
        let h = dyadic((0.05 / v0.sqrt()).clamp(1.0 / 1048576.0, 0.25));
        let (m, v, k3) = cumulants(h)?;
        let s = v.sqrt();
        let z = if alpha < 0.5 { -normal_quantile_f64(alpha.ln()) } else { normal_quantile_f64((1.0 - alpha).ln()) };
        let x = m + s * (z + (z * z - 1.0) * k3 / (6.0 * s * s * s));
        x.is_finite().then_some(x)
    }

    /// Planning: the threshold of f(α) at or above 0, where the Chernoff estimate of δ times e^{−ε} meets
    /// α = e^`ln_a`, in its cell.
    pub(super) fn threshold_point(&self, ln_a: f64) -> Fallible<Option<f64>> {
        self.planned(Estimate::Tradeoff, |e| self.tilt(e).1 - e, ln_a)
    }

    /// Planning, on the swapped pair: where its Chernoff estimate of δ' times 1 + c (δ' − δ'' ≈ (1 + c) δ')
    /// meets 1 − α = e^`ln_b`, in its cell.
    pub(super) fn swapped_threshold_point(&self, ln_b: f64) -> Fallible<Option<f64>> {
        let est = |e: f64| {
            let (c, lb) = self.tilt(e);
            lb + (1.0 + c).ln()
        };
        self.planned(Estimate::Swapped, est, ln_b)
    }

    /// The swapped pair's composition (the other direction), at the same precision and digits.
    pub(super) fn swapped(&self) -> Composition<'_> {
        Composition { dir: self.dir.swapped(), ..*self }
    }

    /// f(α) in this direction when its threshold ε* is below 0, from the swapped pair's line at ε' = −ε*:
    /// there δ(ε) = 1 − e^ε + e^ε δ'(−ε) (δ' the swapped pair's; complements of the sets in
    /// sup_S A(S) − e^ε B(S)), so g(u) = 1 − δ(ln u) − uα = u (1 − α − δ'(ln(1/u))) for u = e^ε < 1, and
    /// the threshold solves 1 − δ'(ε') + δ''(ε') = α, i.e. (δ' − δ'')(ε') = 1 − α (δ'' the derivative).
    fn tradeoff_below_zero(
        &self,
        alpha: &Rational,
        al: &Interval,
        start: Option<Guess>,
    ) -> Fallible<Option<(Interval, String, Threshold)>> {
        let other = self.swapped();
        let beta = Rational::from(1) - alpha.clone();
        let target = Interval::from_rational(&beta, self.prec);
        let planned = match start {
            Some(Guess::Found(_)) => None,
            Some(Guess::Planned(g)) => Some(g),
            None => other.swapped_threshold_point(beta.to_f64().ln())?,
        };
        let (mut guess, short) = match (start, planned) {
            (Some(Guess::Found(g)), _) => (g, 0),
            (_, Some(g)) => other.located(g, &target, al)?.unwrap_or((g, 0)),
            (_, None) => return Ok(None),
        };
        // (the digits the coarse line showed short, as `tradeoff`'s retry would ask them)
        let other = Composition { digits: self.digits + if short > 0 { short + 2 } else { 0 }, ..other };
        for round in 0..2 {
            let Some(line) = other.line(guess)? else { return Ok(None) };
            let Some(e) = line.threshold(&target.mid(), guess, true, self.digits / 2 + 8) else { return Ok(None) };
            let iv = line.tradeoff_bracket(&e, al, self.digits, true);
            let found = e.to_f64().max(0.0);
            if round == 1 || meets(&iv, self.digits) || (iv.is_some() && line.near(guess, found)) {
                let detail = format!("{}: threshold below 0, from the swapped pair's line ({})", self.dir.as_str(), line.describe());
                return Ok(iv.map(|iv| (iv, detail, Threshold::Below(found))));
            }
            guess = found;
        }
        Ok(None)
    }
}

/// Where f(α)'s first line goes ([`Composition::first_line`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct FirstLine {
    /// whether f's threshold is below 0 (found on the swapped pair's line)
    pub(super) below: bool,
    /// the first line's point (below 0, ε' = −ε* on the swapped pair's line); None: none planned
    pub(super) at: Option<f64>,
    /// the swapped pair's α-quantile of the loss
    quantile: Option<f64>,
}

impl FirstLine {
    /// The planned guess of a threshold below 0 where the query turns there later (its own line put the
    /// threshold below 0): the quantile, where it is above 0.
    fn below_guess(&self) -> Option<Guess> {
        self.quantile.filter(|x| *x > 0.0).map(Guess::Planned)
    }
}

/// Where a line for f(α)'s threshold below 0 is planned: at a planning estimate (located first on a
/// coarse line, where that is cheap), or at a threshold found on an earlier line.
#[derive(Clone, Copy, Debug)]
enum Guess {
    Planned(f64),
    Found(f64),
}

/// Whether α is near enough the bulk (α ≥ 1/100) that the loss's quantile guesses a threshold above 0 better
/// than the Chernoff estimate (which in the far tail is the better one).
fn near_the_bulk(alpha: f64) -> bool {
    alpha >= 0.01
}

/// The digits of the line that locates f(α)'s threshold below 0 before the line at full digits.
const LOCATE_DIGITS: u32 = 6;

/// Where f(α)'s threshold was found: at ε* ≥ 0 on this direction's line, or at ε' = −ε* > 0 on the swapped
/// pair's (a planning value: a retry on finer lines starts there).
#[derive(Clone, Copy, Debug)]
enum Threshold {
    Above(f64),
    Below(f64),
}

/// The digits a bracket falls short of `digits` by, where a retry on finer lines may make them up (at most
/// 12; None where it holds nothing or is wider still).
fn shortfall(iv: &Interval, digits: u32) -> Option<u32> {
    let l = iv.log10_rel_width();
    if !l.is_finite() {
        return None;
    }
    let short = (f64::from(digits) + l).ceil();
    (1.0..=12.0).contains(&short).then_some(short as u32)
}
