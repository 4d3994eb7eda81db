#!/usr/bin/env python3
"""Trade-off function f(alpha) = T(P, Q)(alpha) of n reports of k-ary randomized response (replace
neighbours, parameter eps0), by the Neyman-Pearson lemma in mpmath -- no privacy profile, no supremum over
lines: the optimal level-alpha test of P against Q rejects the outcomes in decreasing order of the
likelihood ratio Q/P, randomising on the boundary class, and f(alpha) = 1 - Q[rejected].

One report with true value x against x': y = x with probability e^eps0/(e^eps0 + k - 1), y = x' and each
of the k - 2 other values with 1/(e^eps0 + k - 1) (k = 2: binary). n reports: counts a (y = x), b (y = x'),
c (other) are multinomial; Q/P = e^{eps0 (b - a)}, so the outcomes are grouped by d = a - b.
The pair is symmetric (swapping x and x' swaps P and Q), so T(P, Q) = T(Q, P). eps0 = ln(r) rows are the
report given by its keep probability p = r/(r + k - 1) (`rr:keep=P`, dp_accounting's RandomizedResponseDpEvent).
Run (Python with mpmath): python3 scripts/reference/randomized_response_tradeoff.py > scripts/reference/randomized_response_tradeoff.txt
"""
from mpmath import mp, mpf, exp, factorial, log, nstr

mp.dps = 60


def classes(n, e0, k):
    """P- and Q-mass of each d = a - b (Q/P = e^{-eps0 d})."""
    z = exp(e0) + k - 1
    px, pxp, po = exp(e0) / z, 1 / z, (k - 2) / z
    P, Q = {}, {}
    for a in range(n + 1):
        for b in range(n + 1 - a):
            c = n - a - b
            m = factorial(n) / (factorial(a) * factorial(b) * factorial(c))
            P[a - b] = P.get(a - b, 0) + m * px**a * pxp**b * po**c
            Q[a - b] = Q.get(a - b, 0) + m * pxp**a * px**b * po**c
    return P, Q


def tradeoff(n, e0, k, alpha):
    P, Q = classes(n, e0, k)
    spent, power = mpf(0), mpf(0)
    for d in sorted(P):  # largest Q/P (smallest d) first
        if spent + P[d] <= alpha:
            spent += P[d]
            power += Q[d]
        else:
            power += Q[d] * (alpha - spent) / P[d]
            break
    return 1 - power


print("# n eps0 k alpha f(alpha) (Neyman-Pearson, mp.dps = 60, 40 digits)")
for n, e0, k, alphas in [
    (1, "1", 2, ["0.1", "0.5"]),
    (10, "0.5", 2, ["1e-3", "0.05", "0.3"]),
    (10, "0.5", 3, ["0.01", "0.2"]),
    (50, "1", 2, ["1e-6", "0.01", "0.5"]),
    (10, "ln(5)", 4, ["0.1", "0.5"]),
    (20, "ln(9)", 2, ["1e-3"]),
]:
    e = log(mpf(e0[3:-1])) if e0.startswith("ln(") else mpf(e0)
    for a in alphas:
        print(n, e0, k, a, nstr(tradeoff(n, e, k, mpf(a)), 40, min_fixed=-50, max_fixed=50))
