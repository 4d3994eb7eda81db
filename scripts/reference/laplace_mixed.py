#!/usr/bin/env python
"""Reference values: delta(eps) of Laplace releases with different epsilon0 = mu/b (mixed scales).

Independent of tightdp's exact sum (no B-spline, no truncated powers): the nested mp.quad recursion of
laplace_many.py, one release at a time, each with its own a = epsilon0. One release's privacy loss L under
the dominating law A: atom +a (mass 1/2), atom -a (mass exp(-a)/2), density exp(-(a - l)/2)/4 on (-a, a).
delta(eps) = E_A[(1 - exp(eps - L_1 - ... - L_n))_+]; with d_0(e) = (1 - exp(e))_+ read at e = eps - sum,

    d_k(e) = d_{k-1}(e - a_k)/2 + exp(-a_k)/2 d_{k-1}(e + a_k) + int_{-a_k}^{a_k} p_k(l) d_{k-1}(e - l) dl,

the innermost d_1 in closed form, each integral split at the kinks of d_{k-1} (e minus the sums
c_1 a_1 + ... + c_{k-1} a_{k-1}, c_i in {-1, 0, 1}). Run at two precisions (dps 30 and 40); the printed
digits are those on which they agree (at least 20 asked).

Run (Python with mpmath):  python3 scripts/reference/laplace_mixed.py > scripts/reference/laplace_mixed.txt
"""
import itertools
import sys
from fractions import Fraction as Fr

import mpmath as mp


def quad_delta(scales, eps):
    a = [mp.mpf(x.numerator) / x.denominator for x in scales]

    def d1(e):
        a1 = a[0]
        if e < -a1:
            return 1 - mp.exp(e)
        if e < a1:
            return 1 - mp.exp((e - a1) / 2)
        return mp.mpf(0)

    def kinks(k):
        # kinks of d_k: sums c_1 a_1 + ... + c_k a_k
        return sorted(set(sum(c * x for c, x in zip(cs, a[:k])) for cs in itertools.product((-1, 0, 1), repeat=k)))

    kink_sets = [None] + [kinks(k) for k in range(1, len(a) + 1)]

    def dk(k, e):
        if k == 1:
            return d1(e)
        ak = a[k - 1]
        pts = sorted(set([-ak, ak] + [e - x for x in kink_sets[k - 1] if -ak < e - x < ak]))
        integ = mp.quad(lambda l: mp.exp(-(ak - l) / 2) / 4 * dk(k - 1, e - l), pts)
        return dk(k - 1, e - ak) / 2 + mp.exp(-ak) / 2 * dk(k - 1, e + ak) + integ

    return dk(len(a), mp.mpf(eps.numerator) / eps.denominator)


ROWS = [  # the epsilon0 of each release, eps
    ((Fr(1), Fr(1, 3)), Fr(1, 2)),
    ((Fr(1), Fr(1, 3)), Fr(6, 5)),
    ((Fr(1), Fr(1, 2), Fr(1, 2)), Fr(1, 2)),
    ((Fr(1), Fr(1), Fr(2, 5)), Fr(3, 2)),
]


def agreed(x, y, want=20):
    sx, sy = mp.nstr(x, 40, strip_zeros=False), mp.nstr(y, 40, strip_zeros=False)
    for d in range(38, want - 1, -1):
        if mp.nstr(x, d) == mp.nstr(y, d):
            return mp.nstr(x, d)
    sys.exit(f"precisions disagree: {sx} {sy}")


def main():
    print("# delta(eps) of Laplace releases with the epsilon0 listed (one per release); nested mp.quad at dps 30 and 40,")
    print("# the digits on which both agree. Columns: epsilon0s (colon-separated), eps, delta")
    for scales, eps in ROWS:
        vals = []
        for dps in (30, 40):
            mp.mp.dps = dps
            vals.append(quad_delta(scales, eps))
        print(":".join(str(x) for x in scales), eps, agreed(*vals), flush=True)


if __name__ == "__main__":
    main()
