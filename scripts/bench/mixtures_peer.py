#!/usr/bin/env python3
"""Discrete Gaussian counts composed with discrete Laplace counts (issue #33 item 3), epsilon at delta = 1e-10:
tightdp in-process (the Python package, 20 digits, best of 3 after a warm-up) beside Google's dp_accounting
(PLD, value discretization 1e-4, pessimistic and optimistic: a bracket), each cell in its own process, one
after the other, in the same run. Run with a Python that has both installed (scripts/test.sh's
target/pyvenv, or peers.sh's venv):

    target/pyvenv/bin/python scripts/bench/mixtures_peer.py [--out scripts/bench/mixtures_peer_results.csv]

dp_accounting API (0.4+): from_discrete_gaussian_mechanism(sigma) where the pmf is proportional to
exp(-x^2 / (2 sigma^2)), so sigma = sqrt(sigma2); from_discrete_laplace_mechanism(parameter) where the pmf is
proportional to exp(-parameter |x|), so parameter = 1 / scale; .self_compose(n), .compose(other),
.get_epsilon_for_delta(delta). Its correct digits are counted against tightdp's certified bracket."""
import argparse
import csv
import itertools
import math
import multiprocessing as mp
import resource
import time
from decimal import Decimal

CELLS = list(itertools.product(["37.7", "10000"], [10, 1000], ["1", "4"], [10, 1000]))
DELTA = 1e-10


def _mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _tightdp(spec):
    import tightdp
    s2, ng, b, nl = spec

    def once():
        t = time.perf_counter()
        c = tightdp.DiscreteGaussian(s2, n=ng).compose(tightdp.DiscreteLaplace(b, n=nl)).epsilon("1e-10")
        return time.perf_counter() - t, c

    once()
    secs, c = min((once() for _ in range(3)), key=lambda r: r[0])
    return {"seconds": secs, "lo": str(c.lo), "hi": str(c.hi), "digits": c.digits, "method": c.method, "mb": _mb()}


def _dpa(spec):
    from dp_accounting.pld import privacy_loss_distribution as pld
    s2, ng, b, nl, est = spec
    t = time.perf_counter()
    pe = est == "pessimistic"
    g = pld.from_discrete_gaussian_mechanism(math.sqrt(float(s2)), pessimistic_estimate=pe, value_discretization_interval=1e-4)
    lap = pld.from_discrete_laplace_mechanism(1 / float(b), pessimistic_estimate=pe, value_discretization_interval=1e-4)
    eps = g.self_compose(ng).compose(lap.self_compose(nl)).get_epsilon_for_delta(DELTA)
    return {"seconds": time.perf_counter() - t, "epsilon": repr(eps), "mb": _mb()}


def correct_digits(x, lo, hi):
    """Significant digits of x that agree with every value in [lo, hi] (0 when none)."""
    x, lo, hi = Decimal(x), Decimal(lo), Decimal(hi)
    mid = (lo + hi) / 2
    err = max(abs(x - lo), abs(x - hi))
    if err == 0:
        return 17
    return max(0, int(math.floor(-math.log10(float(err / abs(mid))))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="scripts/bench/mixtures_peer_results.csv")
    a = ap.parse_args()
    ctx = mp.get_context("spawn")
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sigma2", "n_g", "dlap_scale", "n_l", "tool", "setting", "seconds", "peak_mb", "epsilon_lo", "epsilon_hi",
                    "digits", "correct_digits", "method"])
        for cell in CELLS:
            with ctx.Pool(1) as p:
                t = p.apply(_tightdp, (cell,))
            w.writerow([*cell, "tightdp", "in-process, 20 digits", f"{t['seconds']:.4f}", f"{t['mb']:.0f}", t["lo"], t["hi"], t["digits"],
                        t["digits"], t["method"]])
            for est in ["pessimistic", "optimistic"]:
                with ctx.Pool(1) as p:
                    d = p.apply(_dpa, (cell + (est,),))
                cd = correct_digits(d["epsilon"], t["lo"], t["hi"])
                w.writerow([*cell, "dp_accounting", f"1e-4 {est}", f"{d['seconds']:.4f}", f"{d['mb']:.0f}", d["epsilon"], d["epsilon"], "",
                            cd, "pld"])
                print(cell, est, f"tightdp {t['seconds']:.3f} s {t['digits']} digits [{t['lo'][:14]}],",
                      f"dp_accounting {d['seconds']:.3f} s {d['epsilon']} ({cd} correct)", flush=True)
            f.flush()


if __name__ == "__main__":
    main()
