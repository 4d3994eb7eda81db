"""Reference for the registry entry meta-facebook-urls-2020 (data/deployments/): the exact epsilon at
delta = 1e-5 of the 14 Gaussian columns of the Facebook Full URLs breakdown table, each of l2 sensitivity
sqrt(k) and noise sigma (codebook of 13 Feb 2020, p. 11): views k = 51914, sigma = 2228; click 17, 40;
share 2, 14; like 5, 22; ten action types k = 1, sigma = 10.

Independent of tightdp: the composition of Gaussian mechanisms is the Gaussian mechanism of
mu = sqrt(sum k / sigma^2), whose privacy profile is delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
(Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13); eps(delta) by bisection to 1e-35 (delta
decreases in eps). Also the codebook's own conversion eps = rho + sqrt(4 rho ln(sqrt(pi rho)/delta)) of
the stated total rho = 14 x 0.0052 = 0.0728 (its 1.844) and of the recomputed rho.

Run: python meta_urls_gaussian.py > meta_urls_gaussian.txt   (mpmath, 50 digits)
"""
from fractions import Fraction
from mpmath import mp, mpf, sqrt, exp, erfc, log, pi

mp.dps = 50
cols = [(51914, 2228), (17, 40), (2, 14), (5, 22)] + [(1, 10)] * 10
rho = sum(Fraction(k, 2 * s * s) for k, s in cols)
mu = sqrt(2 * mpf(rho.numerator) / rho.denominator)
Phi = lambda x: erfc(-x / sqrt(2)) / 2


def delta(e):
    return Phi(-e / mu + mu / 2) - exp(e) * Phi(-e / mu - mu / 2)


target = mpf("1e-5")
lo, hi = mpf(0), mpf(10)
for _ in range(130):
    m = (lo + hi) / 2
    if delta(m) > target:
        lo = m
    else:
        hi = m
bs = lambda r: r + sqrt(4 * r * log(sqrt(pi * r) / target))
print(f"rho_recomputed {rho} = {mp.nstr(mpf(rho.numerator) / rho.denominator, 30)}")
print(f"epsilon_exact(1e-5) {mp.nstr(lo, 35)} {mp.nstr(hi, 35)}")
print(f"codebook_conversion(rho = 0.0728) {mp.nstr(bs(mpf('0.0728')), 20)}")
print(f"codebook_conversion(rho recomputed) {mp.nstr(bs(mpf(rho.numerator) / rho.denominator), 20)}")
