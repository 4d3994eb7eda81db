#!/usr/bin/env python3
"""Reference values of the standard normal tail 1 - Phi(z) = Phi(-z), mpmath at 60 digits
(src/num/special.rs tests). Run: python3 scripts/reference/normal_tails.py > scripts/reference/normal_tails.txt"""
from mpmath import mp, ncdf, mpf
mp.dps = 60
for z in ["0", "1", "10", "-2", "40", "4.5", "-5", "4.0000001"]:
    print(z, mp.nstr(ncdf(-mpf(z)), 60))
