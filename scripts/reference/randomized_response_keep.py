#!/usr/bin/env python3
"""Reference privacy profiles of n-fold k-ary randomized response given by its keep probability p (`rr:keep=P`,
src/noise/rr.rs), an exact finite sum in mpmath at 50 digits from the response probabilities, independently of
tightdp: one report gives the own value with probability p and each other value with (1 - p)/(k - 1);
neighbours x != x'; n reports: i report x, j report x', m = n - i - j another value, and
delta(e) = sum over (i, j) of multinomial * (A - e^e B)_+ with A = p^i o^j (k-2)^m o^m, B = o^i p^j (k-2)^m o^m.

dp_accounting's RandomizedResponseDpEvent(noise_parameter l, num_buckets k) answers uniformly at random with
probability l: p = 1 - l (k - 1)/k. Its PLD accountant's value for the same event is printed beside (a peer,
not a reference).
Run: python3 scripts/reference/randomized_response_keep.py > scripts/reference/randomized_response_keep.txt"""
import os
import sys
from fractions import Fraction

from mpmath import mp, mpf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randomized_response import delta_of_probabilities  # noqa: E402 (the same multinomial sum)

mp.dps = 50


def delta(p, k, n, e):
    p = mpf(p.numerator) / p.denominator
    o = (1 - p) / (k - 1)
    return delta_of_probabilities(p, o, (k - 2) * o, n, e)


print("# keep k n e delta (keep from dp_accounting's noise_parameter l: 1 - l (k - 1)/k)")
cases = [(Fraction(3, 4), 3, 1, "1"), (Fraction(5, 8), 4, 10, "1"), (Fraction(9, 10), 2, 20, "3")]
for p, k, n, e in cases:
    print(f"{p} {k} {n} {e} {mp.nstr(delta(p, k, n, e), 40)}")

try:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant as pa

    # l = 1/2, k = 4: keep 5/8, ten reports
    acc = pa.PLDAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.RandomizedResponseDpEvent(0.5, 4), 10))
    print(f"# peer: dp_accounting PLDAccountant (REPLACE_ONE), RandomizedResponseDpEvent(0.5, 4) x 10: delta(1) = {acc.get_delta(1.0)}")
except ImportError:
    print("# peer: dp_accounting not installed")
