#!/usr/bin/env python3
"""The mixture-of-Gaussians mechanism (`--mech mog:`, dp_accounting's MixtureOfGaussiansDpEvent) beside
dp_accounting's PLD accountant, same run: epsilon(1e-5) of n releases of N(0, 1) against
0.81 N(0, 1) + 0.18 N(1, 1) + 0.01 N(2, 1) (dp_accounting's "sampled twice" example, q = 0.1), n in 1, 10, 100, 1000.
tightdp through the CLI (process start included): certified bracket, digits, wall time; dp_accounting at
value_discretization_interval 1e-3 and 1e-4: its pessimistic estimate and wall time.

Run: target/pyvenv/bin/python scripts/bench/mog.py [--bin target/release/tightdp] [--out scripts/bench/mog_results.csv]"""
import argparse
import csv
import json
import subprocess
import time

SPEC = "mog:sigma=1,sens=1:2,probs=0.18:0.01"


def tightdp(binary, n):
    t = time.time()
    out = subprocess.run([binary, "epsilon", "--mech", f"{SPEC},n={n}", "--delta", "1e-5", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    secs = time.time() - t
    r = json.loads(out)
    r = r[0] if isinstance(r, list) else r
    return {"lo": r["epsilon_lo"], "hi": r["epsilon_hi"], "digits": r["digits"], "method": r["method"], "secs": f"{secs:.2f}"}


def dp_accounting(n, h):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    ev = dp_event.SelfComposedDpEvent(dp_event.MixtureOfGaussiansDpEvent(1.0, [0, 1, 2], [0.81, 0.18, 0.01]), n)
    t = time.time()
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    acc.compose(ev)
    eps = acc.get_epsilon(1e-5)
    return {"eps": repr(eps), "secs": f"{time.time() - t:.2f}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/tightdp")
    ap.add_argument("--out", default="scripts/bench/mog_results.csv")
    a = ap.parse_args()
    rows = []
    for n in [1, 10, 100, 1000]:
        t = tightdp(a.bin, n)
        rows.append({"n": n, "who": "tightdp", "value": f"[{t['lo']}, {t['hi']}]", "digits": t["digits"], "secs": t["secs"], "method": t["method"]})
        print(rows[-1], flush=True)
        for h in [1e-3, 1e-4]:
            d = dp_accounting(n, h)
            rows.append({"n": n, "who": f"dp_accounting {h:g}", "value": d["eps"], "digits": "", "secs": d["secs"], "method": "pessimistic"})
            print(rows[-1], flush=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["n", "who", "value", "digits", "secs", "method"])
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
