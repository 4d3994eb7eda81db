#!/usr/bin/env python3
"""Reference values for the Gaussian mechanism's privacy profile (src/noise/gauss.rs tests), mpmath at 60
digits, written from the definitions and not from tightdp's formulas:

  delta(eps) = P_A[L > eps] - e^eps P_B[L > eps] with L ~ N(eta, 2 eta) under A and N(-eta, 2 eta) under B
  (the loss of N(mu, s2) vs N(0, s2) is (2 mu x - mu^2)/(2 s2)), integrated numerically (mp.quad) over x;
  eps(delta) by mpmath's findroot on that integral; f(alpha) = P_B[reject-region complement] for the
  Neyman-Pearson test, from the quantile of B.
Run: python3 scripts/reference/gaussian_closed_forms.py > scripts/reference/gaussian_closed_forms.txt"""
from mpmath import mp, mpf, quad, exp, sqrt, pi, inf, findroot, ncdf, erfinv

mp.dps = 60

def delta_by_integral(s2, mu, eps):
    # E_A[(1 - e^{eps - L})_+] with A = N(mu, s2), L(x) = (2 mu x - mu^2)/(2 s2); L > eps  <=>  x > x0
    s2, mu, eps = mpf(s2), mpf(mu), mpf(eps)
    x0 = (eps + mu * mu / (2 * s2)) * s2 / mu
    dens = lambda x: exp(-(x - mu) ** 2 / (2 * s2)) / sqrt(2 * pi * s2)
    L = lambda x: (2 * mu * x - mu * mu) / (2 * s2)
    return quad(lambda x: dens(x) * (1 - exp(eps - L(x))), [x0, x0 + 5 * sqrt(s2), x0 + 40 * sqrt(s2), inf])

cases = [("1", "1", "0"), ("1", "1", "1"), ("4", "1", "0.5"), ("0.25", "1", "3"), ("100", "3", "0.2")]
print("# delta: sigma2 mu eps delta")
for s2, mu, e in cases:
    print("delta", s2, mu, e, mp.nstr(delta_by_integral(s2, mu, e), 50))
print("# epsilon: sigma2 mu delta epsilon")
for s2, mu, d in [("1", "1", "1e-5"), ("4", "1", "1e-10"), ("0.25", "2", "1e-3"), ("2", "1", "1e-10")]:
    f = lambda e: delta_by_integral(s2, mu, e) - mpf(d)
    e0 = mpf(mu) ** 2 / (2 * mpf(s2)) + 2 * sqrt(mpf(mu) ** 2 / (2 * mpf(s2)) * (-mp.log(mpf(d))))
    print("epsilon", s2, mu, d, mp.nstr(findroot(f, e0 * 0.7), 40))
print("# tradeoff: sigma2 mu alpha beta")
# alpha = 1/2 is where the quantile z is 0 (the closed form's bisection met an undecidable midpoint there, #57)
for s2, mu, a in [("1", "1", "0.05"), ("4", "1", "0.001"), ("9", "1", "0.5"), ("1", "1", "0.5"), ("0.01", "1", "0.5")]:
    m = mpf(mu) / sqrt(mpf(s2))
    z = sqrt(2) * erfinv(1 - 2 * mpf(a))   # P[N(0,1) >= z] = a
    print("tradeoff", s2, mu, a, mp.nstr(ncdf(z - m), 40))
