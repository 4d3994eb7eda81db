"""Reference values for src/noise/allocation/selected.rs (random allocation of k of t steps), by mpmath.

In standard units (noise 1, sensitivity mu) one epoch's likelihood ratio under B = N(0, I_t) is, for the pair
of k-of-t allocation with every other record at 0, M_k = C(t, k)^{-1} sum_{|S| = k} prod_{i in S} X_i,
X_i = exp(mu Z_i - mu^2/2) independent.

1. "split t k mu2 a value": the decomposition's Renyi divergence in the remove direction at the integer
   order a, [(k - r) ln E[M_1^a; t0] + r ln E[M_1^a; t0 + 1]] / (a - 1) with t = k t0 + r, where
   E[M_1^a; s] = s^{-a} sum over the compositions k_1 + ... + k_s = a of a!/prod k_i! prod exp(mu^2 k_i (k_i - 1)/2)
   is the one-of-s moment (the multinomial theorem), enumerated directly.
2. "subset t k mu2 a value": the Renyi divergence ln E[M_k^a]/(a - 1) of the k-of-t pair itself, by
   enumerating every a-tuple of k-subsets: E[prod_j prod_{i in S_j} X_i] = prod_i exp(mu^2 c_i (c_i - 1)/2),
   c_i the number of the S_j that hold i. The decomposition bounds the worst case of k-of-t allocation, so it
   lies above this pair's divergence.

30 significant digits.

Run: python3 scripts/reference/allocation_k.py > scripts/reference/allocation_k.txt
"""
import os
import sys
from itertools import combinations, product
from mpmath import mp, mpf, log, nstr, binomial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the one-of-s moment E[M_1^a; s] (the compositions of a into s parts) and its weight, as the k = 1
# reference computes them
from allocation import positive_moment as one_of, w  # noqa: E402

mp.dps = 40


def split(t, k, mu2, a):
    t0, r = divmod(t, k)
    ln = (k - r) * log(one_of(t0, mu2, a))
    if r:
        ln += r * log(one_of(t0 + 1, mu2, a))
    return ln / (a - 1)


def subset(t, k, mu2, a):
    subsets = list(combinations(range(t), k))
    total = mpf(0)
    for tup in product(subsets, repeat=a):
        c = [0] * t
        for s in tup:
            for i in s:
                c[i] += 1
        term = mpf(1)
        for ci in c:
            term *= w(mu2, ci)
        total += term
    return log(total / mpf(binomial(t, k)) ** a) / (a - 1)


def main():
    mu2 = mpf(1) / 2
    for t, k, orders in [(5, 2, range(2, 6)), (7, 3, range(2, 5)), (6, 3, range(2, 5)), (4, 2, range(2, 6))]:
        for a in orders:
            print("split", t, k, "0.5", a, nstr(split(t, k, mu2, a), 30))
            print("subset", t, k, "0.5", a, nstr(subset(t, k, mu2, a), 30))


if __name__ == "__main__":
    main()
