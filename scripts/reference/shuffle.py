"""Reference values for src/attack/shuffle.rs (the shuffled-batches lower bound), by mpmath at 30 digits.

1. The per-epoch probabilities that the largest of T outputs exceeds tau, from their closed forms
   (with the record, shifted by c = 1 under add/remove and 2 under replace: 1 - Phi((tau-c)/s) Phi(tau/s)^(T-1);
   without it: 1 - Phi(tau/s)^T), evaluated independently here.
2. The exact delta(eps) of the whole one-epoch pair for T = 2 (add/remove): P = (N(e1, s^2 I) + N(e2, s^2 I))/2
   against Q = N(0, s^2 I), delta = E_P[(1 - e^eps q/p)_+], as a one-dimensional integral over y1 of the
   closed-form integral over y2 (the likelihood ratio rises in y2), in both orderings (the larger printed).
   Any test's bound must lie below it.

Run: python3 scripts/reference/shuffle.py > scripts/reference/shuffle.txt
"""
from mpmath import mp, mpf, ncdf, npdf, quad, log, exp, inf, sqrt

mp.dps = 30


def above(tau, s, T, rel):
    tau, s = mpf(tau), mpf(s)
    c = 1 if rel == "add-remove" else 2
    p = 1 - ncdf((tau - c) / s) * ncdf(tau / s) ** (T - 1)
    q = 1 - ncdf(tau / s) ** T
    return p, q


def delta_t2(eps, s):
    """delta of P vs Q and of Q vs P for T = 2, add/remove, noise s."""
    s, eps = mpf(s), mpf(eps)
    v = s * s
    pdf = lambda y, m: npdf(y, m, s)
    sf = lambda y, m: 1 - ncdf(y, m, s)

    def lr_cut(y1, level):
        # LR(y) = (e^{(2 y1 - 1)/(2v)} + e^{(2 y2 - 1)/(2v)})/2 > level  <=>  y2 > cut (None: every y2)
        r = 2 * level - exp((2 * y1 - 1) / (2 * v))
        return None if r <= 0 else v * log(r) + mpf(1) / 2

    def pq(y1):
        c = lr_cut(y1, exp(eps))
        p = (pdf(y1, 1) * (1 if c is None else sf(c, 0)) + pdf(y1, 0) * (1 if c is None else sf(c, 1))) / 2
        return p - exp(eps) * pdf(y1, 0) * (1 if c is None else sf(c, 0))

    def qp(y1):
        # Q vs P: the set LR < e^{-eps}, i.e. y2 < cut at level e^{-eps}
        c = lr_cut(y1, exp(-eps))
        if c is None:
            return mpf(0)
        q = pdf(y1, 0) * ncdf(c, 0, s)
        p = (pdf(y1, 1) * ncdf(c, 0, s) + pdf(y1, 0) * ncdf(c, 1, s)) / 2
        return q - exp(eps) * p

    # lr_cut switches to "every y2" where r = 0: y1 = v ln(2 level) + 1/2; the integrands change branch there
    # (a flat but not smooth join: unsplit, (eps, s) = (1, 0.7) came out 0.1901457925 where the split
    # value is 0.1901458128)
    ya = v * log(2 * exp(eps)) + mpf(1) / 2
    yb = v * log(2 * exp(-eps)) + mpf(1) / 2
    base = [mpf(x) for x in (-5, 0, 1, 3, 8)]
    a = quad(pq, [-inf] + sorted(set(base + [ya])) + [inf])
    b = quad(qp, [-inf] + sorted(set(base + [yb])) + [inf])
    return a, b


def known_order(sigma, epochs, rel, measure, at):
    """The upper bound of shuffled batches (src/app/shuffle.rs): E Gaussian releases of sensitivity 1
    (add/remove as zero-out) or 2 (replace) with noise sigma, i.e. the Gaussian of mu = Delta sqrt(E)/sigma,
    whose delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) [DRS22]; eps(delta) by root finding."""
    mu = (2 if rel == "replace" else 1) * sqrt(epochs) / mpf(sigma)
    d = lambda e: ncdf(-e / mu + mu / 2) - exp(e) * ncdf(-e / mu - mu / 2)
    if measure == "delta":
        return d(mpf(at))
    lo, hi = mpf(0), 20 * mu * mu + 20  # delta(eps) decreases: bisection to 2^-200
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > mpf(at) else (lo, mid)
    return (lo + hi) / 2


if __name__ == "__main__":
    for tau, s, T, rel in [("2.5", "1", 100, "add-remove"), ("3.75", "0.8", 1000, "replace"), ("1.5", "2", 10, "add-remove")]:
        p, q = above(tau, s, T, rel)
        print(f"above {tau} {s} {T} {rel} {mp.nstr(p, 25)} {mp.nstr(q, 25)}")
    for eps, s in [("0.5", "1"), ("1", "0.7")]:
        a, b = delta_t2(eps, s)
        print(f"delta_t2 {eps} {s} {mp.nstr(max(a, b), 20)}")
    for sigma, epochs, rel, measure, at in [("1.1", 60, "add-remove", "epsilon", "1e-5"), ("1", 1, "add-remove", "epsilon", "1e-5"),
                                            ("1", 3, "replace", "delta", "1"), ("0.5", 10, "replace", "epsilon", "1e-8")]:
        print(f"upper {sigma} {epochs} {rel} {measure} {at} {mp.nstr(known_order(sigma, epochs, rel, measure, at), 25)}")
