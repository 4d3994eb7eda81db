"""Reference values for truncated Poisson sampling of the Gaussian mechanism (src/noise/truncated.rs,
`--mech truncgauss:`, dp_accounting's TruncatedSubsampledGaussianDpEvent), computed with mpmath without
tightdp's code:

* t = P[Bin(N - 1, q) >= B] and q' = P[Bin(N, q) > B] B/(t N), the binomial tails by the regularized incomplete
  beta function, P[Bin(n, q) >= k] = I_q(k, n - k + 1);
* delta(eps) of one release of dp_accounting's pair: the branch-revealing mixture, t on the replace pair of the
  Gaussian of standard deviation sigma/2 on a Poisson sample with probability q'
  (q' N(-1, s^2/4) + (1 - q') N(0, s^2/4) against q' N(1, s^2/4) + (1 - q') N(0, s^2/4)), 1 - t on the
  Poisson-subsampled Gaussian ((1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2), and the reverse pair for
  add): the hockey-stick divergence of a branch-revealing mixture is the mixture of the branches' divergences,
  each the integral of (a - e^eps b)_+ over the set where a > e^eps b (one interval: the loss is monotone).

Run: python truncated.py > truncated.txt   (mpmath, 40 digits; a few seconds)
"""
from mpmath import mp, mpf, betainc, exp, sqrt, pi, quad, findroot, inf, log

mp.dps = 40

CASES = [
    # (spec, sigma, q, B, N)
    ("truncgauss:sigma=1,prob=1/20,batch=60,records=1000", mpf(1), mpf(1) / 20, 60, 1000),
    ("truncgauss:sigma=3/2,prob=1/100,batch=12,records=1000", mpf(3) / 2, mpf(1) / 100, 12, 1000),
]


def tail(n, q, k):
    return betainc(k, n - k + 1, 0, q, regularized=True)


def pdf(x, m, s):
    return exp(-((x - m) ** 2) / (2 * s * s)) / (s * sqrt(2 * pi))


def hockey(a, b, eps, rising):
    """The integral of (a - e^eps b)_+ where the loss ln(a/b) rises (or falls) in x."""
    g = lambda x: log(a(x)) - log(b(x)) - eps
    # the loss's supremum (at +inf when rising, -inf when falling) below eps: no mass above, delta = 0
    if g(mpf(10**4) if rising else mpf(-10**4)) < 0:
        return mpf(0)
    lo, hi = mpf(-1), mpf(1)
    # bracket the crossing
    while (g(hi) < 0) == rising:
        hi *= 2
    while (g(lo) > 0) == rising:
        lo *= 2
    x0 = findroot(g, (lo, hi), solver="anderson")
    f = lambda x: a(x) - exp(eps) * b(x)
    return quad(f, [x0, x0 + 10, inf]) if rising else quad(f, [-inf, x0 - 10, x0])


print("# tails <spec> <t> <q'>")
print("# delta1 <spec> <direction> <eps> <delta>")
for spec, s, q, B, N in CASES:
    t = tail(N - 1, q, B)
    qp = tail(N, q, B + 1) * B / (t * N)
    print("tails", spec, mp.nstr(t, 35), mp.nstr(qp, 35))
    half = s / 2
    cut_a = lambda x: qp * pdf(x, -1, half) + (1 - qp) * pdf(x, 0, half)
    cut_b = lambda x: qp * pdf(x, 1, half) + (1 - qp) * pdf(x, 0, half)
    mix = lambda x: (1 - q) * pdf(x, 0, s) + q * pdf(x, 1, s)
    zero = lambda x: pdf(x, 0, s)
    for eps in [mpf(1) / 2, mpf(1)]:
        cut = hockey(cut_a, cut_b, eps, rising=False)
        remove = t * cut + (1 - t) * hockey(mix, zero, eps, rising=True)
        add = t * cut + (1 - t) * hockey(zero, mix, eps, rising=False)
        e = "1/2" if eps < 1 else "1"
        print("delta1", spec, "remove", e, mp.nstr(remove, 35))
        print("delta1", spec, "add", e, mp.nstr(add, 35))
