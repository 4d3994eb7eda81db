#!/usr/bin/env python3
"""Discrete Gaussian counts composed with discrete Laplace counts (issue #33 item 3): the CLI on a grid of
sigma^2 x n_G x DLap scale x n_L, epsilon(1e-10), delta(eps) and f(1e-3), default settings (20 digits),
process start included; wall time, peak memory (GNU time), method and digits of each cell. With two
binaries (--base B), both on every cell in the same run, alternated.

Run: python3 scripts/bench/mixtures.py [--bin target/release/tightdp] [--base OTHER] [--timeout 120]
     [--out scripts/bench/mixtures_results.csv]"""
import argparse
import csv
import itertools
import json
import os
import signal
import subprocess
import time

SIGMA2 = ["1", "37.7", "10000"]
N_G = [10, 1000, 100000]
SCALE = ["1", "4"]
N_L = [10, 1000, 100000]
QUERIES = [("epsilon", ["--delta", "1e-10"], "epsilon"), ("delta", ["--epsilon", "10"], "delta"), ("tradeoff", ["--alpha", "1e-3"], "beta")]


def run(binary, cmd, extra, mechs, timeout):
    args = ["/usr/bin/time", "-f", "%M", binary, cmd, *extra, "--format", "json"]
    for m in mechs:
        args += ["--mech", m]
    t = time.time()
    # its own process group, killed whole on a timeout (killing /usr/bin/time alone left tightdp running
    # beside the next cells)
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, errs = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return {"status": "timeout", "secs": timeout}
    secs = time.time() - t
    err = errs.strip().splitlines()
    kb = int(err[-1]) if err and err[-1].isdigit() else 0
    row = {"secs": round(secs, 3), "mb": round(kb / 1024, 1)}
    if p.returncode != 0:
        row.update(status=f"exit {p.returncode}", note=(err[0] if err else "")[:160])
        return row
    j = json.loads(out)
    j = j[0] if isinstance(j, list) else j
    row.update(status="ok", method=j.get("method", ""), digits=j.get("digits", ""), note=j.get("note", "")[:160])
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/tightdp")
    ap.add_argument("--base")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", default="scripts/bench/mixtures_results.csv")
    a = ap.parse_args()
    bins = [("new", a.bin)] + ([("base", a.base)] if a.base else [])
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["binary", "sigma2", "n_g", "dlap_scale", "n_l", "query", "status", "secs", "mb", "method", "digits", "note"])
        for s2, ng, b, nl in itertools.product(SIGMA2, N_G, SCALE, N_L):
            mechs = [f"dgauss:sigma2={s2},n={ng}", f"dlap:scale={b},n={nl}"]
            for cmd, extra, _ in QUERIES:
                for name, binary in bins:
                    r = run(binary, cmd, extra, mechs, a.timeout)
                    w.writerow([name, s2, ng, b, nl, cmd, r["status"], r["secs"], r.get("mb", ""), r.get("method", ""), r.get("digits", ""), r.get("note", "")])
                    f.flush()
                    print(name, s2, ng, b, nl, cmd, r, flush=True)


if __name__ == "__main__":
    main()
