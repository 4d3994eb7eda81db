#!/usr/bin/env python3
"""Reference delta(epsilon) of T Poisson-subsampled Gaussian releases under add/remove neighbours (the larger of the
two directions), for the tilted Fourier engine (src/account/engines/tilted.rs), by mpmath at 30 digits and
independently of tightdp's discretisation: the inversion integral itself, not a trapezoidal sum (about 8 minutes),

  delta(e) = (e^(-c e)/pi) int_0^inf Re[ M(c + it)^T e^(-it e) / ((c + it)(c + 1 + it)) ] dt     (any c > 0)

with M(s) = int phi(x) r(x)^(1+s) dx (remove) or int phi(x) r(x)^(-s) dx (add), r(x) = 1 - q + q exp(x/sigma -
1/(2 sigma^2)), every integral by mpmath's adaptive tanh-sinh quadrature (quad), the outer one split where
|M|^T falls. The tilt is c = 1 here (the engine chooses its own).
Run: python3 scripts/reference/poisson_gaussian_delta.py > scripts/reference/poisson_gaussian_delta.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, sqrt, pi, quad, nstr

mp.dps = 30


def mgf(q, mu, direction, s):
    kappa = 1 + s if direction == "remove" else -s

    def f(x):
        r = 1 - q + q * exp(mu * x - mu * mu / 2)
        return exp(-x * x / 2) / sqrt(2 * pi) * exp(kappa * log(r))

    return quad(f, [-30, -10, -4, 0, 4, 10, 30 + 3 * abs(kappa.real) * mu])


def delta(q, sigma, T, e, direction, c=mpf(1)):
    q = mpf(q.numerator) / q.denominator
    mu = 1 / (mpf(sigma.numerator) / sigma.denominator)
    e = mpf(e.numerator) / e.denominator

    def g(t):
        s = mpc(c, t)
        return (mgf(q, mu, direction, s) ** T * exp(-mpc(0, t) * e) / (s * (s + 1))).real

    pts = [0, 0.5, 1, 2, 4, 8, 16, 32, 64]
    return exp(-c * e) / pi * quad(g, pts)


CASES = [
    (Fraction(1, 2), Fraction(2), 40, Fraction(1)),
    (Fraction(1, 4), Fraction(1), 40, Fraction(2)),
]

if __name__ == "__main__":
    print("# q sigma T epsilon delta_remove delta_add delta (the larger)")
    for q, sigma, T, e in CASES:
        r = delta(q, sigma, T, e, "remove")
        a = delta(q, sigma, T, e, "add")
        print(q, sigma, T, e, nstr(r, 28, min_fixed=0, max_fixed=0), nstr(a, 28, min_fixed=0, max_fixed=0), nstr(max(r, a), 28, min_fixed=0, max_fixed=0))
