#!/usr/bin/env python3
"""Is dp_accounting's REPLACE pair with sub-sampling (contributions at -Delta and +Delta) the worst case of one run
over contributions u, v in [-Delta, Delta]? Poisson-subsampled Laplace and Gaussian (Delta = 1, scale 1): the
hockey-stick divergence of (q p(x - u) + (1 - q) p(x), q p(x - v) + (1 - q) p(x)) by mpmath quadrature on a grid
of u, v (steps 1/4), against the antipodal pair. A numerical check, not a proof: the pair is the model that
src/noise/poisson_replace*.rs account (as dp_accounting does), and this finds no contribution pair above it.
Run: python3 scripts/reference/poisson_replace_worst_case.py > scripts/reference/poisson_replace_worst_case.txt"""
from mpmath import mp, mpf, exp, quad, inf, npdf
mp.dps = 20
def H(A, B, eps, pts):
    return quad(lambda x: max(A(x) - exp(eps) * B(x), 0), [-inf] + pts + [inf])
lap = lambda x: exp(-abs(x)) / 2
gau = lambda x: npdf(x)
worst = []
for name, p in [("lap", lap), ("gauss", gau)]:
    for q in [mpf("0.1"), mpf("0.5"), mpf("0.9")]:
        for eps in [mpf("0"), mpf("0.1"), mpf("0.3"), mpf("0.8")]:
            ref = H(lambda x: q*p(x+1)+(1-q)*p(x), lambda x: q*p(x-1)+(1-q)*p(x), eps, [-2,-1,0,1,2])
            m = (None, -1)
            for u in [mpf(i)/4 for i in range(-4,5)]:
                for v in [mpf(i)/4 for i in range(-4,5)]:
                    d = H(lambda x: q*p(x-u)+(1-q)*p(x), lambda x: q*p(x-v)+(1-q)*p(x), eps, [-2,-1,0,1,2])
                    if d > m[1]: m = ((u, v), d)
            print(name, q, eps, "antipodal", mp.nstr(ref, 8), "max over grid", m[0], mp.nstr(m[1], 8), "EXCEEDS" if m[1] > ref*(1+mpf(10)**-8) else "")
