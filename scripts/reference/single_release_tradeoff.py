#!/usr/bin/env python3
"""Reference trade-off functions f(alpha) of ONE Poisson-subsampled release under add/remove neighbours (the
smaller of the two orders), for `account/single.rs`, by mpmath at 40 digits, independently of tightdp: the
Neyman-Pearson tests [DRS22, Def. 2.1, Lemma A.2] of the pair P = (1 - q) N + q N_1 (or Laplace), Q = N
(sensitivity 1). The likelihood ratio p/q = 1 - q + q r(x), r the base mechanism's ratio, is non-decreasing
in x, so the most powerful tests are thresholds in x (flat stretches of the ratio, the subsampled Laplace's
atoms of the loss, are traced linearly by the threshold moving across them):

  T(P, Q)(alpha): reject P when x < t, alpha = P[X < t], beta = Q[X >= t];
  T(Q, P)(alpha): reject Q when x > t, alpha = Q[X > t], beta = P[X <= t];

t by findroot on the closed-form distribution functions (the normal's by erfc, the Laplace's by exp).
Run: python3 scripts/reference/single_release_tradeoff.py > scripts/reference/single_release_tradeoff.txt"""
from fractions import Fraction

from mpmath import mp, mpf, erfc, exp, sqrt, findroot, nstr

mp.dps = 40


def gauss_cdf(x, sigma):
    return erfc(-x / (sigma * sqrt(2))) / 2


def laplace_cdf(x, b):
    return exp(x / b) / 2 if x < 0 else 1 - exp(-x / b) / 2


def solve(f, target, lo=mpf(-200), hi=mpf(200)):
    """x with f(x) = target, f non-decreasing: bisection to 120 bits (findroot polishes)."""
    for _ in range(400):
        m = (lo + hi) / 2
        if f(m) < target:
            lo = m
        else:
            hi = m
    return findroot(lambda x: f(x) - target, (lo + hi) / 2)


def tradeoffs(base, q, alpha):
    p_cdf = lambda x: (1 - q) * base(x) + q * base(x - 1)
    # T(P, Q): P[X < t] = alpha
    t = solve(p_cdf, alpha)
    f_pq = 1 - base(t)
    # T(Q, P): Q[X > t] = alpha, i.e. Q[X <= t] = 1 - alpha
    t = solve(base, 1 - alpha)
    f_qp = p_cdf(t)
    return f_pq, f_qp


def main():
    print("# law q scale alpha T(P,Q) T(Q,P) f (the smaller)")
    cases = [("gauss", "1/100", "1"), ("gauss", "3/10", "4/5"), ("laplace", "1/4", "1")]
    for law, q, s in cases:
        qf, sf = Fraction(q), Fraction(s)
        qm, sm = mpf(qf.numerator) / qf.denominator, mpf(sf.numerator) / sf.denominator
        base = (lambda x, sm=sm: gauss_cdf(x, sm)) if law == "gauss" else (lambda x, sm=sm: laplace_cdf(x, sm))
        for a in ["1/1000", "1/100", "1/10", "1/2"]:
            af = Fraction(a)
            f1, f2 = tradeoffs(base, qm, mpf(af.numerator) / af.denominator)
            print(law, q, s, a, nstr(f1, 32), nstr(f2, 32), nstr(min(f1, f2), 32))


if __name__ == "__main__":
    main()
