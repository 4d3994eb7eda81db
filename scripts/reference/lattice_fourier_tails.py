#!/usr/bin/env python3
"""Reference tails P[S >= m] of S = X_1 + ... + X_n, X_i ~ N_Z(0, sigma2), for the tests of
src/fourier/lattice (large_n_tails_match_the_mpmath_reference). mpmath at 50 digits, written separately
from the Rust engine: the same tilted trapezoidal inversion, node by node in mpmath (theta sums in the
Jacobi form), the tilt at the saddle point, 40 sd(S) + 64 nodes, no certification.
Run: python3 scripts/reference/lattice_fourier_tails.py  (mpmath >= 1.3)."""
import mpmath as mp
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from lattice_fourier_proto import tail_sum, logphi

mp.mp.dps = 50
n = 100000
s2 = mp.mpf('37.7')
for m in [12316, 50000, 80000, 112316]:
    c = mp.re(mp.findroot(lambda c: mp.re(mp.diff(lambda x: n * logphi(x, s2), c)) - m, mp.mpf(m) / (n * s2)))
    N = int(40 * mp.sqrt(n * s2)) + 64
    t, live = tail_sum(n, s2, m, 0, c, N)
    print(f"n={n},sigma2=37.7,m={m},P[S>=m]={mp.nstr(t, 25)},nodes={N},live={live}")
