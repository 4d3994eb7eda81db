#!/usr/bin/env python3
"""Independent reference for the pld grid's trade-off function (account/laws.rs, account/gridprofile.rs): one
Poisson-subsampled Gaussian release (sampling probability q, noise N(0, s2), sensitivity 1), by the
Neyman-Pearson lemma in mpmath (50 digits), not by tightdp.

Both neighbouring directions have a monotone likelihood ratio in the output x, so the optimal tests are
thresholds. Remove (A = (1-q)N(0) + qN(1) holds the record, B = N(0)): reject when x >= t,
alpha = Q(t/s), beta = (1-q)Phi(t/s) + q Phi((t-1)/s). Add (A = N(0), B = (1-q)N(0) + qN(1)): reject when
x <= t, alpha = (1-q)Phi(t/s) + q Phi((t-1)/s), beta = Q(t/s). f(alpha) of the mechanism under add/remove
is the smaller of the two (the worse direction). Run with $VENV/bin/python; output in
subsampled_gaussian_tradeoff.txt.
"""
from mpmath import mp, mpf, ncdf, findroot, sqrt

mp.dps = 50


def f_remove(q, s2, alpha):
    s = sqrt(s2)
    t = findroot(lambda t: 1 - ncdf(t / s) - alpha, mpf(0))
    return (1 - q) * ncdf(t / s) + q * ncdf((t - 1) / s)


def f_add(q, s2, alpha):
    s = sqrt(s2)
    t = findroot(lambda t: (1 - q) * ncdf(t / s) + q * ncdf((t - 1) / s) - alpha, mpf(0))
    return 1 - ncdf(t / s)


if __name__ == "__main__":
    q, s2 = mpf(1) / 5, mpf(1) / 2
    for a in ["1e-3", "0.1", "0.5"]:
        al = mpf(a)
        r, d = f_remove(q, s2, al), f_add(q, s2, al)
        print(f"q=1/5 sigma2=1/2 n=1 alpha={a} remove={mp.nstr(r, 30)} add={mp.nstr(d, 30)} f={mp.nstr(min(r, d), 30)}")
