#!/usr/bin/env python3
"""Independent cross-check of the production certificates with Google's dp_accounting (PLD).

For each production allocation (data/allocations/*-2021/2023.toml, "replace" neighbours: every query is
two unit shifts with sigma^2 = 1/rho_q), compose dp_accounting discrete-Gaussian PLDs (pessimistic and
optimistic at a given value_discretization_interval) and report eps(1e-10). Run through
scripts/bench/peers.sh's venv:  $VENV/bin/python scripts/bench/dp_accounting_production.py [--disc 1e-4]
"""
import argparse, math, time, tomllib
from collections import Counter
from fractions import Fraction

from dp_accounting.pld import privacy_loss_distribution as pld_lib


def groups(path):
    doc = tomllib.load(open(path, "rb"))
    assert doc.get("neighbors") == "replace"
    c = Counter()
    for lvl in doc["level"]:
        if "query_rho" in lvl:
            qs = [Fraction(q) for q in lvl["query_rho"]]
        else:  # share of rho, split by query_shares
            qs = [Fraction(doc["rho"]) * Fraction(lvl["share"]) * Fraction(q) for q in lvl["query_shares"]]
        for q in qs:
            c[q] += 2  # two unit shifts per marginal query
    return [(1 / r, n) for r, n in c.items()]  # (sigma^2 = 1/rho_q, count)


def eps(path, disc, pessimistic, delta):
    acc = None
    for s2, n in sorted(groups(path), key=lambda t: float(t[0])):
        p = pld_lib.from_discrete_gaussian_mechanism(math.sqrt(float(s2)), sensitivity=1,
                                                     pessimistic_estimate=pessimistic,
                                                     value_discretization_interval=disc)
        p = p.self_compose(n) if n > 1 else p
        acc = p if acc is None else acc.compose(p)
    return acc.get_epsilon_for_delta(delta)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--disc", type=float, default=1e-4)
    ap.add_argument("--delta", type=float, default=1e-10)
    ap.add_argument("files", nargs="*", default=["data/allocations/dhc-persons-us-2023.toml",
                                                 "data/allocations/dhc-units-us-2023.toml",
                                                 "data/allocations/redistricting-persons-us-2021.toml"])
    a = ap.parse_args()
    print("file,discretization,pessimistic_eps,optimistic_eps,seconds")
    for f in a.files:
        t = time.perf_counter()
        hi = eps(f, a.disc, True, a.delta)
        lo = eps(f, a.disc, False, a.delta)
        print(f"{f},{a.disc},{hi:.10f},{lo:.10f},{time.perf_counter() - t:.1f}", flush=True)


if __name__ == "__main__":
    main()
