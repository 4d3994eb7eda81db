#!/usr/bin/env python3
"""Reference values of the moment generating function of the privacy loss of the Gaussian mechanism on
fixed-size batches (sampling without replacement, replace neighbours) on vertical lines, M(c + it)
(src/noise/mgf_wor.rs), by mpmath's adaptive tanh-sinh quadrature at 40 digits, independently of tightdp.

The law is [DRS22, Thm 9]'s symmetrisation C_gamma(f) of the Poisson Remove pair (src/noise/wor.rs, (2)),
in standard units (noise 1, the replace sensitivity m = mu/sigma):

  A_R = (1 - g) N(0, 1) + g N(m, 1),   B_R = N(0, 1),   L_R = ln(A_R/B_R),
  A*[L in S] = A_R[L_R in S] (S > 0),  A*[L = -u] = B_R[L_R = u] (u > 0),  A*[L = 0] = what remains,

so M(s) = E_{A*}[e^{sL}] = atom + int_{L_R > 0} A_R(z)^(1+s) B_R(z)^(-s) dz + int_{L_R > 0} A_R(z)^(-s) B_R(z)^(1+s) dz.
Everything is computed over the data z from the two densities: the point z0 where L_R changes sign by
findroot, the atom as 1 minus the two masses above z0 (each a quadrature of a density). mpmath's error
estimates are printed beside each value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/wor_gauss_mgf.py > scripts/reference/wor_gauss_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, sqrt, pi, quad, nstr, findroot, inf

mp.dps = 40


def density(z, m):
    return exp(-(z - m) ** 2 / 2) / sqrt(2 * pi)


def mgf(g, sigma, sens, c, t):
    g = mpf(g.numerator) / g.denominator
    m = (mpf(sens.numerator) / sens.denominator) / (mpf(sigma.numerator) / sigma.denominator)
    s = mpc(c, t)

    def a_r(z):
        return (1 - g) * density(z, 0) + g * density(z, m)

    def b_r(z):
        return density(z, 0)

    z0 = findroot(lambda z: log(a_r(z)) - log(b_r(z)), m / 3)
    reach = 40 + 3 * (1 + abs(c)) * m
    pts = [z0] + [z0 + d for d in (1, 2, 5, 10, 20, 40, reach)]
    atom = 1 - quad(a_r, [z0, inf]) - quad(b_r, [z0, inf])
    up, e1 = quad(lambda z: exp((1 + s) * log(a_r(z)) - s * log(b_r(z))), pts, error=True, maxdegree=10)
    down, e2 = quad(lambda z: exp(-s * log(a_r(z)) + (1 + s) * log(b_r(z))), pts, error=True, maxdegree=10)
    return atom + up + down, e1 + e2


CASES = [
    (Fraction(1, 10), Fraction(1, 1), Fraction(2, 1), Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1, 1), Fraction(2, 1), Fraction(3, 2), 3),
    (Fraction(1, 10), Fraction(1, 1), Fraction(2, 1), Fraction(3, 2), 25),
    (Fraction(256, 60000), Fraction(11, 10), Fraction(2, 1), Fraction(4, 1), 0),
    (Fraction(256, 60000), Fraction(11, 10), Fraction(2, 1), Fraction(4, 1), 60),
    (Fraction(1, 2), Fraction(2, 1), Fraction(2, 1), Fraction(1, 4), 7),
    (Fraction(3, 10), Fraction(3, 5), Fraction(1, 1), Fraction(7, 10), 5),
    (Fraction(1, 100), Fraction(1, 2), Fraction(2, 1), Fraction(0, 1), 9),
]

print("# gamma sigma sens c t re im quad_error")
for g, sigma, sens, c, t in CASES:
    v, err = mgf(g, sigma, sens, mpf(c.numerator) / c.denominator, t)
    print(g, sigma, sens, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
