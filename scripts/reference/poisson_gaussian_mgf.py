#!/usr/bin/env python3
"""Reference values of the moment generating function of the Poisson-subsampled Gaussian's privacy loss on
vertical lines, M(c + it) (src/noise/mgf.rs), by mpmath's adaptive tanh-sinh quadrature at 40 digits,
independently of tightdp: with phi the standard normal density, mu = 1/sigma (sensitivity 1),
r(x) = 1 - q + q exp(mu x - mu^2/2),

  Remove: M(s) = int phi(x) r(x)^(1 + s) dx,    Add: M(s) = int phi(x) r(x)^(-s) dx.

The integral is split at the points where the integrand's scale changes, and mpmath's own error estimate is
printed beside each value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/poisson_gaussian_mgf.py > scripts/reference/poisson_gaussian_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, sqrt, pi, quad, nstr

mp.dps = 40


def mgf(q, sigma, direction, c, t):
    q = mpf(q.numerator) / q.denominator
    sigma = mpf(sigma.numerator) / sigma.denominator
    mu = 1 / sigma
    s = mpc(c, t)
    kappa = 1 + s if direction == "remove" else -s

    def f(x):
        r = 1 - q + q * exp(mu * x - mu * mu / 2)
        return exp(-x * x / 2) / sqrt(2 * pi) * exp(kappa * log(r))

    pts = [-40, -20, -10, -5, -2, 0, 2, 5, 10, 20, 40 + 3 * abs(kappa.real) * mu]
    v, err = quad(f, pts, error=True, maxdegree=10)
    return v, err


CASES = [
    (Fraction(1, 100), Fraction(11, 10), "remove", Fraction(3, 2), 0),
    (Fraction(1, 100), Fraction(11, 10), "remove", Fraction(3, 2), 3),
    (Fraction(1, 100), Fraction(11, 10), "remove", Fraction(3, 2), 40),
    (Fraction(1, 100), Fraction(11, 10), "add", Fraction(3, 2), 3),
    (Fraction(1, 100), Fraction(11, 10), "add", Fraction(3, 2), 40),
    (Fraction(1, 5), Fraction(4, 5), "remove", Fraction(7, 10), 5),
    (Fraction(1, 5), Fraction(4, 5), "add", Fraction(7, 10), 5),
    (Fraction(1, 10), Fraction(3, 5), "remove", Fraction(1, 4), 11),
    (Fraction(1, 10), Fraction(3, 5), "add", Fraction(1, 4), 11),
]

print("# q sigma direction c t re im quad_error")
for q, sigma, d, c, t in CASES:
    v, err = mgf(q, sigma, d, mpf(c.numerator) / c.denominator, t)
    print(q, sigma, d, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
