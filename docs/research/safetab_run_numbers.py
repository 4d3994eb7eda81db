"""Independent reference values for `tightdp safetab` (src/mech/safetab.rs, src/mech/calib.rs MOE helpers).

mpmath at 60 digits, written from the paper's formulas only (no tightdp code):
  safetab-detailed-dhc-race-ethnicity.txt ("RE"), eq. 10 (two-sided geometric pmf), eq. 34-36 and D.3
  (geometric MOE), E.2 (discrete Gaussian MOE = floor(1.96 sigma)), Theorem 1 (pure DP = sum eps_i),
  Lemma 9 / Alg. 1-2 (per level: s counts of eps_i/s for TotalOnly groups, or s counts of g*eps_i/s and
  s of (1-g)*eps_i/s for two-stage groups).
Run: python3 -m venv venv-st && venv-st/bin/pip install mpmath && venv-st/bin/python3 this.py
"""
from mpmath import mp, mpf, exp, log, floor, ceil, sqrt, binomial, nsum, inf, findroot, gammainc
from fractions import Fraction as F
import itertools

mp.dps = 60

def geo_tail_abs_gt(b, m):
    """P[|Y| > m] = 2 r^(m+1)/(1+r), r = e^(-1/b), summed from the pmf of eq. 10 directly."""
    b = mpf(b.numerator) / b.denominator
    r = exp(-1 / b)
    c = (1 - r) / (1 + r)
    return 2 * nsum(lambda k: c * r ** k, [m + 1, inf])

def geo_moe_paper(b):
    bb = mpf(b.numerator) / b.denominator
    return int(floor(bb * log(40 / (1 + exp(1 / bb)))))

def geo_moe_exact(b):
    m = 0
    while geo_tail_abs_gt(b, m) > mpf(1) / 20:
        m += 1
    return m

def dg_pmf_norm(s2):
    s2 = mpf(s2.numerator) / s2.denominator
    z = nsum(lambda k: exp(-k * k / (2 * s2)), [-inf, inf])
    return s2, z

def dg_tail_abs_gt(s2, m):
    s2f, z = dg_pmf_norm(s2)
    return 2 * nsum(lambda k: exp(-k * k / (2 * s2f)), [m + 1, inf]) / z

def dg_moe_paper(s2):
    return int(floor(mpf('1.96') * sqrt(mpf(s2.numerator) / s2.denominator)))

def dg_moe_exact(s2):
    m = max(dg_moe_paper(s2) - 3, 0)
    while dg_tail_abs_gt(s2, m) > mpf(1) / 20:
        m += 1
    return m

s, g = 9, F(1, 10)
print("# geometric MOE rows (RE Table 4 totals as budgets): level budget, query, b, paper, exact, coverage at paper MOE")
for eps in [F(427, 100), F(249, 100), F(59, 100)]:
    for q, share in [("stage1-total", g), ("stage2-cell", 1 - g), ("total-only", F(1))]:
        b = 1 / (share * eps / s)
        mp_ = geo_moe_paper(b)
        print(eps, q, b, mp_, geo_moe_exact(b), mp.nstr(1 - geo_tail_abs_gt(b, mp_), 15))
print("# discrete Gaussian MOE rows (Table 4 rho totals)")
for rho in [F(534, 1000), F(159, 1000), F(8, 1000)]:
    for q, share in [("stage1-total", g), ("stage2-cell", 1 - g), ("total-only", F(1))]:
        s2 = 1 / (2 * share * rho / s)
        mp_ = dg_moe_paper(s2)
        print(rho, q, s2, mp_, dg_moe_exact(s2), mp.nstr(1 - dg_tail_abs_gt(s2, mp_), 15))

# exact epsilon of the geometric variant at delta = 1e-10 (add/remove).
# One sensitivity-1 geometric count with parameter e: the privacy loss ln p(o)/q(o) is +e for o <= 0
# (prob 1/(1+e^-e) under p) and -e for o >= 1; the pair is symmetric, so delta(eps) = E_P[(1 - e^(eps-L))_+].
def exact_eps(counts, delta):
    # counts: list of (e_j as Fraction, multiplicity)
    comps = []
    for e, n in counts:
        ef = mpf(e.numerator) / e.denominator
        p = 1 / (1 + exp(-ef))
        comps.append([(ef * (2 * k - n), binomial(n, k) * p ** k * (1 - p) ** (n - k)) for k in range(n + 1)])
    # convolve one component at a time; losses are exact rationals (keys), probabilities mpf
    atoms = {F(0): mpf(1)}
    for (e, n), comp in zip(counts, comps):
        nxt = {}
        for L0, P0 in atoms.items():
            for k in range(n + 1):
                L = L0 + e * (2 * k - n)
                nxt[L] = nxt.get(L, 0) + P0 * comp[k][1]
        atoms = nxt
    atoms = {k: (mpf(k.numerator) / k.denominator, v) for k, v in atoms.items()}
    atoms = sorted(atoms.values(), key=lambda t: t[0])
    def dl(eps):
        return sum(P * (1 - exp(eps - L)) for L, P in atoms if L > eps)
    lo, hi = mpf(0), mpf(20)
    d = mpf(delta)
    for _ in range(200):
        mid = (lo + hi) / 2
        if dl(mid) > d:
            lo = mid
        else:
            hi = mid
    return hi

eps_levels = [F(427, 100)] * 2 + [F(249, 100)] * 2 + [F(59, 100)] * 3
def merged(pairs):
    out = {}
    for e, n in pairs:
        out[e] = out.get(e, 0) + n
    return sorted(out.items())
total_only = merged([(e / s, s) for e in eps_levels])
two_stage = merged([(g * e / s, s) for e in eps_levels] + [((1 - g) * e / s, s) for e in eps_levels])
print("# pure DP (Theorem 1):", float(sum(eps_levels)))
print("# exact eps, all levels total-only (worst case):", mp.nstr(exact_eps(total_only, '1e-10'), 20))
print("# exact eps, all levels two-stage:", mp.nstr(exact_eps(two_stage, '1e-10'), 20))
rho = mpf('1.41')
print("# DG: rho = sum rho_i = 1.41 (Theorem 3); Bun-Steinke eps = rho + 2 sqrt(rho ln 1/delta):", mp.nstr(rho + 2 * sqrt(rho * log(mpf(10) ** 10)), 20))

# chi-square upper 0.1% critical values (regularized upper incomplete gamma Q(k/2, x/2) = 0.001)
for k in [30, 120]:
    x = findroot(lambda x: gammainc(mpf(k) / 2, x / 2, inf, regularized=True) - mpf('0.001'), k + 3 * sqrt(2 * k))
    print("# chi2 crit alpha=0.001 dof", k, mp.nstr(x, 10))
