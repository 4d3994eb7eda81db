#!/usr/bin/env python3
"""DP-SGD calibration benchmark (issue 53, item 5): tightdp's certified calibrations beside dp_accounting's
`mechanism_calibration.calibrate_dp_mechanism` (PLD accountant at value discretisation 1e-4, and RDP), the
same question in one run on the same machine. (Opacus's `get_noise_multiplier` wraps the same search around
its own RDP/PRV accountants; Opacus does not install here.)

The MNIST setting (q = 256/60000, noise multiplier 1.1, 14,070 steps, delta 1e-5):
  sigma     the smallest noise multiplier meeting epsilon 8 (tightdp: on the resolution 0.001)
  rate      the largest sampling rate meeting epsilon 8 at sigma 1.1 (tightdp: on the resolution 1/60000)
  steps     the most steps meeting epsilon 2 at sigma 1.1
  attack    the smallest sigma keeping the best membership test's advantage at or below 0.1 (no peer
            calibrates to an attack)

tightdp's answer is certified both ways (the answer meets the target, one resolution step further provably
does not); the peers' are estimates within their search tolerance of their own accountant's answer.

Usage: scripts/bench/peers.sh --calibration [--no-peers] [--out CSV]  (or python3 scripts/bench/calibration.py --no-peers)
"""
import csv
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "tightdp"
Q, SIGMA, STEPS, DELTA = "256/60000", "1.1", 14070, "1e-5"
CASES = [
    ("sigma", f"gauss:sigma=?,q={Q},n={STEPS}", ["--target-epsilon", "8", "--delta", DELTA], "sigma"),
    ("rate", f"gauss:sigma={SIGMA},q=?,n={STEPS}", ["--target-epsilon", "8", "--delta", DELTA, "--resolution", "1/60000"], "q"),
    ("steps", f"gauss:sigma={SIGMA},q={Q},n=?", ["--target-epsilon", "2", "--delta", DELTA], "n"),
    ("attack", f"gauss:sigma=?,q={Q},n={STEPS}", ["--target-advantage", "0.1"], "sigma"),
]


def tightdp(spec, extra, col):
    cmd = [str(BIN), "calibrate", "--mech", spec, *extra, "--format", "csv"]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        return dict(tightdp="", tightdp_next="", tightdp_seconds=f"{dt:.2f}", probes="", note=out.stderr.strip())
    row = next(csv.DictReader(out.stdout.splitlines()))
    nxt = {"sigma": "sigma_below", "q": "q_above", "n": "n_above"}[col]
    return dict(tightdp=row[col], tightdp_next=row[nxt], tightdp_seconds=f"{dt:.2f}", probes=row["probes"], note=row["method"])


def peer(case, kind):
    """dp_accounting's calibrate_dp_mechanism with its PLD (1e-4) or RDP accountant: (value, seconds)."""
    import dp_accounting
    from dp_accounting import mechanism_calibration as mc

    q, sigma, steps = 256 / 60000, 1.1, STEPS

    def fresh():
        if kind == "pld":
            return dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
        return dp_accounting.rdp.RdpAccountant()

    def event(qq, ss, n):
        return dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(qq, dp_accounting.GaussianDpEvent(ss)), n)

    t = time.perf_counter()
    if case == "sigma":
        v = mc.calibrate_dp_mechanism(fresh, lambda s: event(q, s, steps), 8, 1e-5, tol=1e-3)
    elif case == "rate":
        v = mc.calibrate_dp_mechanism(fresh, lambda x: event(x, sigma, steps), 8, 1e-5,
                                      bracket_interval=mc.ExplicitBracketInterval(1e-6, 1.0), tol=1 / 60000)
    elif case == "steps":
        v = mc.calibrate_dp_mechanism(fresh, lambda n: event(q, sigma, n), 2, 1e-5,
                                      bracket_interval=mc.ExplicitBracketInterval(1, 10 ** 6), discrete=True)
    else:
        return "", ""
    return (f"{v:.6g}" if isinstance(v, float) else str(v)), f"{time.perf_counter() - t:.2f}"


def main():
    peers = "--no-peers" not in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    for name, spec, extra, col in CASES:
        r = dict(case=name, mech=spec, target=" ".join(extra))
        r.update(tightdp(spec, extra, col))
        for kind in ("pld", "rdp"):
            v, s = peer(name, kind) if peers else ("", "")
            r[f"dp_accounting_{kind}"], r[f"dp_accounting_{kind}_seconds"] = v, s
        rows.append(r)
        print(", ".join(f"{k}={v}" for k, v in r.items()), flush=True)
    if out:
        with open(out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
