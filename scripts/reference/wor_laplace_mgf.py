#!/usr/bin/env python3
"""Reference values of the moment generating function of the privacy loss of the Laplace mechanism on
fixed-size batches (sampling without replacement, replace neighbours) on vertical lines, M(c + it)
(src/noise/mgf_wor.rs, Laplace), by mpmath's adaptive tanh-sinh quadrature at 40 digits, independently of
tightdp.

The law is [DRS22, Thm 9]'s symmetrisation of the Poisson Remove pair (src/noise/wor.rs, (2)) over the data z:

  A_R = (1 - g) Lap(0, b) + g Lap(D, b),   B_R = Lap(0, b),   L_R = ln(A_R/B_R),
  M(s) = atom + int_{L_R > 0} A_R^(1+s) B_R^(-s) dz + int_{L_R > 0} A_R^(-s) B_R^(1+s) dz,

the point z0 where L_R changes sign by findroot, the atom as 1 minus the two masses above z0 (quadratures of
the densities), the integrals split at the densities' kinks (0 and D). mpmath's error estimates are printed
beside each value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/wor_laplace_mgf.py > scripts/reference/wor_laplace_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, quad, nstr, findroot, inf

mp.dps = 40


def lap(z, m, b):
    return exp(-abs(z - m) / b) / (2 * b)


def mgf(g, b, d, c, t):
    g = mpf(g.numerator) / g.denominator
    b = mpf(b.numerator) / b.denominator
    d = mpf(d.numerator) / d.denominator
    s = mpc(c, t)

    def a_r(z):
        return (1 - g) * lap(z, 0, b) + g * lap(z, d, b)

    def b_r(z):
        return lap(z, 0, b)

    z0 = findroot(lambda z: log(a_r(z)) - log(b_r(z)), d / 3)
    pts = [z0, d, d + b, d + 5 * b, d + 20 * b, d + 80 * b * (1 + abs(c)), inf]
    atom = 1 - quad(a_r, pts) - quad(b_r, pts)
    up, e1 = quad(lambda z: exp((1 + s) * log(a_r(z)) - s * log(b_r(z))), pts, error=True, maxdegree=10)
    down, e2 = quad(lambda z: exp(-s * log(a_r(z)) + (1 + s) * log(b_r(z))), pts, error=True, maxdegree=10)
    return atom + up + down, e1 + e2


CASES = [
    (Fraction(1, 10), Fraction(1, 1), Fraction(1, 1), Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1, 1), Fraction(1, 1), Fraction(3, 2), 3),
    (Fraction(1, 10), Fraction(1, 1), Fraction(1, 1), Fraction(3, 2), 25),
    (Fraction(256, 60000), Fraction(1, 2), Fraction(1, 1), Fraction(4, 1), 0),
    (Fraction(256, 60000), Fraction(1, 2), Fraction(1, 1), Fraction(4, 1), 60),
    (Fraction(1, 2), Fraction(2, 1), Fraction(1, 1), Fraction(1, 4), 7),
    (Fraction(3, 10), Fraction(1, 1), Fraction(2, 1), Fraction(7, 10), 5),
    (Fraction(1, 100), Fraction(1, 3), Fraction(1, 1), Fraction(0, 1), 9),
]

print("# gamma scale sens c t re im quad_error")
for g, b, d, c, t in CASES:
    v, err = mgf(g, b, d, mpf(c.numerator) / c.denominator, t)
    print(g, b, d, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
