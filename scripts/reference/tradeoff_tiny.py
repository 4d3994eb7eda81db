#!/usr/bin/env python3
"""f(alpha) of n x N_Z(0, sigma2) far below 1 (issue 33: the trade-off function at every size).

Add/remove neighbours, sensitivity 1: the null P is the law of S = X_1 + ... + X_n, the alternative Q the
law of S + n. By Poisson summation of the theta function, P(S = s) = C exp(-s^2/(2v)), v = n sigma2,
with C depending on s only through s mod n and equal to 1/sqrt(2 pi v) up to a relative error below
n * 2 exp(-2 pi^2 sigma2) (< 3e-38 for the cells below, sigma2 >= 5): the method of scripts/reference/scaling_cells.py.
The likelihood ratio Q/P is increasing in s, so the Neyman-Pearson test at level alpha rejects for
S > k and with probability g at S = k [DRS22, Prop. 2.12 / Neyman-Pearson lemma]:
alpha = P[S > k] + g P[S = k], and f(alpha) = Q[S < k] + (1 - g) Q[S = k]
= P[S < k - n] + (1 - g) P[S = k - n]. Tails are summed term by term (exact term ratios) until a term
is below 1e-45 of the sum; mpmath at 60 digits.

alpha near 1 (rows 5 and 6) puts k below 0; P[S > k] is then 1 - P[S > -k - 1] at 60 digits, which
keeps ~50 digits of alpha - P[S > k] at alpha = 1 - 1e-6.

Run: python3 scripts/reference/tradeoff_tiny.py (mpmath 1.3; ~1 min) -> tradeoff_tiny.txt
"""
import mpmath as mp

mp.mp.dps = 60


def pmf(s, v):
    return mp.exp(-mp.mpf(s) ** 2 / (2 * v)) / mp.sqrt(2 * mp.pi * v)


def upper(k, v):
    """P[S > k] for k >= 0."""
    tot, s = mp.mpf(0), k + 1
    while True:
        t = pmf(s, v)
        tot += t
        if t < tot * mp.mpf(10) ** -45:
            return tot
        s += 1


def tail_gt(k, v):
    """P[S > k] for any k (for k < 0 by symmetry: 1 - P[S >= -k] = 1 - P[S > -k - 1])."""
    return upper(k, v) if k >= 0 else 1 - upper(-k - 1, v)


def lower(m, v):
    """P[S < m] for m <= 0 (symmetric: P[S > -m])."""
    return upper(-m, v)


def tradeoff(s2, n, alpha):
    v = mp.mpf(n) * s2
    # k: P[S > k] <= alpha < P[S >= k], found by bisection on the exact tail sums
    lo, hi = -int(20 * mp.sqrt(v)) - 10, int(20 * mp.sqrt(v)) + 10
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if tail_gt(mid, v) <= alpha:
            hi = mid
        else:
            lo = mid
    k = hi
    g = (alpha - tail_gt(k, v)) / pmf(k, v)
    assert 0 <= g <= 1
    m = k - n
    assert m <= 0
    return lower(m, v) + (1 - g) * pmf(m, v)


if __name__ == "__main__":
    print("sigma2,n,alpha,f")
    for s2, n, a in [("37.7", 10000, "1e-3"), ("37.7", 30000, "1e-3"), ("37.7", 100000, "1e-3"), ("5", 100000, "1e-6"),
                     ("37.7", 3000, "0.999999"), ("37.7", 10000, "0.999999"), ("5", 100000, "0.5")]:
        print(f"{s2},{n},{a},{mp.nstr(tradeoff(mp.mpf(s2), n, mp.mpf(a)), 30)}")
