#!/usr/bin/env python3
"""Is dp_accounting's pessimistic epsilon an upper bound? 100 releases of the Laplace mechanism (scale 1,
sensitivity 1) at delta = 1e-5: dp_accounting 0.6's PLD (value_discretization_interval 1e-5, pessimistic,
connect-the-dots) prints eps = 68.252951048582 (scripts/bench/laplace_results.csv, same run as tightdp).
Here delta_100 at that eps and at tightdp's certified eps, by the exact n-fold convolution of
scripts/reference/laplace_many.py (Python fractions for the law, mpmath at 40 digits for the integrals; no
tightdp code): delta_100(68.252951048582) > 1e-5, so that eps is below the true eps(1e-5) = 68.2529510556...
Run: python3 scripts/reference/laplace_dp_accounting_check.py > scripts/reference/laplace_dp_accounting_check.txt"""
import sys
from fractions import Fraction as Fr
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import laplace_many as lm  # noqa: E402

if __name__ == "__main__":
    lm.mp.mp.dps = 40
    a = Fr(1)
    at, pc = lm.nu_powers(a, {100})[100]
    prof = lm.Profile(a, 100, at, pc)
    prof.prepare()
    print("# b n eps delta_n(eps)  (exact convolution, mpmath 40 digits)")
    for e in ("68.252951048582", "68.252951091222"):
        print(1, 100, e, lm.mp.nstr(prof.delta(Fr(e)), 30))
