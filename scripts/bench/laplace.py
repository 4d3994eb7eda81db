#!/usr/bin/env python3
"""Laplace and randomized-response benchmark (issue 53): n releases of the Laplace mechanism (scale b,
sensitivity 1), and n reports of binary randomized response (eps0 = 1, replace neighbours), eps(delta) at
delta = 1e-5 - tightdp's certified bracket (the tilted Fourier inversion of the closed-form moment generating
function, `account/engines/tilted.rs`, where it meets the digits; the exact Laplace sum,
`account/engines/laplace_sum.rs`, up to 1,000 releases, where it does not) beside dp_accounting's PLD (discretisation 1e-4 and 1e-5, pessimistic and
optimistic estimates), measured in one run on the same machine. Randomized response: tightdp's exact atoms
(`account/engines/atoms.rs`) beside dp_accounting's `from_randomized_response` PLD (noise parameter
2/(1 + e): a uniform answer with that probability gives P(true) = e/(1 + e)). tightdp is timed through its CLI (the
process start, ~5 ms, included).

Usage: python3 scripts/bench/laplace.py [--no-peers] [--out CSV]   (dp_accounting from the running Python;
scripts/bench/peers.sh --laplace runs it in the peers' venv)
"""
import csv
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "tightdp"
DELTA = "1e-5"
# (scale b, releases n)
CELLS = [(1, 1), (1, 6), (1, 30), (10, 100), (1, 100), (10, 300), (10, 500), (1, 1000), (10, 1000), (1, 10000), (1, 1000000)]


def discretisations(n):
    """dp_accounting's value_discretization_interval per size: its grid spans the composed loss's range,
    about 0.4 n wide for scale 1, so the finest intervals do not fit in memory at 10^4 releases and more."""
    if n >= 1000000:
        return (0.05,)
    if n >= 10000:
        return (1e-3, 1e-2)
    return (1e-4, 1e-5)


def run_tightdp(*args, delta=DELTA):
    """One `tightdp epsilon` at `delta`, timed in the same process as the peers' calls (also mixes.py's)."""
    cmd = [str(BIN), "epsilon", *args, "--delta", delta, "--format", "csv"]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        return ("tightdp", "", "", "", f"{dt:.2f}", out.stderr.strip()[:80])
    row = next(csv.DictReader(out.stdout.splitlines()))
    return ("tightdp", row["epsilon_lo"][:24], row["epsilon_hi"][:24], row["digits"], f"{dt:.2f}", row["method"])


def write_csv(out, rows):
    """The rows (dicts with the same keys) as a CSV file with a header (also mixes.py's)."""
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def tightdp(b, n):
    return run_tightdp("--mech", f"laplace:scale={b},n={n}")


def dp_accounting(b, n):
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    for disc in discretisations(n):
        for pess in (True, False):
            t = time.perf_counter()
            pld = pldlib.from_laplace_mechanism(parameter=float(b), sensitivity=1, value_discretization_interval=disc,
                                                pessimistic_estimate=pess, use_connect_dots=pess)
            e = pld.self_compose(n).get_epsilon_for_delta(float(DELTA))
            kind = "pessimistic" if pess else "optimistic"
            yield (f"dp_accounting {disc:g} {kind}", f"{e:.12f}", "", "", f"{time.perf_counter() - t:.2f}", "")


RR_CELLS = [10, 50, 1000]


def tightdp_rr(n):
    return run_tightdp("--mech", f"rr:epsilon=1,n={n}", "--neighbors", "replace")


def dp_accounting_rr(n):
    import math

    from dp_accounting.pld import privacy_loss_distribution as pldlib

    for disc in (1e-4, 1e-5):
        t = time.perf_counter()
        pld = pldlib.from_randomized_response(noise_parameter=2 / (1 + math.e), num_buckets=2, value_discretization_interval=disc)
        e = pld.self_compose(n).get_epsilon_for_delta(float(DELTA))
        yield (f"dp_accounting {disc:g}", f"{e:.12f}", "", "", f"{time.perf_counter() - t:.2f}", "")


def main():
    peers = "--no-peers" not in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    print(f"{'b':>3} {'n':>7}  {'who':<30} {'eps lo / value':<26} {'eps hi':<26} {'digits':>6} {'seconds':>8}  note")
    for b, n in CELLS:
        found = [tightdp(b, n)]
        if peers:
            found += list(dp_accounting(b, n))
        for who, lo, hi, digits, secs, note in found:
            print(f"{b:>3} {n:>7}  {who:<30} {lo:<26} {hi:<26} {digits:>6} {secs:>8}  {note}")
            rows.append(dict(b=b, n=n, who=who, lo=lo, hi=hi, digits=digits, seconds=secs, note=note))
    for n in RR_CELLS:
        found = [tightdp_rr(n)]
        if peers:
            found += list(dp_accounting_rr(n))
        for who, lo, hi, digits, secs, note in found:
            print(f"rr1 {n:>5}  {who:<30} {lo:<26} {hi:<26} {digits:>6} {secs:>8}  {note}")
            rows.append(dict(b="rr eps0=1", n=n, who=who, lo=lo, hi=hi, digits=digits, seconds=secs, note=note))
    if out:
        write_csv(out, rows)


if __name__ == "__main__":
    main()
