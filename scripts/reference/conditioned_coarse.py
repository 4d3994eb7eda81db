#!/usr/bin/env python3
"""Reference values for the conditioned engine (src/account/engines/conditioned.rs): compositions of discrete
Gaussian counts of sensitivity 1 with the structure of PHSafe and SafeTab-H (a group of small sigma^2,
whose loss lattice is coarse, together with groups of large sigma^2), small enough to sum directly.

Each group's sum S of n i.i.d. N_Z(0, sigma^2) is convolved from the pmf exp(-x^2/(2 sigma^2))/Z (Z summed
directly, |x| up to where the terms fall below 1e-90 of the peak). Under the alternative Q the group's loss
is S/sigma^2 + n/(2 sigma^2); the release's loss is the sum over the groups, and

    delta(eps) = sum over all atoms x of Q(x) (1 - e^(eps - L(x)))_+

is summed over the product of all groups' atoms (the last group's atoms sorted by loss, with suffix sums of
Q and Q e^-L, so that each atom of the other groups costs one bisection: the same sum, reordered). epsilon(delta)
by bisection on that function to 2^-200.

The trade-off function f(alpha) (the type II error of the most powerful test at type I error alpha) from the
Neyman-Pearson test: it rejects for L > t, and with probability gamma at L = t, where the threshold t is the
loss value with P_P[L > t] <= alpha <= P_P[L >= t] (P_P[L > eps] = sum Q(x) e^-L(x) over L(x) > eps, the same
suffix sums). Its type II error is P_Q[L < t] + (1 - gamma) P_Q[L = t] with
gamma = (alpha - P_P[L > t]) / P_P[L = t], and since P_P[L = t] = e^-t P_Q[L = t] this equals
1 - P_Q[L > t] - e^t (alpha - P_P[L > t]) = 1 - delta(t) - e^t alpha. The threshold is located by bisection
on eps to 2^-200 (P_P[L > eps] >= alpha left of t, < alpha right of it): delta is continuous, so the value at
the bisection's point is within ~2^-190 of f. No code of tightdp is used.
Run: $VENV/bin/python scripts/reference/conditioned_coarse.py > scripts/reference/conditioned_coarse.txt"""
from bisect import bisect_right
from fractions import Fraction as Fr

from mpmath import mp, mpf, exp

mp.dps = 60


def dg_sum(sigma2, n):
    """{s: P[S = s]} for S the sum of n i.i.d. N_Z(0, sigma2)."""
    s2 = mpf(sigma2.numerator) / sigma2.denominator
    k = 1
    while exp(-mpf(k) ** 2 / (2 * s2)) > mpf(10) ** -90:
        k += 1
    w = {x: exp(-mpf(x) ** 2 / (2 * s2)) for x in range(-k, k + 1)}
    z = sum(w.values())
    one = {x: v / z for x, v in w.items()}
    law = {0: mpf(1)}
    for _ in range(n):
        nxt = {}
        for a, pa in law.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, mpf(0)) + pa * pb
        # drop what is below 1e-90 of the total (far below the 1e-30 the values are quoted to)
        law = {s: p for s, p in nxt.items() if p > mpf(10) ** -90}
    return law


def atoms(groups):
    """[(loss, Q-mass)] of the groups' joint law."""
    out = [(Fr(0), mpf(1))]
    for sigma2, n in groups:
        law = dg_sum(sigma2, n)
        out = [(c + Fr(s) / sigma2 + Fr(n) / (2 * sigma2), q * p) for c, q in out for s, p in law.items()]
        out = [(c, q) for c, q in out if q > mpf(10) ** -90]
    return out


class Delta:
    def __init__(self, groups):
        *rest, last = groups
        self.outer = [(mpf(c.numerator) / c.denominator, q) for c, q in atoms(rest)]
        inner = sorted((mpf(c.numerator) / c.denominator, q) for c, q in atoms([last]))
        self.keys = [c for c, _ in inner]
        self.s0 = [mpf(0)] * (len(inner) + 1)
        self.s1 = [mpf(0)] * (len(inner) + 1)
        for i in range(len(inner) - 1, -1, -1):
            c, q = inner[i]
            self.s0[i] = self.s0[i + 1] + q
            self.s1[i] = self.s1[i + 1] + q * exp(-c)

    def __call__(self, eps):
        eps = mpf(eps)
        total = mpf(0)
        for c, q in self.outer:
            x = eps - c
            j = bisect_right(self.keys, x)  # atoms of the last group with loss > x
            total += q * (self.s0[j] - exp(x) * self.s1[j])
        return total

    def p_above(self, eps):
        """P_P[L > eps] = sum over atoms with L > eps of Q e^-L."""
        eps = mpf(eps)
        total = mpf(0)
        for c, q in self.outer:
            j = bisect_right(self.keys, eps - c)
            total += q * exp(-c) * self.s1[j]
        return total

    def tradeoff(self, alpha):
        alpha = mpf(alpha)
        lo, hi = mpf(-64), mpf(64)
        for _ in range(220):
            mid = (lo + hi) / 2
            if self.p_above(mid) >= alpha:
                lo = mid
            else:
                hi = mid
        t = (lo + hi) / 2
        return 1 - self(t) - exp(t) * alpha

    def epsilon(self, delta):
        lo, hi = mpf(0), mpf(64)
        for _ in range(200):
            mid = (lo + hi) / 2
            if self(mid) > delta:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


CASES = [
    # PHSafe's structure: one query of sigma^2 = 15625/20718 (its state PH3 A-G budget) and a few queries of
    # its large-sigma^2 groups
    ("phsafe-like", [(Fr(15625, 20718), 1), (Fr(50000, 663), 3), (Fr(50000, 117), 2)]),
    # SafeTab-H's structure: its three sigma^2, fewer queries
    ("safetab-h-like", [(Fr(5625, 2401), 2), (Fr(1500000, 47623), 3), (Fr(900000, 1383), 2)]),
]

if __name__ == "__main__":
    delta = mpf(10) ** -10
    for name, groups in CASES:
        d = Delta(groups)
        mechs = " ".join(f"dgauss:sigma2={s.numerator}/{s.denominator},n={n}" for s, n in groups)
        eps = d.epsilon(delta)
        print(f"{name}: {mechs}")
        print(f"  epsilon(1e-10) = {mp.nstr(eps, 40)}")
        for e in (1, 3):
            print(f"  delta({e}) = {mp.nstr(d(e), 40)}")
        for a in ("1e-3", "0.5"):
            print(f"  f({a}) = {mp.nstr(d.tradeoff(mpf(a)), 40)}")
