"""Reference values for the mixture-of-Gaussians law (src/noise/mog.rs, `--mech mog:`), computed from the
densities by mpmath quadrature, without tightdp's closed forms.

The pair of one release, sensitivity c_i with probability p_i (the rest at 0), noise N(0, sigma^2):
A = sum_i p_i N(c_i, sigma^2) (with the record), B = N(0, sigma^2); Remove is (A, B), Add is (B, A)
[CGST24, Cor. 4.7]; dp_accounting's MixtureOfGaussiansDpEvent. The loss ln(a/b)(x) rises in x, so
{L >= l} = {x >= x*(l)}, with x* found by mpmath.findroot; every mass below is an integral of a density.

* split: A[L >= l] and B[L >= l] for the Remove pair, and A'[L' >= l], B'[L' >= l] for Add (L' = -L).
* delta1: delta(eps) of one release, each direction: the integral of (a - e^eps b)_+ (resp. (b - e^eps a)_+).
* delta2: delta(eps) of two releases, each direction: the integral over x1 of the one-release
  hockey-stick at eps - L(x1), weighted by the densities (a double integral, inner part by quadrature too).

Run: python mog.py > mog.txt   (mpmath, 40 digits; about a minute)
"""
from mpmath import mp, mpf, exp, log, sqrt, pi, quad, findroot, inf

mp.dps = 40

CASES = [
    # (name, sigma, [(c, p)]): the second is dp_accounting's "sampled twice" example, q = 0.1
    ("mog:sigma=1,sens=1:2,probs=0.18:0.01", mpf(1), [(mpf(1), mpf("0.18")), (mpf(2), mpf("0.01"))]),
    ("mog:sigma=3/2,sens=1/2:1,probs=1/2:1/2", mpf(3) / 2, [(mpf(1) / 2, mpf(1) / 2), (mpf(1), mpf(1) / 2)]),
]


def gauss_pdf(x, m, s):
    return exp(-((x - m) ** 2) / (2 * s * s)) / (s * sqrt(2 * pi))


def make(sigma, parts):
    p0 = 1 - sum(p for _, p in parts)

    def a(x):
        return p0 * gauss_pdf(x, 0, sigma) + sum(p * gauss_pdf(x, c, sigma) for c, p in parts)

    def b(x):
        return gauss_pdf(x, 0, sigma)

    def loss(x):
        return log(a(x) / b(x))

    def root(l):
        # L rises in x; None where every loss is above l (l <= ln p0), or every loss from -80 on (the mass
        # below -80 is below 1e-1300)
        if p0 > 0 and l <= log(p0):
            return None
        if loss(mpf(-80)) >= l:
            return None
        lo, hi = mpf(-1), mpf(1)
        while loss(hi) < l:
            hi *= 2
        while loss(lo) >= l:
            lo *= 2
        try:
            return findroot(lambda x: loss(x) - l, (lo, hi), solver="anderson")
        except ValueError:
            # (near l = ln p0 the root runs off to -infinity and the secant steps fail: bisection)
            for _ in range(mp.prec + 8):
                m = (lo + hi) / 2
                if loss(m) >= l:
                    hi = m
                else:
                    lo = m
            return (lo + hi) / 2

    return a, b, loss, root, p0


def above(f, x0):
    """The integral of a density f over [x0, inf) (x0 None: everything)."""
    if x0 is None:
        return quad(f, [-inf, 0, inf])
    return quad(f, [x0, x0 + 10, inf])


def below(f, x0):
    if x0 is None:
        return mpf(0)
    return quad(f, [-inf, x0 - 10, x0])


def hockey(a, b, loss, root, eps, direction):
    """delta(eps) of one release: Remove integrates (a - e^eps b) over {L >= eps}, Add (b - e^eps a) over
    {L <= -eps}."""
    if direction == "remove":
        x0 = root(eps)
        return above(a, x0) - exp(eps) * above(b, x0)
    x0 = root(-eps)
    return below(b, x0) - exp(eps) * below(a, x0)


def hockey2(a, b, loss, root, eps, direction):
    """delta(eps) of two releases: E over the first output of the one-release curve at eps - L(x1)."""
    if direction == "remove":
        def g(x):
            t = eps - loss(x)
            x0 = root(t)
            return a(x) * above(a, x0) - exp(eps) * b(x) * above(b, x0)
    else:
        def g(x):
            # the Add pair's loss is -L: the second release must bring -L(x2) >= eps + L(x1)
            t = -(eps + loss(x))
            x0 = root(t)
            return b(x) * below(b, x0) - exp(eps) * a(x) * below(a, x0)
    # the inner root is None (every loss above the level) past the x where the level reaches ln p0: the
    # integrand changes branch there, and the rule is split at it (unsplit, two removes at eps = 1/2 came out
    # 0.0302471430 where the split value is 0.0302471442)
    pts = [mpf(-5), mpf(0), mpf(5)]
    if p0 > 0:
        level = eps - log(p0) if direction == "remove" else -log(p0) - eps
        x = root(level)
        if x is not None:
            pts.append(x)
    return quad(g, [-inf] + sorted(set(pts)) + [inf])


print("# split <spec> <direction> <l> <A[L>=l]> <B[L>=l]>")
for name, sigma, parts in CASES:
    a, b, loss, root, p0 = make(sigma, parts)
    for l in ["-1/2", "0", "1/4", "3/2"]:
        lv = mpf(eval(l + "*1.0")) if "/" not in l else mpf(l.split("/")[0]) / mpf(l.split("/")[1])
        x0 = root(lv)
        print("split", name, "remove", l, mp.nstr(above(a, x0), 35), mp.nstr(above(b, x0), 35))
        # Add: A' = B, L' = -L: {L' >= l} = {L <= -l}
        x1 = root(-lv)
        print("split", name, "add", l, mp.nstr(below(b, x1), 35), mp.nstr(below(a, x1), 35))
print("# delta1 <spec> <direction> <eps> <delta>")
for name, sigma, parts in CASES:
    a, b, loss, root, p0 = make(sigma, parts)
    for eps in ["1/4", "1"]:
        ev = mpf(eps.split("/")[0]) / mpf(eps.split("/")[1]) if "/" in eps else mpf(eps)
        for d in ["remove", "add"]:
            print("delta1", name, d, eps, mp.nstr(hockey(a, b, loss, root, ev, d), 35))
print("# delta2 <spec> <direction> <eps> <delta>")
mp.dps = 25
for name, sigma, parts in CASES[:1]:
    a, b, loss, root, p0 = make(sigma, parts)
    for d in ["remove", "add"]:
        print("delta2", name, d, "1/2", mp.nstr(hockey2(a, b, loss, root, mpf(1) / 2, d), 20))
