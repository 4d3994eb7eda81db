#!/usr/bin/env python3
"""The scaling table of issue 33: n x N_Z(0, sigma2), eps(delta), tightdp beside its peers, same run.

Cells: n in {1, 10, ..., 1e7} x sigma2 in {0.01, 1, 37.7, 1e4, 1e8} x delta in {1e-5, 1e-10, 1e-30}
(add/remove neighbours, sensitivity 1).

  * tightdp: the release CLI (`epsilon --sigma2 S --n N --delta D --format json`, default settings: 20
    digits asked), wall time and peak RSS of the whole process by /usr/bin/time (process start included,
    so its in-process time is lower), the certified bracket, its digits and the engine the accountant chose.
  * Google dp_accounting (PLD, discrete Gaussian; value discretisation 1e-4 pessimistic, 1e-5 pessimistic
    and optimistic) and Microsoft prv_accountant (continuous Gaussian with the same sigma; eps_error 1e-3):
    in-process, each case in its own process with a wall-clock limit and a memory cap
    (scripts/bench/peer_rows.py's runners). Once a peer setting times out or runs out of memory at some n,
    larger n of the same (sigma2, delta) are not run (its cost grows with n) and are recorded "skipped".

Output: CSV (--out) and a Markdown summary on stdout: per cell tightdp's seconds / MB / digits / engine and
the peers' seconds and estimates; the fitted growth exponent in n (least squares of log time on log n
over n >= 10) per (sigma2, delta) for tightdp and for dp_accounting 1e-4. Run it through
`scripts/bench.sh scaling` (which makes the peers' venv outside the repo) or directly with that venv's
python: `python scripts/bench/scaling.py --out scripts/bench/scaling_results.csv`.
"""
import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

NS = [1, 10, 100, 1000, 10**4, 10**5, 10**6, 10**7]
SIGMA2 = ["0.01", "1", "37.7", "1e4", "1e8"]
DELTAS = ["1e-5", "1e-10", "1e-30"]
DPA = [(1e-4, "pessimistic"), (1e-5, "pessimistic"), (1e-5, "optimistic")]
PRV = [1e-3]
HEADER = ["sigma2", "n", "delta", "tool", "setting", "status", "seconds", "peak_mb", "epsilon", "epsilon_lo",
          "epsilon_hi", "digits", "engine"]


def tightdp_cell(binary, s2, n, delta):
    """One CLI run: (status, seconds, peak MB, lo, hi, digits, engine)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        cmd = ["/usr/bin/time", "-f", "%e %M", "-o", tf.name, binary, "epsilon", "--sigma2", s2, "--n", str(n),
               "--delta", delta, "--format", "json"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs, kb = tf.read().split()[-2:]
    if p.returncode != 0:
        return ("error: " + p.stderr.strip().replace(",", ";")[:100], float(secs), int(kb) / 1024, "", "", "", "")
    r = json.loads(p.stdout)
    r = r[0] if isinstance(r, list) else r
    return ("ok", float(secs), int(kb) / 1024, r["epsilon_lo"], r["epsilon_hi"], r["digits"], r["method"])


def peer_case(fn, spec, timeout):
    ctx = mp.get_context("spawn")
    pool = ctx.Pool(processes=1, maxtasksperchild=1)
    try:
        return pool.apply_async(fn, (spec,)).get(timeout=timeout)
    except mp.TimeoutError:
        return {"status": "timeout", "seconds": timeout, "peak_mb": None, "eps": None}
    except Exception as e:  # a peer's own error (e.g. an overflow at huge n)
        return {"status": "error: " + str(e).replace(",", ";")[:80], "seconds": None, "peak_mb": None, "eps": None}
    finally:
        pool.terminate()
        pool.join()


def slope(points):
    """Least-squares slope of log t on log n (n >= 10, t > 0)."""
    pts = [(math.log(n), math.log(t)) for n, t in points if n >= 10 and t and t > 0]
    if len(pts) < 3:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", metavar="FILE", help="CSV of every cell (default: stdout only the summary)")
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "..", "target", "release", "tightdp"))
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--timeout", type=float, default=30.0, help="peer wall-clock limit per case (default 30 s)")
    ap.add_argument("--mem-limit-gb", type=float, default=8.0)
    ap.add_argument("--sigma2", help="comma-separated subset of sigma2 values")
    ap.add_argument("--max-n", type=float, default=1e7)
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    sigma2 = args.sigma2.split(",") if args.sigma2 else SIGMA2
    ns = [n for n in NS if n <= args.max_n]
    rows = []
    sink = open(args.out, "w") if args.out else None
    w = csv.writer(sink, lineterminator="\n") if sink else None
    if w:
        w.writerow(HEADER)
    if not args.no_peers:
        from peer_rows import _run_dpa, _run_prv
    mem = int(args.mem_limit_gb * 2**30)

    def emit(row):
        rows.append(row)
        if w:
            w.writerow(row)
            sink.flush()

    for s2 in sigma2:
        for delta in DELTAS:
            dead = set()  # peer settings that timed out at a smaller n
            for n in ns:
                st, secs, mb, lo, hi, dig, eng = tightdp_cell(args.binary, s2, n, delta)
                emit([s2, n, delta, "tightdp", "20 digits", st, f"{secs:.3f}", f"{mb:.1f}", "", lo, hi, dig, eng])
                print(f"tightdp  s2={s2:5s} n={n:<9d} delta={delta:6s} {secs:7.3f} s {mb:7.1f} MB digits {dig} {eng}",
                      file=sys.stderr, flush=True)
                if args.no_peers:
                    continue
                cases = [("dp_accounting", _run_dpa, s, e) for s, e in DPA] + [("prv_accountant", _run_prv, s, "") for s in PRV]
                for peer, fn, setting, est in cases:
                    key = (peer, setting, est)
                    label = f"{setting:g} {est}".strip()
                    if key in dead:
                        emit([s2, n, delta, peer, label, "skipped", "", "", "", "", "", "", ""])
                        continue
                    spec = {"shifts": [[s2, n, 1]], "delta": delta, "setting": setting, "estimate": est,
                            "mem_limit_bytes": mem}
                    res = peer_case(fn, spec, args.timeout)
                    eps = res.get("eps")
                    lo = e = hi = ""
                    if isinstance(eps, tuple):
                        lo, e, hi = (format(x, ".17g") for x in eps)
                    elif eps is not None:
                        e = format(eps, ".17g")
                    if res["status"] != "ok":
                        dead.add(key)
                    secs = "" if res.get("seconds") is None else f"{res['seconds']:.3f}"
                    pk = "" if res.get("peak_mb") is None else f"{res['peak_mb']:.1f}"
                    emit([s2, n, delta, peer, label, res["status"], secs, pk, e, lo, hi, "", ""])
                    print(f"  {peer:15s} {label:16s} {res['status']:8s} {secs:>8s} s eps={e}", file=sys.stderr, flush=True)
    if sink:
        sink.close()
    summary(rows)


def summary(rows):
    """Markdown: one line per cell (tightdp, dp_accounting 1e-4 pessimistic, prv 1e-3), then exponents."""
    by = {}
    for r in rows:
        by.setdefault((r[0], int(r[1]), r[2]), []).append(r)
    print("| sigma2 | n | delta | tightdp s | MB | digits | engine | epsilon (tightdp, 12 digits) | dp_accounting 1e-4 pess. s | its eps | prv 1e-3 s | its eps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    growth = {}
    for (s2, n, d), rs in by.items():
        t = next(r for r in rs if r[3] == "tightdp")
        dp = next((r for r in rs if r[3] == "dp_accounting" and r[4] == "0.0001 pessimistic"), None)
        pv = next((r for r in rs if r[3] == "prv_accountant"), None)
        eps = t[9][:14] if t[5] == "ok" else t[5][:40]

        def cell(r):
            if r is None:
                return "-", "-"
            if r[5] != "ok":
                return r[5][:20], ""
            return r[6], r[8][:10]
        a, b = cell(dp)
        c, e = cell(pv)
        print(f"| {s2} | {n:.0e} | {d} | {t[6]} | {t[7]} | {t[11]} | {t[12]} | {eps} | {a} | {b} | {c} | {e} |")
        growth.setdefault((s2, d, "tightdp"), []).append((n, float(t[6]) if t[5] == "ok" else None))
        if dp is not None and dp[5] == "ok":
            growth.setdefault((s2, d, "dp_accounting"), []).append((n, float(dp[6])))
    print()
    print("| sigma2 | delta | tightdp: exponent of time in n | dp_accounting 1e-4: exponent |")
    print("|---|---|---|---|")
    for s2 in SIGMA2:
        for d in DELTAS:
            if (s2, d, "tightdp") not in growth:
                continue
            a = slope(growth.get((s2, d, "tightdp"), []))
            b = slope(growth.get((s2, d, "dp_accounting"), []))
            print(f"| {s2} | {d} | {'-' if a is None else f'{a:.2f}'} | {'-' if b is None else f'{b:.2f}'} |")


if __name__ == "__main__":
    main()
