"""Reference values for one release of the Poisson-subsampled Laplace mechanism at dyadic rates
(src/noise/subsample.rs, src/account/single.rs): scale b = 1, sensitivity 1, add/remove neighbours.

B = Lap(0, 1), A = Lap(1, 1); the mechanism's loss is l(x) = |x| - |x - 1| (-1 for x <= 0, 2x - 1 on
(0, 1), 1 for x >= 1). The subsampled dominating pairs [ZDW22] are
  Remove: (A_q, B) with A_q = (1 - q) B + q A,   delta_R(eps) = int (A_q - e^eps B)_+
                                                               = int_{l > s} B (1 - q + q e^l - e^eps),
          s = ln((e^eps - 1 + q)/q);
  Add:    (B, A_q),                               delta_A(eps) = int_{l < s'} B (1 - e^eps (1 - q + q e^l)),
          s' = ln((e^-eps - 1 + q)/q) (empty where e^-eps <= 1 - q),
both in closed form from the Laplace distribution functions; delta(eps) is the larger, and eps(delta)
its inverse (bisection to 45 digits). At u = 0 and a dyadic q the subsampled loss's preimage is
ln(q/q) = 0 exactly, which once cost 8.6 s and 665 MB per query.

Run: python subsampled_laplace_dyadic.py > subsampled_laplace_dyadic.txt   (mpmath, 50 digits)
"""
from mpmath import mp, mpf, exp, log

mp.dps = 50


def B_above(x):  # P[Lap(0,1) > x]
    return exp(-x) / 2 if x >= 0 else 1 - exp(x) / 2


def A_above(x):  # P[Lap(1,1) > x]
    return B_above(x - 1)


def delta_remove(eps, q):
    s = log((exp(eps) - 1 + q) / q)
    if s >= 1:
        return mpf(0)
    # the atom at x >= 1 (l = 1) and the ramp x in (x*, 1) with 2x* - 1 = s; l > s on x > x*
    xs = (s + 1) / 2 if s > -1 else mpf(0)
    below_all = s < -1  # every x, the atom x <= 0 included, has l > s
    if below_all:
        return (1 - q - exp(eps)) + q
    return (1 - q - exp(eps)) * B_above(xs) + q * A_above(xs)


def delta_add(eps, q):
    w = exp(-eps) - 1 + q
    if w <= 0:
        return mpf(0)
    s = log(w / q)
    if s <= -1:
        return mpf(0)
    xs = (s + 1) / 2 if s < 1 else mpf("inf")
    # l < s on x < x* (the atom x <= 0 at l = -1 included)
    Bb = 1 - B_above(xs) if xs != mpf("inf") else mpf(1)
    Ab = 1 - A_above(xs) if xs != mpf("inf") else mpf(1)
    return (1 - exp(eps) * (1 - q)) * Bb - exp(eps) * q * Ab


def delta(eps, q):
    return max(delta_remove(eps, q), delta_add(eps, q), mpf(0))


def epsilon(d, q):
    lo, hi = mpf(0), log(1 + q * (exp(1) - 1))
    for _ in range(170):
        mid = (lo + hi) / 2
        if delta(mid, q) > d:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


print("# laplace:scale=1,q=<q>  delta  epsilon(delta)")
for q in ["1/2", "1/4"]:
    qq = mpf(q.split("/")[0]) / mpf(q.split("/")[1])
    print(q, "1e-5", mp.nstr(epsilon(mpf("1e-5"), qq), 45))
print("# laplace:scale=1,q=<q>  epsilon  delta(epsilon)")
for q in ["1/2", "1/4"]:
    qq = mpf(q.split("/")[0]) / mpf(q.split("/")[1])
    print(q, "1/4", mp.nstr(delta(mpf(1) / 4, qq), 45))
