#!/usr/bin/env python3
"""Reference privacy profiles of n-fold k-ary randomized response (src/noise/rr.rs and the pld grid tests),
an exact finite sum in mpmath at 50 digits, from the response probabilities and not from tightdp's loss law:

  one report: P[own value] = e^eps/Z, P[each other value] = 1/Z, Z = e^eps + k - 1; neighbours x != x'.
  n reports: i report x, j report x', m = n - i - j report another value; the pair's probabilities are
  A = (e^eps/Z)^i (1/Z)^j ((k-2)/Z)^m, B = (1/Z)^i (e^eps/Z)^j ((k-2)/Z)^m, times the multinomial count,
  and delta(e) = sum over (i, j) of (A - e^e B)_+.
Run: python3 scripts/reference/randomized_response.py > scripts/reference/randomized_response.txt"""
from mpmath import mp, mpf, exp, factorial

mp.dps = 50


def delta_of_probabilities(hi, lo, mid, n, e):
    """delta(e) of n reports whose one-report probabilities are hi (own value), lo (the neighbour's value)
    and mid (all k - 2 other values together; 0 for k = 2)."""
    e = mpf(e)
    total = mpf(0)
    for i in range(n + 1):
        for j in range(n + 1 - i):
            m = n - i - j
            if m > 0 and mid == 0:
                continue
            c = factorial(n) / (factorial(i) * factorial(j) * factorial(m))
            a = c * hi ** i * lo ** j * mid ** m
            b = c * lo ** i * hi ** j * mid ** m
            total += max(a - exp(e) * b, 0)
    return total


def delta(eps, k, n, e):
    eps = mpf(eps)
    z = exp(eps) + k - 1
    return delta_of_probabilities(exp(eps) / z, 1 / z, mpf(k - 2) / z, n, e)


if __name__ == "__main__":
    print("# eps k n e delta")
    for eps, k, n, e in [("0.5", 2, 1, "0"), ("0.5", 2, 10, "1"), ("0.5", 3, 10, "1.3"), ("1", 4, 20, "2.5")]:
        print(eps, k, n, e, mp.nstr(delta(eps, k, n, e), 40))
