#!/usr/bin/env python3
"""Mixed continuous and lattice laws (issue 53: "Gaussian + discrete Gaussian mixes", Laplace beside
Gaussians): eps(delta) of each composition, tightdp's certified bracket (the tilted Fourier engine) beside
dp_accounting's PLD (discretisation 1e-4, pessimistic and optimistic estimates: an upper and a lower bound of
the true value up to its floating point), measured in one run on the same machine. tightdp is timed through
its CLI (the process start, ~5 ms, included).

Usage: python3 scripts/bench/mixes.py [--no-peers] [--out CSV]   (dp_accounting from the running Python;
scripts/bench/peers.sh --mixes runs it in the peers' venv)
"""
import sys
import time

from laplace import run_tightdp, write_csv  # the same timed CLI call and CSV writer (scripts/bench/ is on the path when run)

# (name, delta, terms): ("gauss", sigma, q, n) | ("dgauss", sigma2, n) | ("laplace", scale, n)
CELLS = [
    ("10 Gaussian(sigma2 4) + 10 discrete Gaussian(4)", "1e-10", [("gauss", 2.0, None, 10), ("dgauss", 4, 10)]),
    ("100 Gaussian(sigma 2) + 10 discrete Gaussian(100)", "1e-5", [("gauss", 2.0, None, 100), ("dgauss", 100, 10)]),
    ("1000 DP-SGD steps (q 0.01, sigma 2) + 10 discrete Gaussian(100)", "1e-5", [("gauss", 2.0, 0.01, 1000), ("dgauss", 100, 10)]),
    ("10 Gaussian(sigma2 1e4) + 10 discrete Gaussian(1e4)", "1e-10", [("gauss", 100.0, None, 10), ("dgauss", 10000, 10)]),
    ("300 Laplace(2) + 100 Laplace(3)", "1e-6", [("laplace", 2, 300), ("laplace", 3, 100)]),
    ("10^4 Laplace(10) + 1000 DP-SGD steps (q 0.01, sigma 2)", "1e-5", [("laplace", 10, 10000), ("gauss", 2.0, 0.01, 1000)]),
]


def spec(t):
    if t[0] == "gauss":
        _, s, q, n = t
        return f"gauss:sigma={s},n={n}" + (f",q={q}" if q else "")
    if t[0] == "dgauss":
        return f"dgauss:sigma2={t[1]},n={t[2]}"
    return f"laplace:scale={t[1]},n={t[2]}"


def tightdp(delta, terms):
    return run_tightdp(*[a for t in terms for a in ("--mech", spec(t))], delta=delta)


def dp_accounting(delta, terms):
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    for pess in (True, False):
        t0 = time.perf_counter()
        pld = None
        for t in terms:
            kw = dict(value_discretization_interval=1e-4, pessimistic_estimate=pess, use_connect_dots=pess)
            if t[0] == "gauss":
                one = pldlib.from_gaussian_mechanism(standard_deviation=t[1], sampling_prob=t[2] or 1.0, **kw)
            elif t[0] == "dgauss":
                one = pldlib.from_discrete_gaussian_mechanism(sigma=t[1] ** 0.5, **kw)
            else:
                one = pldlib.from_laplace_mechanism(parameter=float(t[1]), sensitivity=1, **kw)
            one = one.self_compose(t[-1])
            pld = one if pld is None else pld.compose(one)
        e = pld.get_epsilon_for_delta(float(delta))
        kind = "pessimistic" if pess else "optimistic"
        yield (f"dp_accounting 1e-4 {kind}", f"{float(e):.12f}", "", "", f"{time.perf_counter() - t0:.2f}", "")


def main():
    peers = "--no-peers" not in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    for name, delta, terms in CELLS:
        found = [tightdp(delta, terms)]
        if peers:
            found += list(dp_accounting(delta, terms))
        print(f"== {name}, eps({delta})")
        for who, lo, hi, digits, secs, note in found:
            print(f"   {who:<30} {lo:<26} {hi:<26} {digits:>6} {secs:>8}  {note}")
            rows.append(dict(setting=name, delta=delta, who=who, lo=lo, hi=hi, digits=digits, seconds=secs, note=note))
    if out:
        write_csv(out, rows)


if __name__ == "__main__":
    main()
