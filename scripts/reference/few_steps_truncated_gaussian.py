#!/usr/bin/env python3
"""Reference delta(epsilon) of T = 2 releases of the Gaussian mechanism on truncated Poisson batches (dp_accounting's
TruncatedSubsampledGaussianDpEvent, add/remove neighbours, each direction), for the tilted Fourier engine's
mixture decay bound (src/account/engines/tilted_tests.rs), by mpmath at 32 digits in the data space -- no
characteristic function, no Fourier inversion, no grid.

The pair is dp_accounting's from_truncated_subsampled_gaussian_mechanism: a branch-revealing mixture, with
probability t = P[Bin(N - 1, q) >= B] the replace-one pair of the Gaussian with standard deviation sigma/2 on a
Poisson sample with probability q' = P[Bin(N, q) > B] B/(t N) ("cut"), else the Poisson-subsampled Gaussian
under add/remove ("plain"). t and q' are exact rationals here (Fraction binomial sums). A revealed branch
is part of the output, so two releases are the mixture of the four branch patterns:

  delta_2(e) = (1 - t)^2 d_pp(e) + 2 t (1 - t) d_pc(e) + t^2 d_cc(e),

d_pp the plain pair's two releases (few_steps_subsampled_gaussian.py), d_cc the cut pair's
(as few_steps_replace_gaussian.py), and d_pc(e) = E[d_cut(e - L_plain)] over the plain release's loss under the
direction's measure (remove: P = phi r, loss l(x); add: Q = phi, loss -l(x)), d_cut one cut release's closed
form at the root of its loss (the cut pair is symmetric: one law for both directions). The integrands are
analytic (the cut loss is), but at sigma/2 they turn within a fraction of a unit: few_steps_replace_gaussian.py's
split at -6, 0, 6 misses the cut pair's two releases by 6e-6 relative here, so both integrals below split
[-12, 14] into pieces of 1/4 and again of 1/8 (tanh-sinh on each), and the two must agree to 1e-23 relative
(pieces of 1/2 and 1/4 differ by 3e-22).
Run: python3 scripts/reference/few_steps_truncated_gaussian.py > scripts/reference/few_steps_truncated_gaussian.txt"""
import os
import sys
from fractions import Fraction
from math import comb

from mpmath import mp, mpf, exp, log, sqrt, pi, quad, ncdf, nstr, inf, findroot, linspace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import few_steps_subsampled_gaussian as plainref  # noqa: E402

mp.dps = 32


def tail(n, q, k):
    """P[Bin(n, q) >= k], exactly."""
    return sum(comb(n, j) * q**j * (1 - q) ** (n - j) for j in range(k, n + 1))


def branches(q, records, batch):
    t = tail(records - 1, q, batch)
    q_cut = tail(records, q, batch + 1) * batch / (t * records)
    return t, q_cut


def mp_of(f):
    return mpf(f.numerator) / f.denominator


def cut_release(q, sigma):
    """One release of the replace pair: its loss and its delta at any real argument (few_steps_replace_gaussian)."""
    mu = 1 / sigma

    def r(x):
        return 1 - q + q * exp(mu * x - mu * mu / 2)

    def ell(x):
        return log(r(x)) - log(r(-x))

    def d1(v):
        a = findroot(lambda x: ell(x) - v, (v / mu - 60, v / mu + 60), solver="anderson")
        pa = (1 - q) * ncdf(-a) + q * ncdf(mu - a)
        pb = (1 - q) * ncdf(-a) + q * ncdf(-mu - a)
        return pa - exp(v) * pb

    return d1


def fine_quad(f):
    """The integral of f over the line, on pieces of 1/4 and of 1/8 of [-12, 14], which must agree."""
    a, b = (quad(f, [-inf] + list(linspace(-12, 14, k)) + [inf]) for k in (105, 209))
    assert abs(a - b) <= mpf(10) ** -23 * abs(b), (a, b)
    print("# pieces agree to", nstr(abs(a - b) / abs(b), 2), file=sys.stderr)
    return b


def delta2(q, sigma, records, batch, e, direction):
    t, q_cut = branches(q, records, batch)
    t, q_cut, qq, ss = mp_of(t), mp_of(q_cut), mp_of(q), mp_of(sigma)
    d_pp = plainref.delta(qq, ss, 2, e, direction)
    d_cut = cut_release(q_cut, ss / 2)
    # the cut pair's two releases (few_steps_replace_gaussian.py's delta2, on the finer pieces)
    mu_c = 2 / ss
    r_c = lambda x: 1 - q_cut + q_cut * exp(mu_c * x - mu_c * mu_c / 2)
    ell_c = lambda x: log(r_c(x)) - log(r_c(-x))
    dens_c = lambda x: ((1 - q_cut) * exp(-x * x / 2) + q_cut * exp(-((x - mu_c) ** 2) / 2)) / sqrt(2 * pi)
    d_cc = fine_quad(lambda x: dens_c(x) * d_cut(e - ell_c(x)))
    _, _, ell, _, _ = plainref.law(qq, ss)
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)
    if direction == "remove":
        d_pc = fine_quad(lambda x: phi(x) * exp(ell(x)) * d_cut(e - ell(x)))
    else:
        d_pc = fine_quad(lambda x: phi(x) * d_cut(e + ell(x)))
    return (1 - t) ** 2 * d_pp + 2 * t * (1 - t) * d_pc + t**2 * d_cc


CASES = [
    # q, sigma, records N, batch B, T, epsilon
    (Fraction(1, 10), Fraction(1), 100, 15, 2, Fraction(3)),
    (Fraction(1, 10), Fraction(1), 100, 12, 2, Fraction(4)),
]

if __name__ == "__main__":
    print("# q sigma records batch T epsilon delta_remove delta_add (mpmath, 32 digits, data-space quadrature)")
    for q, sigma, records, batch, T, e in CASES:
        ee = mp_of(e)
        r = delta2(q, sigma, records, batch, ee, "remove")
        a = delta2(q, sigma, records, batch, ee, "add")
        print(q, sigma, records, batch, T, e, nstr(r, 26, min_fixed=0, max_fixed=0), nstr(a, 26, min_fixed=0, max_fixed=0), flush=True)
