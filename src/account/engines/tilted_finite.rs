//! Stated (ε, δ) guarantees beside continuous laws on the tilted engine: the composition given that no loss
//! is infinite, inverted by [`answer_finite`], and its answers carried back through K, the exact chance of
//! no infinite loss.

use super::*;

/// Most bits of the exact rational K = Π (1 − δᵢ)^{nᵢ} of [`finite_laws`] (10,000 stated guarantees of a δ with a
/// 24-bit denominator: 480,000).
const MAX_KEEP_BITS: f64 = 1e6;

/// The composition given that no loss is infinite: each stated (ε, δ) guarantee replaced by its pure part
/// ([`LossLaw::finite_part`]), and the probability K = Π (1 − δᵢ)^{nᵢ} of that (1 if none), exact. None: K's
/// rational beyond [`MAX_KEEP_BITS`].
pub(super) fn finite_laws(laws: &[(Arc<dyn LossLaw>, u64)]) -> Option<(Vec<(Arc<dyn LossLaw>, u64)>, Rational)> {
    let mut keep = Rational::from(1);
    let mut bits = 0f64;
    let mut out = Vec::with_capacity(laws.len());
    for (l, n) in laws {
        match l.finite_part() {
            Some((f, k)) => {
                bits += f64::from(k.numer().significant_bits() + k.denom().significant_bits()) * *n as f64;
                if bits > MAX_KEEP_BITS {
                    return None;
                }
                keep *= Rational::from(rug::ops::Pow::pow(&k, u32::try_from(*n).ok()?));
                out.push((f, *n));
            }
            None => out.push((Arc::clone(l), *n)),
        }
    }
    Some((out, keep))
}

/// The accountant's ε(δ), δ(ε) or f(α) (None: a law without a moment generating function, or beyond the work
/// cap), from the composition's state `lines`. Stated (ε, δ) guarantees enter by their pure parts: with K the
/// chance of no infinite loss and δ_f, f_f the profile and trade-off function given none, both directions
/// have δ(ε) = 1 − K + K δ_f(ε) (E_A[(1 − e^{ε−L})₊] splits on L = +∞), so ε(δ) = ε_f(1 − (1 − δ)/K) and
/// f(α) = sup_ε [K(1 − δ_f(ε)) − e^ε α] = K f_f(α/K) (0 for α ≥ K); each keeps the relative width of its
/// part's bracket.
pub(super) fn answer(lines: &Lines, laws: &[(Arc<dyn LossLaw>, u64)], q: Query, digits: u32, trust: Trust) -> Fallible<Option<Certified>> {
    let Some((laws, keep)) = finite_laws(laws) else { return Ok(None) };
    if keep == 1 {
        return answer_finite(lines, &laws, q, digits, trust);
    }
    let one = Rational::from(1);
    let k_str = crate::num::format::fmt_nearest(&rug::Float::with_val(64, &keep), 12);
    let given = |c: Certified, iv: Interval| -> Fallible<Option<Certified>> {
        let detail = format!("{}; given no infinite loss, of probability K = {k_str}…", c.detail());
        Certified::new(iv, Engine::Tilted, trust, detail).map(Some)
    };
    match q {
        Query::Delta(_) => {
            let Some(c) = answer_finite(lines, &laws, q, digits, trust)? else { return Ok(None) };
            let p = c.interval().prec().max(64);
            let k = Interval::from_rational(&keep, p + 32);
            let iv = Interval::one(p).sub(&k.mul(&Interval::one(p).sub(&c.interval()))).clamp_unit();
            given(c, iv)
        }
        Query::Epsilon(d) => {
            let d_f = one.clone() - (one - d.clone()) / keep.clone();
            if d_f <= 0 {
                return Ok(None);
            }
            let Some(c) = answer_finite(lines, &laws, Query::Epsilon(&d_f), digits, trust)? else { return Ok(None) };
            let iv = c.interval();
            given(c, iv)
        }
        Query::Tradeoff(a) => {
            if *a >= keep {
                return Certified::new(
                    Interval::zero(64),
                    Engine::Tilted,
                    trust,
                    "alpha at least the chance K of no infinite loss: f = 0".to_string(),
                )
                .map(Some);
            }
            let a_f = a.clone() / keep.clone();
            let Some(c) = answer_finite(lines, &laws, Query::Tradeoff(&a_f), digits, trust)? else { return Ok(None) };
            let p = c.interval().prec().max(64);
            let iv = c.interval().mul(&Interval::from_rational(&keep, p + 32));
            given(c, iv)
        }
    }
}
