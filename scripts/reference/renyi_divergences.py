"""Reference values for the Renyi divergences and tight zCDP parameters of src/account/renyi.rs, computed
independently of tightdp's formulas: every D_alpha is the defining sum or integral
D_alpha(P||Q) = ln( sum_x p(x)^alpha q(x)^(1 - alpha) ) / (alpha - 1) of the two output distributions
(P the mechanism on D, Q on its neighbour), by direct summation over the integers or mpmath quadrature
of the densities; KL = sum_x p ln(p/q) likewise. No closed form of the tightdp code is used.

Cases (the --mech spellings; add/remove neighbours, sensitivity mu):
  dlap:scale=4          P = DLap(0, 4), Q = DLap(1, 4), pmf ~ e^{-|x|/4}
  dlap:scale=3,mu=2     P = DLap(0, 3), Q = DLap(2, 3)
  dgauss:sigma2=2       P = N_Z(0, 2),  Q = N_Z(1, 2)
  dgauss:sigma2=1/3,mu=2
  laplace:scale=4       densities of Lap(0, 4) and Lap(1, 4)
  gauss:sigma=1,q=1/100 Poisson-subsampled Gaussian, one step: remove (A_q || B) and add (B || A_q),
                        A_q = 0.99 N(0,1) + 0.01 N(1,1), B = N(0,1)
  gauss:sigma=11/10,q=256/60000, laplace:scale=1,q=1/10
                        the remove direction (A_q || B) at integer orders up to 256
The tight zCDP parameter rho = sup_{alpha>1} D_alpha/alpha: for these pure-DP laws D_alpha/alpha decreases
in alpha (checked below on a grid), so rho is the limit at alpha -> 1, the KL divergence.

Run: python renyi_divergences.py > renyi_divergences.txt   (mpmath, 40 digits)
"""
from mpmath import mp, mpf, exp, log, nsum, quad, inf, sqrt, pi

mp.dps = 40


def dlap_pmf(b, centre):
    z = (1 - exp(-1 / b)) / (1 + exp(-1 / b))
    return lambda x: z * exp(-abs(x - centre) / b)


def dgauss_pmf(s2, centre):
    norm = nsum(lambda x: exp(-(x - centre) ** 2 / (2 * s2)), [-inf, inf])
    return lambda x: exp(-(x - centre) ** 2 / (2 * s2)) / norm


def int_sum(f, cut):
    # sum over the integers, split at the pmfs' kinks 0 .. cut so nsum sees smooth pieces
    return nsum(f, [-inf, -1]) + sum(f(mpf(k)) for k in range(0, cut + 1)) + nsum(f, [cut + 1, inf])


def renyi_int(p, q, a, cut):
    return log(int_sum(lambda x: p(x) ** a * q(x) ** (1 - a), cut)) / (a - 1)


def kl_int(p, q, cut):
    return int_sum(lambda x: p(x) * log(p(x) / q(x)), cut)


def lap_pdf(b, centre):
    return lambda x: exp(-abs(x - centre) / b) / (2 * b)


def renyi_real(p, q, a, pts):
    return log(quad(lambda x: p(x) ** a * q(x) ** (1 - a), pts)) / (a - 1)


def kl_real(p, q, pts):
    return quad(lambda x: p(x) * log(p(x) / q(x)), pts)


def normal(mu):
    return lambda x: exp(-(x - mu) ** 2 / 2) / sqrt(2 * pi)


def show(name, v):
    print(f"{name} {mp.nstr(v, 32)}")


def decreasing(f, alphas):
    vals = [f(mpf(a)) / mpf(a) for a in alphas]
    return all(x > y for x, y in zip(vals, vals[1:]))


# discrete Laplace
for b, mu, alphas in [(4, 1, ["1.5", "2", "5", "100"]), (3, 2, ["2", "7"])]:
    p, q = dlap_pmf(mpf(b), 0), dlap_pmf(mpf(b), mu)
    tag = f"dlap:scale={b}" + ("" if mu == 1 else f",mu={mu}")
    for a in alphas:
        show(f"{tag} D_{a}", renyi_int(p, q, mpf(a), mu))
    show(f"{tag} KL", kl_int(p, q, mu))
    grid = ["1.001", "1.01", "1.1", "1.5", "2", "3", "5", "10", "30", "100"]
    print(f"{tag} D_alpha/alpha decreasing on {grid}: {decreasing(lambda a: renyi_int(p, q, a, mu), grid)}")

# discrete Gaussian
for s2, mu, alphas in [(mpf(2), 1, ["1.5", "2", "3.25"]), (mpf(1) / 3, 2, ["1.3", "2"])]:
    p, q = dgauss_pmf(s2, 0), dgauss_pmf(s2, mu)
    tag = "dgauss:sigma2=2" if mu == 1 else "dgauss:sigma2=1/3,mu=2"
    for a in alphas:
        show(f"{tag} D_{a}", renyi_int(p, q, mpf(a), mu))
    show(f"{tag} KL", kl_int(p, q, mu))

# Laplace
p, q = lap_pdf(mpf(4), 0), lap_pdf(mpf(4), 1)
for a in ["1.5", "2", "10"]:
    show(f"laplace:scale=4 D_{a}", renyi_real(p, q, mpf(a), [-inf, 0, 1, inf]))
show("laplace:scale=4 KL", kl_real(p, q, [-inf, 0, 1, inf]))
grid = ["1.001", "1.01", "1.1", "1.5", "2", "3", "5", "10", "30"]
print(f"laplace:scale=4 D_alpha/alpha decreasing on {grid}: {decreasing(lambda a: renyi_real(p, q, a, [-inf, 0, 1, inf]), grid)}")

# Poisson-subsampled Gaussian, one step
qq = mpf(1) / 100
aq = lambda x: (1 - qq) * normal(0)(x) + qq * normal(1)(x)
bq = normal(0)
for a in ["2", "2.5", "8"]:
    show(f"gauss:sigma=1,q=1/100 remove D_{a}", renyi_real(aq, bq, mpf(a), [-inf, -5, 0, 5, inf]))
    show(f"gauss:sigma=1,q=1/100 add D_{a}", renyi_real(bq, aq, mpf(a), [-inf, -5, 0, 5, inf]))

# Poisson-subsampled Gaussian and Laplace mechanism, one step, the remove direction (A_q || B) at integer
# orders up to 256 (src/noise/subsample.rs expands these binomially; here, the defining integral)
s = mpf(11) / 10
qq = mpf(256) / 60000
normal_s = lambda mu: (lambda x: exp(-(x - mu) ** 2 / (2 * s * s)) / (s * sqrt(2 * pi)))
aq = lambda x: (1 - qq) * normal_s(0)(x) + qq * normal_s(1)(x)
bq = normal_s(0)
for a in ["3", "64", "256"]:
    pts = [-inf, -5, 0, 5] + [mpf(k) for k in range(25, int(a) + 60, 25)] + [inf]
    show(f"gauss:sigma=11/10,q=256/60000 remove D_{a}", renyi_real(aq, bq, mpf(a), pts))
qq = mpf(1) / 10
aq = lambda x: (1 - qq) * lap_pdf(mpf(1), 0)(x) + qq * lap_pdf(mpf(1), 1)(x)
bq = lap_pdf(mpf(1), 0)
for a in ["2", "20"]:
    show(f"laplace:scale=1,q=1/10 remove D_{a}", renyi_real(aq, bq, mpf(a), [-inf, 0, 1, inf]))
