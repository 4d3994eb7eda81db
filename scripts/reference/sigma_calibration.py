#!/usr/bin/env python3
"""Reference for the noise-multiplier calibration (src/calibrate/sigma.rs tests), mpmath at 34 digits,
from the definition and not from tightdp's formulas: n Gaussian releases of sensitivity 1 and standard
deviation sigma are one Gaussian of sensitivity sqrt(n); its delta(eps) is E_A[(1 - e^{eps - L})_+] with
A = N(m, s2), L(x) = (2 m x - m^2)/(2 s2), integrated numerically (mp.quad) over x; eps(delta) by bisection
on that integral. The answer is the smallest sigma = k * res with eps(delta) <= target, found by bisection on k
(eps decreases in sigma); printed with eps at sigma and at sigma - res.
Run: python3 scripts/reference/sigma_calibration.py > scripts/reference/sigma_calibration.txt"""
from mpmath import mp, mpf, quad, exp, sqrt, pi, inf

mp.dps = 34


def delta_of(s2, m, eps):
    x0 = (eps + m * m / (2 * s2)) * s2 / m
    dens = lambda x: exp(-(x - m) ** 2 / (2 * s2)) / sqrt(2 * pi * s2)
    L = lambda x: (2 * m * x - m * m) / (2 * s2)
    sd = sqrt(s2)
    # breakpoints where the integrand lives: from x0, and around the mean m however narrow the density
    pts = sorted(set([x0] + [p for p in (m - 8 * sd, m - 2 * sd, m, m + 2 * sd, m + 8 * sd, x0 + 5 * sd, x0 + 40 * sd) if p > x0]))
    return quad(lambda x: dens(x) * (1 - exp(eps - L(x))), pts + [inf])


def eps_of(sigma, n, delta):
    s2, m = mpf(sigma) ** 2, sqrt(mpf(n))
    lo, hi = mpf(0), mpf(1)
    while delta_of(s2, m, hi) > delta:
        hi *= 2
    for _ in range(95):  # delta(eps) decreases in eps: 2^-95 of the start
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_of(s2, m, mid) > delta else (lo, mid)
    return (lo + hi) / 2


cases = [(1, "1e-5", 1, "0.001"), (10, "1e-5", 2, "0.001"), (100, "1e-6", 3, "0.01"), (1000, "1e-10", 5, "0.0001")]
print("# n delta target res sigma eps_at_sigma eps_at_sigma_minus_res")
for n, d, target, res in cases:
    r, dl = mpf(res), mpf(d)
    # bisection on k: eps(k * res) <= target exactly for k >= the answer (eps decreases in sigma)
    lo, hi = 1, 2
    while eps_of(hi * r, n, dl) > target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if eps_of(mid * r, n, dl) > target else (lo, mid)
    k = hi
    print(n, d, target, res, mp.nstr(k * r, 15), mp.nstr(eps_of(k * r, n, dl), 25), mp.nstr(eps_of((k - 1) * r, n, dl), 25))
