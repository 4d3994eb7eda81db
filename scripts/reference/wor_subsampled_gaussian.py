#!/usr/bin/env python3
"""Reference values for sampling without replacement (noise/wor.rs), computed with mpmath from closed forms,
independently of tightdp.

Setting: the Gaussian mechanism N(0, s2) with replace sensitivity mu, run on a batch of m of pop records drawn
without replacement (g = m/pop), T runs, replace neighbours.

(a) One run, a concrete pair of data sets. Records are reals in [-mu/2, mu/2]; D = {+mu/2, -mu/2, ..., -mu/2},
    D' = {-mu/2, ..., -mu/2} (pop records each, one record replaced), the query is the batch's sum. Then
    M(D) = (1-g) N(c, s2) + g N(c + mu, s2) and M(D') = N(c, s2) with c = -m mu/2. Its hockey-stick divergence
    is a lower bound on any valid delta(eps) of the mechanism, and by [DRS22, Thm 9] with (1) of noise/wor.rs
    the bound is attained at eps >= 0: tightdp's bracket for T = 1 must contain it.
(b) T = 2 runs: the profile of the tensor square of C_g(f) [DRS22, Thm 4, Thm 9], from the symmetric pair (2) of
    noise/wor.rs written with closed forms: its one-run profile d1(x) is the Poisson remove profile for x >= 0
    (erfc closed form) and d1(x) = 1 - e^x + e^x d1(-x) for x < 0 (symmetric pair); then
        d2(eps) = m0 d1(eps) + int_{L_R > 0} d1(eps - L_R(t)) dA_R(t) + int_{L_R > 0} d1(eps + L_R(t)) dB_R(t)
    with A_R = (1-g) N(0, s2) + g N(mu, s2), B_R = N(0, s2), L_R = ln dA_R/dB_R, m0 = 1 - A_R[L_R > 0] - B_R[L_R > 0].
    Also the same two runs on the fixed pair of (a) (non-adaptive: M(D) x M(D) against M(D') x M(D')), which
    must lie below (b), and Poisson subsampling's T = 2 (remove and add directions composed separately), which
    (b) must exceed at this setting (the composition of WOR differs) while agreeing with it at T = 1.

Run: $VENV/bin/python scripts/reference/wor_subsampled_gaussian.py > scripts/reference/wor_subsampled_gaussian.txt
"""
import mpmath as mp

mp.mp.dps = 40


def phic(z):
    return mp.erfc(z / mp.sqrt(2)) / 2


class Setting:
    def __init__(self, s2, mu, m, pop):
        self.s2, self.mu, self.g = mp.mpf(s2), mp.mpf(mu), mp.mpf(m) / pop
        self.s = mp.sqrt(self.s2)

    def loss(self, t):
        """L_R(t) = ln((1-g) + g e^{(mu t - mu^2/2)/s2})."""
        return mp.log(1 - self.g + self.g * mp.exp((self.mu * t - self.mu ** 2 / 2) / self.s2))

    def t_of(self, x):
        """L_R(t) = x (x > ln(1 - g))."""
        return self.s2 / self.mu * mp.log((mp.exp(x) - 1 + self.g) / self.g) + self.mu / 2

    def a_above(self, t):
        return (1 - self.g) * phic(t / self.s) + self.g * phic((t - self.mu) / self.s)

    def b_above(self, t):
        return phic(t / self.s)

    def density_a(self, t):
        """A_R = (1-g) N(0, s2) + g N(mu, s2)."""
        return (1 - self.g) * mp.npdf(t, 0, self.s) + self.g * mp.npdf(t, self.mu, self.s)

    def density_b(self, t):
        """B_R = N(0, s2)."""
        return mp.npdf(t, 0, self.s)

    def expect(self, f, density, kinks=()):
        """The integral of f against A_R or B_R over the real line, split at f's kinks (points where it is not
        smooth) and every two standard deviations: a Gauss-Legendre or tanh-sinh rule across a kink converges
        slowly (unsplit, rem2(1) came out 0.00051417016 where the truth is 0.00051416043)."""
        grid = [2 * self.s * k for k in range(-12, 13)] + [self.mu]
        pts = sorted(set([-mp.inf, mp.inf] + grid + [k for k in kinks if mp.isfinite(k)]))
        return mp.quad(lambda t: f(t) * density(t), pts, maxdegree=12)

    def where_loss(self, x):
        """The t with L_R(t) = x, as a list (empty where L_R never takes x: x <= ln(1 - g))."""
        return [self.t_of(x)] if x > mp.log(1 - self.g) else []

    def rem1(self, x):
        """One-run profile of the Poisson Remove pair (A_R, B_R) at every real x (1 - e^x below ln(1 - g))."""
        if x <= mp.log(1 - self.g):
            return 1 - mp.exp(x)
        t = self.t_of(x)
        return self.a_above(t) - mp.exp(x) * self.b_above(t)

    def rem2(self, eps):
        """Two runs of the Remove pair (A_R, B_R) x (A_R, B_R) (rem1's kink at ln(1 - g))."""
        kinks = self.where_loss(eps - mp.log(1 - self.g))
        return self.expect(lambda t: self.rem1(eps - self.loss(t)), self.density_a, kinks)

    def d1(self, x):
        """One-run profile of the symmetric pair (2): the Remove profile for x >= 0, its mirror below."""
        if x < 0:
            return 1 - mp.exp(x) + mp.exp(x) * self.d1(-x)
        return self.rem1(x)

    def d2(self, eps):
        t0 = self.t_of(0)
        m0 = 1 - self.a_above(t0) - self.b_above(t0)
        fa = lambda t: self.d1(eps - self.loss(t)) * self.density_a(t)
        fb = lambda t: self.d1(eps + self.loss(t)) * self.density_b(t)
        ends = [t0] + [t0 + self.s * k for k in (1, 2, 4, 6, 10, 14, 20)] + [mp.inf]
        # d1 has a kink at 0 (the atom of (2) at loss 0): split fa's range where eps - L_R(t) = 0, and fb's
        # where eps + L_R(t) = 0
        ends_a = sorted(set(ends[:-1] + [t for t in self.where_loss(eps) if t > t0])) + [mp.inf]
        ends_b = sorted(set(ends[:-1] + [t for t in self.where_loss(-eps) if t > t0])) + [mp.inf]
        return m0 * self.d1(eps) + mp.quad(fa, ends_a, maxdegree=12) + mp.quad(fb, ends_b, maxdegree=12)

    def poisson2(self, eps):
        """Poisson subsampling, T = 2, the worse of the two directions composed separately."""
        # add direction: pair (B_R, A_R), H_a(B||A) = 1 - a + a H_{1/a}(A||B); its loss under B_R is -L_R
        add1 = lambda x: 1 - mp.exp(x) + mp.exp(x) * self.rem1(-x)
        add = self.expect(lambda t: add1(eps + self.loss(t)), self.density_b, self.where_loss(-mp.log(1 - self.g) - eps))
        return max(self.rem2(eps), add)

    def fixed_pair(self, eps, runs):
        """The data sets of (a), `runs` runs (1 or 2): hockey-stick divergence of the product laws."""
        # shift the batch sum by -c: M(D) = (1-g) N(0) + g N(mu), M(D') = N(0) -- the remove pair itself
        return self.d1(eps) if runs == 1 else self.rem2(eps)

    def mixed_pair(self, eps):
        """The data sets of (a), two runs whose second query counts the replacement record instead
        (f(x) = f(y) = 0, f(x') = 1): run 1 gives the remove-type pair (A_R, B_R), run 2 the add-type pair
        (B_R, A_R). A lower bound on delta(eps) of any valid accounting of T = 2 runs."""
        # E_{t2 ~ B_R}[ H_{e^{eps + L_R(t2)}}(A_R || B_R) ]: the loss of run 2 under its first law B_R is -L_R(t2)
        return self.expect(lambda t: self.rem1(eps + self.loss(t)), self.density_b, self.where_loss(mp.log(1 - self.g) - eps))


def rr_wor(eps_rr, k, g, runs, eps):
    """k-ary randomized response with parameter eps_rr, a batch fraction g drawn without replacement, `runs`
    runs: delta(eps) of the symmetric pair (2) by exact enumeration of its three atoms (finite sums)."""
    e = mp.exp(eps_rr)
    z = e + k - 1
    a_top, b_top = (1 - g) / z + g * e / z, 1 / z  # the Remove pair's atom at loss ln(1 - g + g e^eps_rr)
    l1 = mp.log(a_top / b_top)
    atoms = [(l1, a_top), (-l1, b_top), (mp.mpf(0), 1 - a_top - b_top)]  # (loss, A*-mass)
    total = mp.mpf(0)
    def rec(i, loss, mass):
        nonlocal total
        if i == runs:
            total += mass * max(mp.mpf(0), 1 - mp.exp(eps - loss))
            return
        for l, a in atoms:
            rec(i + 1, loss + l, mass * a)
    rec(0, mp.mpf(0), mp.mpf(1))
    return total


def dgauss_wor_one_run(s2, mu, g, eps):
    """The discrete Gaussian N_Z(0, s2), shift mu, one run: delta(eps >= 0) of the pair (2) is the Remove pair's,
    sum_k ((1-g) p(k) + g p(k - mu) - e^eps p(k))_+ with p the discrete Gaussian pmf (exact sums)."""
    s2, eps = mp.mpf(s2), mp.mpf(eps)
    w = lambda k: mp.exp(-mp.mpf(k) ** 2 / (2 * s2))
    K = int(40 * mp.sqrt(s2)) + 2 * mu + 10
    z = mp.fsum(w(k) for k in range(-K, K + 1))
    return mp.fsum(max(mp.mpf(0), ((1 - g) * w(k) + g * w(k - mu) - mp.exp(eps) * w(k)) / z) for k in range(-K, K + 1))


def eps_of(f, delta, lo, hi):
    """eps with f(eps) = delta by bisection (f decreasing)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(80):
        mid = (lo + hi) / 2
        if f(mid) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


if __name__ == "__main__":
    S = Setting(4, 2, 5, 50)  # sigma2 = 4, mu = 2, m = 5, pop = 50: g = 1/10
    print("# gauss:sigma2=4,mu=2,sampling=wor,m=5,pop=50 (g = 1/10), --neighbors replace")
    print("case,quantity,value")
    print("T=1,delta(1)," + mp.nstr(S.d1(1), 25))
    print("T=1 fixed pair (a),delta(1)," + mp.nstr(S.fixed_pair(1, 1), 25))
    print("T=2,delta(1)," + mp.nstr(S.d2(1), 25))
    print("T=2 fixed pair (a),delta(1)," + mp.nstr(S.fixed_pair(1, 2), 25))
    print("T=2 poisson q=1/10,delta(1)," + mp.nstr(S.poisson2(1), 25))
    print("T=2 mixed pair,delta(1)," + mp.nstr(S.mixed_pair(1), 25))
    print("T=2,delta(1/4)," + mp.nstr(S.d2(mp.mpf(1) / 4), 25))
    print("T=2,epsilon(1e-5)," + mp.nstr(eps_of(S.d2, mp.mpf("1e-5"), 0, 10), 20))
    print("# dgauss:sigma2=4,mu=2,sampling=wor,m=5,pop=50, one run: exact sums")
    print("T=1,delta(1)," + mp.nstr(dgauss_wor_one_run(4, 2, mp.mpf(1) / 10, 1), 25))
    print("# rr:epsilon=1,k=2,sampling=wor,m=1,pop=4 (g = 1/4), --neighbors replace: exact enumeration")
    for runs, eps in [(1, mp.mpf(0)), (3, mp.mpf(0)), (3, mp.mpf(1) / 2)]:
        print(f"T={runs},delta({mp.nstr(eps, 3)})," + mp.nstr(rr_wor(1, 2, mp.mpf(1) / 4, runs, eps), 30))
