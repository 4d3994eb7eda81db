#!/usr/bin/env python3
"""Reference privacy profiles of Gaussian releases composed with discrete Gaussian releases (sensitivity 1,
add/remove), for the tilted engine's discrete Gaussian law (`noise/mgf_dgauss.rs`), by mpmath at 50 digits,
independently of tightdp and with no Fourier inversion: the composed loss is L = L_G + L_D with
L_G ~ N(eta_G, 2 eta_G) (eta_G = sum of n_g/(2 sigma_g^2)) independent of L_D = n eta_D - s S, S the sum of n
i.i.d. N_Z(0, sigma^2) (eta_D = 1/(2 sigma^2), s = 1/sigma^2; its pmf by exact convolution of the truncated
pmf, the mass beyond 40 sigma below 1e-300), so

  delta(eps) = sum_S P[S] delta_G(eps - n eta_D + s S),
  delta_G(x) = Phi(-x/m + m/2) - e^x Phi(-x/m - m/2),  m = sqrt(2 eta_G)   [BW18, Thm 8],

and epsilon(delta) by bisection on it (delta decreases in eps), to 2^-200 of [0, 200]. Both neighbouring orders have this law (the discrete Gaussian's is
symmetric).
Run: python3 scripts/reference/gauss_dgauss_mix.py > scripts/reference/gauss_dgauss_mix.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, erfc, sqrt, nstr

mp.dps = 50


def Phi(x):
    return erfc(-x / sqrt(2)) / 2


def dgauss_sum_pmf(sigma2, n):
    w = int(40 * float(sigma2) ** 0.5) + 2
    base = {x: exp(-mpf(x) ** 2 / (2 * sigma2)) for x in range(-w, w + 1)}
    z = sum(base.values())
    base = {x: v / z for x, v in base.items()}
    out = {0: mpf(1)}
    for _ in range(n):
        nxt = {}
        for a, pa in out.items():
            for b, pb in base.items():
                nxt[a + b] = nxt.get(a + b, 0) + pa * pb
        # drop masses below 1e-300 (their total is far below the digits printed)
        out = {k: v for k, v in nxt.items() if v > mpf(10) ** -300}
    return out


def profile(eta_g, sigma2, n):
    m = sqrt(2 * eta_g)
    eta_d, s = 1 / (2 * sigma2), 1 / sigma2
    pmf = dgauss_sum_pmf(sigma2, n)

    def dg(x):
        return Phi(-x / m + m / 2) - exp(x) * Phi(-x / m - m / 2)

    return lambda eps: sum(p * dg(eps - n * eta_d + s * S) for S, p in pmf.items())


def main():
    print("# gauss_sigma2 gauss_n dgauss_sigma2 dgauss_n query value result")
    for gs2, gn, ds2, dn, query, value in [("4", 10, "4", 10, "epsilon", "1e-10"), ("4", 100, "100", 10, "epsilon", "1e-5"),
                                           ("4", 100, "100", 10, "delta", "30"), ("1/2", 3, "1/3", 5, "delta", "2")]:
        g, d = Fraction(gs2), Fraction(ds2)
        eta_g = gn / (2 * (mpf(g.numerator) / g.denominator))
        delta = profile(eta_g, mpf(d.numerator) / d.denominator, dn)
        if query == "delta":
            r = delta(mpf(value))
        else:
            target = mpf(value)
            lo, hi = mpf(0), mpf(200)
            for _ in range(200):  # delta decreases in eps: bisection to 2^-200 of the bracket
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if delta(mid) > target else (lo, mid)
            r = (lo + hi) / 2
        print(gs2, gn, ds2, dn, query, value, nstr(r, 35))


if __name__ == "__main__":
    main()
