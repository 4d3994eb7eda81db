#!/usr/bin/env python3
"""epsilon(delta), delta(eps) and f(alpha) of n = 10^6 and 10^7 binary randomized-response reports (replace
neighbours, parameter eps0), by direct summation in mpmath over every atom within 60 standard deviations of the
count's means (the rest has mass below e^-1800 of what is summed).

A report is true with probability p = e^eps0/(1 + e^eps0); k true reports of n give the loss l_k = (2k - n) eps0
with A-mass A_k = C(n, k) p^k (1 - p)^(n - k), each from mpmath's loggamma, and B-mass B_k = A_k e^(-l_k).
    delta(eps) = sum over l_k > eps of A_k - e^eps B_k                     [SSW24, Lemma A.9]
    epsilon(delta): on the segment [l_(k-1), l_k] (or [0, l_k]) where delta crosses, ln((P - delta)/Q) with P, Q
        the A- and B-masses above it
    f(alpha) = max(0, max_k A[L <= l_k] - e^(l_k) (alpha - B[L > l_k]))     [DRS22, Prop. 2.12]
(The tests hold tightdp's binomial path, src/account/engines/atoms_binomial.rs, which sums a run of masses from the
point asked with a certified remainder, against these rows.)
Run (Python with mpmath, ~1 min): python3 scripts/reference/randomized_response_binomial.py > scripts/reference/randomized_response_binomial.txt
"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, loggamma, sqrt

mp.dps = 60


def num(s):
    """A decimal or a fraction a/b, exactly."""
    f = Fraction(s)
    return mpf(f.numerator) / f.denominator


def window(n, e0, which):
    """(k, l_k, A_k, B_k) for k within 60 standard deviations of the mean of A's count ("A") or of both ("AB")."""
    p = exp(e0) / (1 + exp(e0))
    sd = float(sqrt(n * p * (1 - p)))
    means = [n * float(p)] + ([n * float(1 - p)] if which == "AB" else [])
    lo, hi = max(0, int(min(means) - 60 * sd)), min(n, int(max(means) + 60 * sd) + 1)
    lf = loggamma(n + 1)
    lp, lq = log(p), log(1 - p)
    out = []
    for k in range(lo, hi + 1):
        a = exp(lf - loggamma(k + 1) - loggamma(n - k + 1) + k * lp + (n - k) * lq)
        l = (2 * k - n) * e0
        out.append((k, l, a, a * exp(-l)))
    return out


def tails(w):
    """P_i = sum of A over atoms after i, Q_i likewise of B (from the top)."""
    P, Q = [mpf(0)] * len(w), [mpf(0)] * len(w)
    for i in range(len(w) - 2, -1, -1):
        P[i] = P[i + 1] + w[i + 1][2]
        Q[i] = Q[i + 1] + w[i + 1][3]
    return P, Q


def epsilon(w, d):
    P, Q = tails(w)
    # the first atom above 0 whose delta is at most d; the segment below it
    for i, (k, l, a, b) in enumerate(w):
        if l > 0 and P[i] - exp(l) * Q[i] <= d:
            below = w[i - 1][1] if w[i - 1][1] > 0 else mpf(0)
            pp, qq = P[i] + a, Q[i] + b
            if pp - exp(below) * qq <= d:
                return mpf(0)
            return log((pp - d) / qq)
    raise ValueError("no crossing in the window")


def delta(w, eps):
    return sum(a - exp(eps) * b for (k, l, a, b) in w if l > eps)


def tradeoff(w, alpha):
    P, Q = tails(w)
    best, below = mpf(0), mpf(0)
    for i, (k, l, a, b) in enumerate(w):
        below += a
        best = max(best, below - exp(l) * (alpha - Q[i]))
    return best


print("# kind n eps0 x value  (binary randomized response, replace neighbours; kind epsilon: x = delta, delta: x = eps,")
print("# tradeoff: x = alpha; mpmath direct sums over 60 standard deviations, mp.dps = 60, 40 digits)")
for n, e0, d in [(10**6, "1", "1e-5"), (10**7, "1/10", "1e-6"), (10**6, "1/1000", "1e-6")]:
    print("epsilon", n, e0, d, mp.nstr(epsilon(window(n, num(e0), "A"), num(d)), 40))
w = window(10**6, num("1/1000"), "AB")
for e in ["0", "1/2", "3"]:
    print("delta", 10**6, "1/1000", e, mp.nstr(delta(w, num(e)), 40))
for a in ["1e-6", "1/10", "1/2"]:
    print("tradeoff", 10**6, "1/1000", a, mp.nstr(tradeoff(w, num(a)), 40))
