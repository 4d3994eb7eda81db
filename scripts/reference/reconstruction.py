"""Reference values for the reconstruction-robustness bound 1 - f(kappa) (src/attack/mod.rs,
`attack --reconstruction-prior`) [KHZR23], [HMB23]: the power of the most powerful test at level kappa
between the two neighbouring outputs, computed here without tightdp's trade-off functions.

* Gaussian mechanism, sensitivity 1, sigma = 1 (mu = 1): the Neyman-Pearson test between N(0, 1) and
  N(1, 1) rejects for x > Phi^-1(1 - kappa), power Phi(Phi^-1(kappa) + mu) [DRS22, §2.3].
* Laplace mechanism, sensitivity 1, scale 1 (eps = 1), in the data space: between Lap(0, 1) and Lap(1, 1)
  the likelihood ratio e^{|x| - |x - 1|} increases on [0, 1] and is constant (e) beyond 1, so for
  kappa <= 1/2 the test rejecting x > t with P0[X > t] = e^{-t}/2 = kappa is most powerful: power
  P1[X > t] = e kappa when t >= 1 (the test's region lies where the ratio is e), 1 - e^{t - 1}/2 when
  0 <= t < 1.

Run: python reconstruction.py > reconstruction.txt   (mpmath, 40 digits)
"""
from mpmath import mp, mpf, ncdf, sqrt, erfinv, log, e, exp

mp.dps = 40


def Phi_inv(p):
    return sqrt(2) * erfinv(2 * p - 1)


def laplace_power(kappa):
    t = -log(2 * kappa)
    return e * kappa if t >= 1 else 1 - exp(t - 1) / 2


print("# <mechanism> <kappa> <1 - f(kappa)>")
for k in ["1/1000", "1/100", "1/2"]:
    kappa = mpf(k.split("/")[0]) / mpf(k.split("/")[1])
    print("gauss:sigma=1", k, mp.nstr(ncdf(Phi_inv(kappa) + 1), 35))
for k in ["1/1000", "1/4", "1/2"]:
    kappa = mpf(k.split("/")[0]) / mpf(k.split("/")[1])
    print("laplace:scale=1", k, mp.nstr(laplace_power(kappa), 35))
