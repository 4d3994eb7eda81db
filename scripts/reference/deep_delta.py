#!/usr/bin/env python3
"""delta(eps) far below double precision's range, for the accountant's depth planning (issue 33).

n x N_Z(0, sigma2), add/remove, sensitivity 1, with sigma2 = 1e5: by Poisson summation of the theta
function, P(S = s) = exp(-s^2/(2v)) / sqrt(2 pi v), v = n sigma2, up to a relative error below
n * 2 exp(-2 pi^2 sigma2) (far below 1e-40 here). The loss of S = s is L(s) = (2s + n)/(2 sigma2) and
delta(eps) = sum_{L(s) > eps} P(s) (1 - e^{eps - L(s)}) [SSW24, Lemma A.9] in one variable. Summed upward
from the first s with L(s) > eps until a term is below 1e-45 of the sum; mpmath at 40 digits.
The method of scripts/reference/scaling_cells.py, for delta instead of epsilon.

Run: python3 scripts/reference/deep_delta.py (mpmath 1.3; seconds) -> deep_delta.txt
"""
import mpmath as mp

mp.mp.dps = 40


def delta(s2, n, eps):
    v = mp.mpf(n) * s2
    s = int(mp.floor((2 * s2 * eps - n) / 2)) + 1
    first, tot = s, mp.mpf(0)
    while True:
        loss = (2 * mp.mpf(s) + n) / (2 * s2)
        t = mp.exp(-mp.mpf(s) ** 2 / (2 * v)) / mp.sqrt(2 * mp.pi * v) * (1 - mp.exp(eps - loss))
        tot += t
        if s > first + 10 and t < tot * mp.mpf(10) ** -45:
            return tot
        s += 1


if __name__ == "__main__":
    print("sigma2,n,epsilon,delta")
    for n, eps in [(1, 1), (10, 1), (10, 10), (3, 10)]:
        print(f"1e5,{n},{eps},{mp.nstr(delta(mp.mpf(10) ** 5, n, eps), 30)}")
