#!/usr/bin/env python3
"""Reference values of the moment generating function of the Poisson-subsampled Laplace mechanism's privacy
loss (add/remove neighbours) on vertical lines, M(c + it) (src/noise/mgf_laplace_sub.rs), by mpmath's adaptive
tanh-sinh quadrature at 40 digits over the data, independently of tightdp. Sensitivity 1, scale b:

  B = Lap(0, b),  A = (1 - q) Lap(0, b) + q Lap(1, b),
  remove: M(s) = int A(x) (A(x)/B(x))^s dx,    add: M(s) = int B(x) (B(x)/A(x))^s dx;

and the replace-one pair (dp_accounting's REPLACE pair, its own mirror: one direction)

  A = q Lap(-1, b) + (1 - q) Lap(0, b),  B = q Lap(1, b) + (1 - q) Lap(0, b),  M(s) = int A (A/B)^s dx.

The integral is split at the kinks -1, 0 and 1 of the densities; mpmath's own error estimate is printed beside each
value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/poisson_laplace_mgf.py > scripts/reference/poisson_laplace_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, quad, nstr, inf

mp.dps = 40


def lap(x, m, b):
    return exp(-abs(x - m) / b) / (2 * b)


def mgf(q, b, direction, c, t):
    q = mpf(q.numerator) / q.denominator
    b = mpf(b.numerator) / b.denominator
    s = mpc(c, t)

    def f(x):
        if direction == "replace":
            pa = q * lap(x, -1, b) + (1 - q) * lap(x, 0, b)
            pb = q * lap(x, 1, b) + (1 - q) * lap(x, 0, b)
            return pa * exp(s * (log(pa) - log(pb)))
        pb = lap(x, 0, b)
        pa = (1 - q) * pb + q * lap(x, 1, b)
        if direction == "remove":
            return pa * exp(s * (log(pa) - log(pb)))
        return pb * exp(s * (log(pb) - log(pa)))

    v, err = quad(f, [-inf, -1 - 10 * b, -1, -mpf(1) / 2, 0, mpf(1) / 2, 1, 1 + 10 * b, inf], error=True, maxdegree=10)
    return v, err


CASES = [
    (Fraction(1, 10), Fraction(1), "remove", Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1), "remove", Fraction(3, 2), 7),
    (Fraction(1, 10), Fraction(1), "add", Fraction(3, 2), 7),
    (Fraction(1, 100), Fraction(1, 2), "remove", Fraction(2), 30),
    (Fraction(1, 100), Fraction(1, 2), "add", Fraction(2), 30),
    (Fraction(1, 4), Fraction(3), "remove", Fraction(1, 4), 100),
    (Fraction(1, 4), Fraction(3), "add", Fraction(1, 4), 100),
    (Fraction(1, 2), Fraction(1, 5), "add", Fraction(7, 10), 3),
    (Fraction(1, 10), Fraction(1), "replace", Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1), "replace", Fraction(3, 2), 7),
    (Fraction(1, 100), Fraction(1, 2), "replace", Fraction(2), 30),
    (Fraction(1, 4), Fraction(3), "replace", Fraction(1, 4), 100),
]

print("# q scale direction c t re im quad_error")
for q, b, d, c, t in CASES:
    v, err = mgf(q, b, d, mpf(c.numerator) / c.denominator, t)
    print(q, b, d, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
