"""Reference values for approximate zCDP (`zcdp:rho=R,xi=X`, src/noise/blackbox.rs), by mpmath.

n releases of (xi, rho)-zCDP have D_alpha <= n (xi + rho alpha) (Renyi divergences add); converted at the best of
dp_accounting's orders (1.1, 1.2, ..., 10.9, 11, ..., 63, 128, 256, 512, 1024) by [CKS20, Prop. 12]:
eps = tau + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1), tau = D_alpha, and
delta = min(1, exp((alpha - 1)(tau - eps + ln(1 - 1/alpha)))/alpha, sqrt(1 - exp(-tau))) (dp_accounting's
rdp_privacy_accountant conversions, written out here independently).

Lines: "epsilon rho xi n delta value" and "delta rho xi n eps value", 30 significant digits.

Run: python3 scripts/reference/zcdp_xi.py > scripts/reference/zcdp_xi.txt
"""
from mpmath import mp, mpf, log, exp, sqrt, nstr

mp.dps = 40


def orders():
    return [1 + mpf(x) / 10 for x in range(1, 100)] + [mpf(a) for a in range(11, 64)] + [mpf(a) for a in (128, 256, 512, 1024)]


def main():
    for rho, xi, n in [(mpf(1) / 8, mpf(1) / 10, 10), (mpf(1) / 2, mpf(1) / 100, 3)]:
        tau = lambda a: n * (xi + rho * a)
        e = min(tau(a) + log(1 - 1 / a) - (log(mpf("1e-5")) + log(a)) / (a - 1) for a in orders())
        print("epsilon", nstr(rho, 10), nstr(xi, 10), n, "1e-5", nstr(max(e, 0), 30))
        eps = mpf(3)
        cands = [mpf(1)]
        for a in orders():
            cands.append(exp((a - 1) * (tau(a) - eps + log(1 - 1 / a))) / a)
            cands.append(sqrt(1 - exp(-tau(a))))
        print("delta", nstr(rho, 10), nstr(xi, 10), n, "3", nstr(min(cands), 30))


if __name__ == "__main__":
    main()
