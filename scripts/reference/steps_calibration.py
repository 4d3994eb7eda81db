#!/usr/bin/env python3
"""The largest number of steps n of the Gaussian mechanism (sensitivity 1, standard deviation sigma, add/remove)
whose composition meets a target epsilon at delta, for `calibrate --mech gauss:sigma=S,n=?`
(src/calibrate/steps.rs). n releases are one Gaussian of mu = sqrt(n)/sigma, whose profile is
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)        [BW18, Thm. 8]
(mpmath, 50 digits); epsilon(delta) by bisection on eps; n by bisection on the integers. Printed: sigma,
delta, target, n, epsilon at n and at n + 1 (30 digits).
Run (Python with mpmath): python3 scripts/reference/steps_calibration.py > scripts/reference/steps_calibration.txt
"""
from mpmath import mp, mpf, ncdf, exp, sqrt, nstr

mp.dps = 50


def delta(mu, eps):
    return ncdf(-eps / mu + mu / 2) - exp(eps) * ncdf(-eps / mu - mu / 2)


def epsilon(mu, d):
    lo, hi = mpf(0), mpf(1)
    while delta(mu, hi) > d:
        hi *= 2
    if delta(mu, lo) <= d:
        return lo
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta(mu, mid) > d:
            lo = mid
        else:
            hi = mid
    return hi


def largest(sigma, d, target):
    eps = lambda n: epsilon(sqrt(n) / sigma, d)
    lo, hi = 1, 2
    assert eps(lo) <= target
    while eps(hi) <= target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eps(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo, eps(lo), eps(lo + 1)


print("# sigma delta target n epsilon(n) epsilon(n+1)   (Gaussian, add/remove, mpmath 50 digits)")
for sigma, d, target in [("1", "1e-5", "10"), ("2", "1e-6", "6"), ("10", "1e-10", "1"), ("0.8", "1e-5", "8"), ("10", "1e-5", "8"), ("100", "1e-10", "2")]:
    n, a, b = largest(mpf(sigma), mpf(d), mpf(target))
    print(sigma, d, target, n, nstr(a, 30), nstr(b, 30))
