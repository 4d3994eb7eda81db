#!/usr/bin/env python3
"""Reference calibration factors at large n (issue 33 item 5), independent of tightdp's engines.

For sigma2 >= 5 the n-fold sum S of N_Z(0, sigma2) has, by Poisson summation of the theta function,
P(S = s) = exp(-s^2/(2 n sigma2)) / sqrt(2 pi n sigma2) up to a relative error below
n * 2 exp(-2 pi^2 sigma2) (1e-37 at sigma2 = 5, n = 1e5) plus an aliasing term exp(-2 pi^2 n sigma2).
Add/remove neighbours, sensitivity 1: the loss of S = s is L(s) = (n - 2 s) / (2 sigma2), and
delta(eps) = sum_s P(S = s) (1 - e^{eps - L(s)})_+, summed directly over s < (n - 2 sigma2 eps) / 2
until the terms fall below 1e-60 of the sum. The calibration factor c solves eps(delta; c sigma2) = target,
i.e. delta(target; c sigma2) = delta (delta(eps) is decreasing in the variance): bisection on c to 1e-25.

Run: python3 scripts/reference/calibrate_large_n.py  (mpmath 1.3; ~4 min). Output: calibrate_large_n.txt
"""
import mpmath as mp

mp.mp.dps = 50


def delta_of(eps, s2, n):
    eps, s2 = mp.mpf(eps), mp.mpf(s2)
    var = n * s2
    norm = 1 / mp.sqrt(2 * mp.pi * var)
    s = mp.floor((n - 2 * s2 * eps) / 2)
    # L(s) > eps  <=>  s < (n - 2 s2 eps)/2 ; the largest such integer
    if (n - 2 * s) / (2 * s2) <= eps:
        s -= 1
    total = mp.mpf(0)
    while True:
        p = norm * mp.exp(-(s * s) / (2 * var))
        term = p * (1 - mp.exp(eps - (n - 2 * s) / (2 * s2)))
        total += term
        if term < total * mp.mpf("1e-60"):
            break
        s -= 1
    return total


def factor(s2, n, target, delta):
    lo, hi = mp.mpf("0.01"), mp.mpf(100)
    delta = mp.mpf(delta)
    while hi - lo > mp.mpf("1e-25") * hi:
        mid = (lo + hi) / 2
        if delta_of(target, s2 * mid, n) > delta:
            lo = mid  # too little noise
        else:
            hi = mid
    return (lo + hi) / 2


if __name__ == "__main__":
    with open(__file__.replace(".py", ".txt"), "w") as out:
        out.write("sigma2,n,target_epsilon,delta,factor\n")
        for s2, n, target in [("37.7", 100000, 1000), ("5", 100000, 5000)]:
            c = factor(mp.mpf(s2), n, target, "1e-10")
            line = f"{s2},{n},{target},1e-10,{mp.nstr(c, 22)}"
            print(line, flush=True)
            out.write(line + "\n")
