#!/usr/bin/env python3
"""Reference values for Poisson subsampling under replace-one neighbours of the Laplace, discrete Gaussian and
discrete Laplace mechanisms (src/noise/poisson_replace_laplace.rs, src/noise/poisson_replace_integer.rs).

The pair is dp_accounting's REPLACE pair with sub-sampling (privacy_loss_mechanism.py, AdditiveNoisePrivacyLoss):
    A(x) = q p(x + Delta) + (1 - q) p(x),    B(x) = q p(x - Delta) + (1 - q) p(x),
p the noise density (Laplace: e^{-|x|/b}/(2b)) or mass function (discrete Gaussian: e^{-x^2/(2 sigma2)}/Z on the
integers, discrete Laplace: e^{-|x|/t}(1 - e^{-1/t})/(1 + e^{-1/t})), each normaliser summed directly.
Nothing of the code's closed forms is used: delta(eps) = sum_x (A(x) - e^eps B(x))_+ over the integers
(|x| <= K, the rest below 1e-40), or the integral of (A - e^eps B)_+ for Laplace by mpmath quadrature split at
the root of A = e^eps B (bisection on the densities) and at -Delta, 0, Delta.
Two releases: the double sum of (A(x)A(y) - e^eps B(x)B(y))_+ (discrete), and for Laplace
E_{x ~ A}[delta_1(eps - L(x))] with delta_1(t) = A[L >= t] - e^t B[L >= t] from the set {L >= t} = {x <= root}.
At q = 1/2 a loss atom equals eps exactly in two rows (laplace 0.5 1 1 1: the top atom is ln((e + 1)/(1/e + 1)) = 1;
dlap 0.5 2 1 0.5 likewise): there delta is 0, and the printed value is the quadrature's / sum's rounding (< 1e-40).
Run: python3 scripts/reference/poisson_replace_others.py > scripts/reference/poisson_replace_others.txt"""
from mpmath import mp, mpf, exp, log, quad, inf, nsum

mp.dps = 40


def lap_pair(q, b, d):
    p = lambda x: exp(-abs(x) / b) / (2 * b)
    return (lambda x: q * p(x + d) + (1 - q) * p(x)), (lambda x: q * p(x - d) + (1 - q) * p(x))


def lap_cdf(x, b):
    return exp(x / b) / 2 if x <= 0 else 1 - exp(-x / b) / 2


def lap_root(q, b, d, t):
    """{L >= t} = {x <= root}: root = +inf (all), -inf (none) or in [-d, d] (L is constant outside)."""
    A, B = lap_pair(q, b, d)
    L = lambda x: log(A(x)) - log(B(x))
    if t <= L(d + 1):
        return inf
    if t > L(-d - 1):
        return -inf
    lo, hi = -d, d
    for _ in range(mp.prec + 10):
        mid = (lo + hi) / 2
        if L(mid) >= t:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def lap_delta1_tail(q, b, d, t):
    r = lap_root(q, b, d, t)
    if r == inf:
        return 1 - exp(t)
    if r == -inf:
        return mpf(0)
    a = q * lap_cdf(r + d, b) + (1 - q) * lap_cdf(r, b)
    bb = q * lap_cdf(r - d, b) + (1 - q) * lap_cdf(r, b)
    return a - exp(t) * bb


def lap_delta1_quad(q, b, d, eps):
    A, B = lap_pair(q, b, d)
    r = lap_root(q, b, d, eps)
    if r == -inf:
        return mpf(0)
    pts = sorted(set([-d, mpf(0), d] + ([r] if r != inf else [])))
    hi = r if r != inf else inf
    pts = [x for x in pts if x < hi]
    return quad(lambda x: A(x) - exp(eps) * B(x), [-inf] + pts + [hi])


def lap_delta2(q, b, d, eps):
    A, B = lap_pair(q, b, d)
    L = lambda x: log(A(x)) - log(B(x))
    # the one-release tail has kinks where its level t is the bottom loss, L(0) or the top loss (its root
    # crosses -d, 0 or d, the Laplace densities' kinks): the outer integrand has one where eps - L(x) is one
    # of them, and the rule is split there (unsplit, (q, b, d, eps) = (0.2, 1, 1, 0.5) came out
    # 0.03186768049 where the split value is 0.03186765036)
    pts = [-10 * b, -d, mpf(0), d, 10 * b]
    for c in (L(d + 1), L(mpf(0)), L(-d - 1)):
        t = eps - c
        if L(d) < t < L(-d):
            lo, hi = -d, d  # L decreases on [-d, d]
            for _ in range(mp.prec + 10):
                mid = (lo + hi) / 2
                if L(mid) > t:
                    lo = mid
                else:
                    hi = mid
            pts.append((lo + hi) / 2)
    return quad(lambda x: A(x) * max(lap_delta1_tail(q, b, d, eps - L(x)), 0), [-inf] + sorted(set(pts)) + [inf])


def dgauss_pmf(s2, K):
    w = {x: exp(-mpf(x) ** 2 / (2 * s2)) for x in range(-K, K + 1)}
    z = sum(w.values())
    return lambda x: w.get(x, mpf(0)) / z


def dlap_pmf(t, K):
    w = {x: exp(-mpf(abs(x)) / t) for x in range(-K, K + 1)}
    z = sum(w.values())
    return lambda x: w.get(x, mpf(0)) / z


def int_pair(p, q, d):
    return (lambda x: q * p(x + d) + (1 - q) * p(x)), (lambda x: q * p(x - d) + (1 - q) * p(x))


def int_delta1(A, B, K, eps):
    e = exp(eps)
    return sum(max(A(x) - e * B(x), 0) for x in range(-K, K + 1))


def int_delta2(A, B, K, eps):
    e = exp(eps)
    xs = range(-K, K + 1)
    a = [A(x) for x in xs]
    b = [B(x) for x in xs]
    return sum(max(a[i] * a[j] - e * b[i] * b[j], 0) for i in range(len(a)) for j in range(len(a)))


print("# law q scale(b, sigma2 or t) mu eps delta(one release)")
for q, b, d, eps in [("0.2", "1", "1", "0.2"), ("0.05", "2", "1", "0.02"), ("0.5", "1", "1", "1"), ("0.5", "1", "1", "0.25")]:
    v = lap_delta1_quad(mpf(q), mpf(b), mpf(d), mpf(eps))
    print(f"laplace-one {q} {b} {d} {eps} {mp.nstr(v, 30)}")
for q, s2, d, eps, K in [("0.2", "2", 1, "0.5", 80), ("0.5", "1", 1, "0", 60), ("0.1", "10", 2, "0.3", 150)]:
    A, B = int_pair(dgauss_pmf(mpf(s2), K + 10), mpf(q), d)
    print(f"dgauss-one {q} {s2} {d} {eps} {mp.nstr(int_delta1(A, B, K, mpf(eps)), 30)}")
for q, t, d, eps, K in [("0.3", "1", 1, "0.5", 120), ("0.5", "2", 1, "0.5", 220), ("0.1", "3", 2, "0.1", 320)]:
    A, B = int_pair(dlap_pmf(mpf(t), K + 10), mpf(q), d)
    print(f"dlap-one {q} {t} {d} {eps} {mp.nstr(int_delta1(A, B, K, mpf(eps)), 30)}")
mp.dps = 25
print("# law q scale mu eps delta(two releases)")
for q, b, d, eps in [("0.2", "1", "1", "0.5")]:
    print(f"laplace-two {q} {b} {d} {eps} {mp.nstr(lap_delta2(mpf(q), mpf(b), mpf(d), mpf(eps)), 20)}")
for q, s2, d, eps, K in [("0.2", "2", 1, "0.5", 45)]:
    A, B = int_pair(dgauss_pmf(mpf(s2), K + 10), mpf(q), d)
    print(f"dgauss-two {q} {s2} {d} {eps} {mp.nstr(int_delta2(A, B, K, mpf(eps)), 20)}")
for q, t, d, eps, K in [("0.3", "1", 1, "0.5", 70)]:
    A, B = int_pair(dlap_pmf(mpf(t), K + 10), mpf(q), d)
    print(f"dlap-two {q} {t} {d} {eps} {mp.nstr(int_delta2(A, B, K, mpf(eps)), 20)}")
