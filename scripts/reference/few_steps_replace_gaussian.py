#!/usr/bin/env python3
"""Reference delta(epsilon) of T = 2 Poisson-subsampled Gaussian releases under replace-one neighbours, for
the tilted Fourier engine's few-step lines (src/account/engines/tilted_tests.rs), by mpmath at 32 digits in
the data space -- no characteristic function, no Fourier inversion, no grid.

The pair, in the mirrored variable x of src/noise/mgf_replace.rs: A = (1 - q) N(0, 1) + q N(mu, 1) and
B = (1 - q) N(0, 1) + q N(-mu, 1) (mu = 1/sigma), with loss l(x) = ln r(x) - ln r(-x), r(x) = 1 - q +
q exp(mu x - mu^2/2), increasing from -inf to +inf and analytic. The pair is its own mirror (one direction).
One release's delta at any real e is a closed form at the root x*(e) of l(x) = e (mpmath's findroot):

  delta_1(e) = A[x > x*] - e^e B[x > x*],  A[x > a] = (1 - q) Phi(-a) + q Phi(mu - a),
                                           B[x > a] = (1 - q) Phi(-a) + q Phi(-mu - a),

and two releases condition on the first: delta_2(e) = E_A[delta_1(e - l(x))], one tanh-sinh quadrature. Its pieces
at -6, 0, 6 hold the rows below (sigma = 1: 25 digits against tightdp's brackets); at sigma = 1/2 the integrand
turns faster and they miss by 6e-6 relative, so few_steps_truncated_gaussian.py integrates on pieces of 1/4 and 1/8.
Run: python3 scripts/reference/few_steps_replace_gaussian.py > scripts/reference/few_steps_replace_gaussian.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, sqrt, pi, quad, ncdf, nstr, inf, findroot

mp.dps = 32


def delta2(q, sigma, e):
    mu = 1 / sigma

    def r(x):
        return 1 - q + q * exp(mu * x - mu * mu / 2)

    def ell(x):
        return log(r(x)) - log(r(-x))

    def xstar(v):
        # l(x) - mu x is bounded (its limits are +-(mu^2/2 + ln((1 - q)/q))): l(x) - v changes sign on the bracket
        return findroot(lambda x: ell(x) - v, (v / mu - 60, v / mu + 60), solver="anderson")

    def d1(v):
        a = xstar(v)
        pa = (1 - q) * ncdf(-a) + q * ncdf(mu - a)
        pb = (1 - q) * ncdf(-a) + q * ncdf(-mu - a)
        return pa - exp(v) * pb

    density = lambda x: ((1 - q) * exp(-x * x / 2) + q * exp(-(x - mu) ** 2 / 2)) / sqrt(2 * pi)
    return quad(lambda x: density(x) * d1(e - ell(x)), [-inf, -6, 0, 6, inf])


CASES = [
    (Fraction(1, 10), Fraction(1), 2, Fraction(1, 2)),
    (Fraction(1, 5), Fraction(1), 2, Fraction(1)),
]

if __name__ == "__main__":
    print("# q sigma T epsilon delta (replace-one, mpmath, 32 digits, data-space quadrature)")
    for q, sigma, T, e in CASES:
        qq, ss, ee = (mpf(v.numerator) / v.denominator for v in (q, sigma, e))
        print(q, sigma, T, e, nstr(delta2(qq, ss, ee), 26, min_fixed=0, max_fixed=0), flush=True)
