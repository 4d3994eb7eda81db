#!/usr/bin/env python3
"""Independent exact ε(δ = 1e-10) of SafeTab-P at the production budgets, for `tightdp certify` of a
run on the real specification files (tests/safetab_production_cli.rs).

Written from the papers and the production configuration only (no tightdp code):
  safetab-p-detailed-dhc-a.txt [HBC25]: Alg. 1-3 (each group of level i gets rho_i/s, s = 9; a
  TotalOnly group one N_Z(0, s/(2 rho_i)) total, the others a Stage-1 total with gamma*rho_i/s and
  Stage-2 cells with (1-gamma)*rho_i/s, one cell changing), §4 (a person changes at most s groups per
  level; replace neighbours change 2s), Table 7 (rho_i: 2.134 nation/state detailed, 0.159 county,
  tract, place, AIANNH detailed, 0.008 nation, state, county, tract, place regional), §6.3.1 (gamma 0.1);
  §5.4.2 and config.json (data/safetab/production/) for the Puerto Rico pass: PR-STATE 2.134 / 0.008,
  PR-COUNTY, PR-TRACT, PR-PLACE 0.159 / 0.008, on persons disjoint from the US pass.

Method. One discrete Gaussian count of variance sigma^2 = 1/(2c) shifted by one has privacy loss
L = (2X + 1) c, X ~ N_Z(0, sigma^2) under the shifted law, and delta(eps) = E[(1 - e^(eps - L))_+] for
the sum of the independent losses of all counts a person changes. Every c here is an integer multiple
of u = 1e-4/9, so L lives on the lattice u*Z: the counts are grouped into three families whose c are
multiples of 2134u, 159u and 8u (nation/state detailed, sub-state detailed, regional), each family's
loss is an exact lattice distribution (numpy direct convolutions of pmfs computed with mpmath, tails
below 1e-60 dropped), the first two families are combined on u*Z above a cut where they can still
matter, and delta(eps) is summed against the third family's suffix sums. Float64 sums of positive
terms: relative error ~1e-13 in delta, so ~1e-13 in eps. eps is found by bisection (60 steps).

Run: python3 -m venv $VENV && $VENV/bin/pip install numpy mpmath
     $VENV/bin/python3 scripts/reference/safetab_p_production_eps.py > scripts/reference/safetab_p_production_eps.txt
"""
from fractions import Fraction as F
import math

import mpmath as mp
import numpy as np

mp.mp.dps = 40
DELTA = 1e-10
GAMMA = F(1, 10)
S = 9
U = F(1, 90000)  # 1e-4/9
TAIL = mp.mpf("1e-60")


def dg_pmf(sigma2):
    """pmf of N_Z(0, sigma2) on [-K, K] (terms below 1e-60 of the peak dropped), as float64."""
    s2 = mp.mpf(sigma2.numerator) / sigma2.denominator
    k = int(mp.ceil(mp.sqrt(2 * s2 * (-mp.log(TAIL))))) + 1
    w = [mp.exp(-mp.mpf(x) ** 2 / (2 * s2)) for x in range(-k, k + 1)]
    z = mp.fsum(w)
    return k, np.array([float(x / z) for x in w])


def sum_of_copies(sigma2, copies):
    """pmf of S = X_1 + … + X_copies, X_j iid N_Z(0, sigma2): (offset, array), S = offset + index."""
    k, p = dg_pmf(sigma2)
    out, off = np.array([1.0]), 0
    for _ in range(copies):
        out = np.convolve(out, p)
        off -= k
        keep = np.nonzero(out > 1e-60 * out.max())[0]
        out, off = out[keep[0] : keep[-1] + 1], off + keep[0]
    return off, out


def family(components, base):
    """Loss distribution of a family on the lattice base*u*Z: components (c, copies) with c a multiple
    of base*u. Returns (offset, array): L = (offset + index) * base * u."""
    dist, off = np.array([1.0]), 0
    for c, copies in components:
        m = c / (base * U)
        assert m.denominator == 1
        m = int(m)
        s_off, s = sum_of_copies(1 / (2 * c), copies)
        # n = m (2 S + copies): spacing 2m
        comp = np.zeros(2 * m * (len(s) - 1) + 1)
        comp[:: 2 * m] = s
        comp_off = m * (2 * s_off + copies)
        dist = np.convolve(dist, comp)
        off += comp_off
        keep = np.nonzero(dist > 1e-60 * dist.max())[0]
        dist, off = dist[keep[0] : keep[-1] + 1], off + keep[0]
    return off, dist


def level_components(rho, total_only, copies):
    """(c, copies) of one level: a person changes `copies` groups (s, or 2s under replace)."""
    per_group = F(rho) / S
    if total_only:
        return [(per_group, copies)]
    return [(GAMMA * per_group, copies), ((1 - GAMMA) * per_group, copies)]


def merge(comps):
    acc = {}
    for c, n in comps:
        acc[c] = acc.get(c, 0) + n
    return sorted(acc.items())


def epsilon(levels, copies):
    """Exact eps(DELTA) of the levels [(rho, total_only)], each changing `copies` groups."""
    fams = {2134: [], 159: [], 8: []}
    for rho, t in levels:
        for c, n in level_components(rho, t, copies):
            base = next(b for b in fams if (c / (b * U)).denominator == 1)
            fams[base].append((c, n))
    a_off, a = family(merge(fams[2134]), 2134) if fams[2134] else (0, np.array([1.0]))
    b_off, b = family(merge(fams[159]), 159) if fams[159] else (0, np.array([1.0]))
    c_off, c = family(merge(fams[8]), 8) if fams[8] else (0, np.array([1.0]))
    # the regional family's loss values (in units u) and its suffix sums T0 = sum P, T1 = sum P e^(-L)
    lc = (c_off + np.arange(len(c))) * 8
    lc_f = lc * float(U)
    t0 = np.concatenate([np.cumsum(c[::-1])[::-1], [0.0]])
    t1 = np.concatenate([np.cumsum((c * np.exp(-lc_f))[::-1])[::-1], [0.0]])
    # A + B on u*Z, above the cut where A + B + max(C) can exceed the smallest eps searched (5)
    cut = int(math.floor(5 / float(U))) - lc[-1]
    la = (a_off + np.arange(len(a))) * 2134
    lb = (b_off + np.arange(len(b))) * 159
    lo = max(cut, la[0] + lb[0])
    hi = la[-1] + lb[-1]
    ab = np.zeros(hi - lo + 1)
    for i in np.nonzero(a)[0]:
        start = la[i] + lb[0] - lo
        if la[i] + lb[-1] < lo:
            continue
        j0 = max(0, -start // 159 + (1 if (-start) % 159 else 0)) if start < 0 else 0
        idx = start + 159 * np.arange(j0, len(b))
        ab[idx] += a[i] * b[j0:]
    nz = np.nonzero(ab)[0]
    lab = (lo + nz) * float(U)
    wab = ab[nz]

    def delta(eps):
        s = eps - lab
        k = np.searchsorted(lc_f, s, side="right")
        g = t0[k] - np.exp(s) * t1[k]
        return float(np.sum(wab * np.maximum(g, 0.0)))

    lo_e, hi_e = 5.0, 80.0
    assert delta(lo_e) > DELTA > delta(hi_e)
    for _ in range(60):
        mid = (lo_e + hi_e) / 2
        if delta(mid) > DELTA:
            lo_e = mid
        else:
            hi_e = mid
    return (lo_e + hi_e) / 2


US = [
    ("USA-detailed", "2.134", True),
    ("STATE-detailed", "2.134", True),
    ("COUNTY-detailed", "0.159", False),
    ("TRACT-detailed", "0.159", False),
    ("PLACE-detailed", "0.159", False),
    ("AIANNH-detailed", "0.159", False),
    ("USA-regional", "0.008", True),
    ("STATE-regional", "0.008", True),
    ("COUNTY-regional", "0.008", False),
    ("TRACT-regional", "0.008", False),
    ("PLACE-regional", "0.008", False),
]
PR = [
    ("PR-STATE-detailed", "2.134", True),
    ("PR-COUNTY-detailed", "0.159", False),
    ("PR-TRACT-detailed", "0.159", False),
    ("PR-PLACE-detailed", "0.159", False),
    ("PR-STATE-regional", "0.008", True),
    ("PR-COUNTY-regional", "0.008", False),
    ("PR-TRACT-regional", "0.008", False),
    ("PR-PLACE-regional", "0.008", False),
]


def structures(levels):
    """The two extremes a run's manifest lists: every group two-stage, and the nation/state levels'
    TotalOnly groups (DETAILED_ONLY iterations, at USA/STATE/PR-STATE only) total-only."""
    two = [(F(r), False) for _, r, _ in levels]
    tot = [(F(r), t) for _, r, t in levels]
    return two, tot


def main():
    print(f"delta = {DELTA}, gamma = {GAMMA}, s = {S}")
    for name, levels, copies in [
        ("US pass, add/remove", US, S),
        ("PR pass, add/remove", PR, S),
        ("US pass, replace (2s groups)", US, 2 * S),
        ("US + PR passes, add/remove (a record moved between passes)", US + PR, S),
    ]:
        rho = sum(F(r) for _, r, _ in levels) * (copies // S)
        two, tot = structures(levels)
        e_two = epsilon(two, copies)
        e_tot = epsilon(tot, copies)
        print(f"{name}: rho = {float(rho):.3f}")
        print(f"  two-stage everywhere            eps = {e_two:.15f}")
        print(f"  total-only at nation/state      eps = {e_tot:.15f}")
        print(f"  worst                           eps = {max(e_two, e_tot):.15f}")


if __name__ == "__main__":
    main()
