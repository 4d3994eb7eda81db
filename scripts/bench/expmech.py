#!/usr/bin/env python3
"""The exponential mechanism benchmark (`expmech:epsilon=E`, docs/exponential-mechanism.md): n releases of
the exponential mechanism at epsilon-DP, eps(delta) at delta = 1e-5. tightdp's certified upper bound (the
smaller of its class's dominating pair composed and its class's Renyi divergences) beside the ways the field
accounts the same mechanisms, measured in one run on the same machine: dp_accounting's PLD of the epsilon-DP pair
(what its accountant composes for ExponentialMechanismDpEvent; discretisation 1e-4), tightdp's certified value
of that pair (`dp:epsilon=E`), and the epsilon^2/8-zCDP budget its users take (`zcdp:rho=n E^2/8`, tightdp's
certified conversion). tightdp is timed through its CLI (the process start, ~5 ms, included).

Usage: python3 scripts/bench/expmech.py [--no-peers] [--out CSV]   (scripts/bench/peers.sh --expmech runs it
in the peers' venv)
"""
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from laplace import run_tightdp, write_csv  # noqa: E402  (one CLI runner and CSV writer for the benches)

DELTA = "1e-5"
# (epsilon of one release, releases)
CELLS = [("1/2", 1), ("1/2", 2), ("1/2", 3), ("1/2", 10), ("1/2", 100), ("1/2", 1000), ("1/10", 10), ("1/10", 100), ("1/10", 1000)]


def dp_accounting(eps, n):
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    t = time.perf_counter()
    params = common.DifferentialPrivacyParameters(epsilon=float(Fraction(eps)), delta=0)
    pld = pldlib.from_privacy_parameters(params, value_discretization_interval=1e-4).self_compose(n)
    e = pld.get_epsilon_for_delta(float(DELTA))
    return ("dp_accounting 1e-4 (eps-DP pair)", f"{e:.12f}", "", "", f"{time.perf_counter() - t:.2f}", "")


def main():
    peers = "--no-peers" not in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    print(f"{'eps':>5} {'n':>5}  {'who':<34} {'eps lo / value':<26} {'eps hi':<26} {'digits':>6} {'seconds':>8}  note")
    for eps, n in CELLS:
        rho = Fraction(eps) ** 2 * n / 8
        found = [
            ("tightdp expmech",) + run_tightdp("--mech", f"expmech:epsilon={eps},n={n}")[1:],
            ("tightdp eps-DP pair (dp:)",) + run_tightdp("--mech", f"dp:epsilon={eps},n={n}")[1:],
            ("tightdp eps^2/8-zCDP",) + run_tightdp("--mech", f"zcdp:rho={rho}")[1:],
        ]
        if peers:
            found.append(dp_accounting(eps, n))
        for who, lo, hi, digits, secs, note in found:
            print(f"{eps:>5} {n:>5}  {who:<34} {lo:<26} {hi:<26} {digits:>6} {secs:>8}  {note}")
            rows.append(dict(eps=eps, n=n, who=who, lo=lo, hi=hi, digits=digits, seconds=secs, note=note))
    if out:
        write_csv(out, rows)


if __name__ == "__main__":
    main()
