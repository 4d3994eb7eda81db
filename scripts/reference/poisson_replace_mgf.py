#!/usr/bin/env python3
"""Reference values of the moment generating function of the Poisson-subsampled Gaussian's replace-one
privacy loss on vertical lines, M(c + it) (src/noise/mgf_replace.rs), by mpmath's adaptive tanh-sinh
quadrature at 40 digits, independently of tightdp. The pair in standard units (mu = 1/sigma, sensitivity 1):

  A = q N(-mu, 1) + (1 - q) N(0, 1),    B = q N(mu, 1) + (1 - q) N(0, 1),

its loss L = ln(A/B) under A, and M(s) = E_A[exp(s L)] = int A(z)^(1 + s) B(z)^(-s) dz, integrated over the
data z directly (no change of variable, no ratio to the normal density). The pair is its own mirror, so the
same values serve both directions. The integral is split where the integrand's scale changes, and mpmath's own
error estimate is printed beside each value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/poisson_replace_mgf.py > scripts/reference/poisson_replace_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, sqrt, pi, quad, nstr

mp.dps = 40


def density(z, m):
    return exp(-(z - m) ** 2 / 2) / sqrt(2 * pi)


def mgf(q, sigma, c, t):
    q = mpf(q.numerator) / q.denominator
    sigma = mpf(sigma.numerator) / sigma.denominator
    mu = 1 / sigma
    s = mpc(c, t)

    def f(z):
        a = q * density(z, -mu) + (1 - q) * density(z, 0)
        b = q * density(z, mu) + (1 - q) * density(z, 0)
        return exp((1 + s) * log(a) - s * log(b))

    reach = 40 + 3 * (1 + abs(c)) * mu
    pts = [-reach, -20, -10, -5, -2, 0, 2, 5, 10, 20, 40]
    v, err = quad(f, pts, error=True, maxdegree=10)
    return v, err


CASES = [
    (Fraction(1, 100), Fraction(11, 10), Fraction(3, 2), 0),
    (Fraction(1, 100), Fraction(11, 10), Fraction(3, 2), 3),
    (Fraction(1, 100), Fraction(11, 10), Fraction(3, 2), 40),
    (Fraction(1, 5), Fraction(4, 5), Fraction(7, 10), 0),
    (Fraction(1, 5), Fraction(4, 5), Fraction(7, 10), 5),
    (Fraction(1, 10), Fraction(3, 5), Fraction(1, 4), 11),
    (Fraction(1, 2), Fraction(1, 1), Fraction(2, 1), 2),
    (Fraction(1, 10), Fraction(2, 1), Fraction(0, 1), 7),
]

print("# q sigma c t re im quad_error")
for q, sigma, c, t in CASES:
    v, err = mgf(q, sigma, mpf(c.numerator) / c.denominator, t)
    print(q, sigma, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
