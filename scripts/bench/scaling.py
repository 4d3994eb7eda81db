#!/usr/bin/env python3
"""The scaling table of issue 33: n x N_Z(0, sigma2), eps(delta), tightdp beside its peers, same run.

Cells: n in {1, 10, ..., 1e7} x sigma2 in {0.01, 1, 37.7, 1e4, 1e8} x delta in {1e-5, 1e-10, 1e-30}
(add/remove neighbours, sensitivity 1).

  * tightdp, CLI: the release binary (`epsilon --sigma2 S --n N --delta D --format json`, default settings:
    20 digits asked), wall time and peak RSS of the whole process by /usr/bin/time (10 ms resolution,
    process start included), the certified bracket, its digits and the engine the accountant chose.
  * tightdp, in-process: the Python package (`import tightdp`, built from this repository; peers.sh
    --scaling installs it into the peers' venv), in its own spawned process per cell and digits setting,
    imports before the clock, under the peers' memory cap and a wall-clock limit (--tightdp-timeout). One
    untimed warm-up call, then the best (smallest time.perf_counter wall time) of 3 timed calls of
    `tightdp.DiscreteGaussian(s2, n=n).epsilon(delta, digits=D)`; each call builds a fresh composition (the
    package's accountant cache is per composition object, so nothing is reused between calls). D = 20 (the
    default) and D = max(1, dp_accounting 1e-4 pessimistic's correct digits on the cell). cpu_seconds is the
    same call's process CPU time (time.process_time; tightdp may use both cores, the peers use one thread).
  * Google dp_accounting (PLD, discrete Gaussian; value discretisation 1e-4 pessimistic, 1e-5 pessimistic
    and optimistic) and Microsoft prv_accountant (continuous Gaussian with the same sigma; eps_error 1e-3):
    in-process, each case in its own process with a wall-clock limit and a memory cap
    (scripts/bench/peer_rows.py's runners). Once a peer setting times out or runs out of memory at some n,
    larger n of the same (sigma2, delta) are not run (its cost grows with n) and are recorded "skipped".
    dp_accounting 1e-4 pessimistic (the ratio's reference) is timed like tightdp when it is cheap: if its
    first call takes under --repeat-below seconds (default 1), that call is the warm-up and the best of 3
    further calls is recorded; otherwise the single first call is (column `timing` says which).

Equal accuracy: dp_accounting's correct digits on a cell = floor(-log10(|eps_dp - e| / e)) for e each end
of tightdp's certified 20-digit bracket (in-process; the CLI's if that failed), the smaller, clipped at 0
(the bracket's own certified digits if eps_dp equals an end). ratio_equal_accuracy = dp_accounting 1e-4
pessimistic in-process seconds / tightdp in-process seconds at digits = max(that, 1) (marked where
dp_accounting had 0 correct digits); ratio_vs_20_digits = the same over tightdp's 20-digit time. Where
dp_accounting timed out, failed, was skipped or returned inf, the cell has no ratio ("peer gave no answer").

Output: CSV (--out) and a Markdown summary on stdout: per cell tightdp's seconds / MB / digits / engine and
the peers' seconds and estimates; the equal-accuracy table, its counts, median and five worst cells; the
fitted growth exponent in n (least squares of log time on log n over n >= 10) per (sigma2, delta) for
tightdp (CLI and in-process) and dp_accounting 1e-4. Run it through `scripts/bench.sh scaling` or
`scripts/bench/peers.sh --scaling --out FILE` (which make the peers' venv outside the repo and install
tightdp's Python package there), or directly with that venv's python. Without an importable tightdp
package the in-process columns are left out (a line on stderr says so).
"""
import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import ROUND_FLOOR, Decimal, localcontext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

NS = [1, 10, 100, 1000, 10**4, 10**5, 10**6, 10**7]
SIGMA2 = ["0.01", "1", "37.7", "1e4", "1e8"]
DELTAS = ["1e-5", "1e-10", "1e-30"]
DPA = [(1e-4, "pessimistic"), (1e-5, "pessimistic"), (1e-5, "optimistic")]
PRV = [1e-3]
RATIO_DPA = "0.0001 pessimistic"  # the dp_accounting setting the speed ratio is taken against
REPEATS = 3
# the original columns, then (appended) the in-process and equal-accuracy ones
HEADER = ["sigma2", "n", "delta", "tool", "setting", "status", "seconds", "peak_mb", "epsilon", "epsilon_lo",
          "epsilon_hi", "digits", "engine",
          "cpu_seconds", "timing", "correct_digits", "ratio_equal_accuracy", "ratio_vs_20_digits", "note"]
NEW = len(HEADER) - 13


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


def _run_tightdp(spec):
    """tightdp in-process (in a spawned process): one untimed warm-up call, then the best of REPEATS."""
    import tightdp  # before the clock
    from peer_rows import _limit, _maxrss_mb
    _limit(spec)

    def once():
        t0, c0 = time.perf_counter(), time.process_time()
        c = tightdp.DiscreteGaussian(spec["sigma2"], n=spec["n"]).epsilon(spec["delta"], digits=spec["digits"])
        return time.perf_counter() - t0, time.process_time() - c0, c

    out = {"status": "ok", "eps": None}
    try:
        once()  # warm-up (thread pool, allocator, page faults): not timed
        secs, cpu, c = min((once() for _ in range(REPEATS)), key=lambda r: r[0])
        out.update(seconds=secs, cpu_seconds=cpu, lo=str(c.lo), hi=str(c.hi), digits=c.digits, method=c.method,
                   note=c.note or "")
    except MemoryError:
        out["status"] = "memory"
    except tightdp.TightdpError as e:
        out["status"] = "error: " + str(e).replace(",", ";")[:80]
    out["peak_mb"] = _maxrss_mb()
    return out


def _run_dpa_timed(spec):
    """dp_accounting (in a spawned process): its first call; when that is cheap (< spec['repeat_below'] s),
    it was the warm-up and the best of REPEATS further calls is returned instead."""
    from peer_rows import _run_dpa
    first = _run_dpa(spec)
    if first["status"] != "ok" or first["seconds"] >= spec["repeat_below"]:
        first["timing"] = "in-process; 1 call"
        return first
    best = min((_run_dpa(spec) for _ in range(REPEATS)), key=lambda r: r["seconds"] if r["status"] == "ok" else math.inf)
    best["timing"] = f"in-process; best of {REPEATS} after 1 untimed warm-up"
    return best


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


def correct_digits(eps, lo, hi, certified):
    """Leading significant digits eps shares with the certified bracket [lo, hi]: the smaller over both ends e
    of floor(-log10(|eps - e| / e)), clipped at 0; `certified` (the bracket's digits) where eps equals an end.
    None when eps is not finite or lo <= 0 (no relative error)."""
    if eps is None or not math.isfinite(eps):
        return None
    with localcontext() as ctx:
        ctx.prec = 80
        x = Decimal(eps)  # the double, exactly
        out = []
        for e in (Decimal(lo), Decimal(hi)):
            if e <= 0:
                return None
            r = abs(x - e) / e
            d = certified if r == 0 else int((-r.log10()).to_integral_value(rounding=ROUND_FLOOR))
            out.append(max(0, min(d, certified)))
        return min(out)


def slope(points):
    """Least-squares slope of log t on log n (n >= 10, t > 0)."""
    pts = [(math.log(n), math.log(t)) for n, t in points if n >= 10 and t and t > 0]
    if len(pts) < 3:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


def fmt_s(x):
    return "" if x is None else f"{x:.6f}"


def provenance(binary):
    """Versions and sources, for the summary's header."""
    from importlib import metadata
    lines = [f"python {platform.python_version()}, {os.cpu_count()} cores, load average at start "
             + " ".join(f"{x:.2f}" for x in os.getloadavg())]
    try:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
        lines.append(f"CLI: {os.path.realpath(binary)} ({v})")
    except OSError as e:
        lines.append(f"CLI: {binary} ({e})")
    repo = os.path.realpath(os.path.join(HERE, "..", ".."))
    head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines.append(f"repository {repo} at commit {head or '?'}")
    vers = []
    for p in ("tightdp", "dp-accounting", "prv-accountant", "numpy", "scipy"):
        try:
            vers.append(f"{p} {metadata.version(p)}")
        except metadata.PackageNotFoundError:
            vers.append(f"{p} not installed")
    lines.append(", ".join(vers))
    marker = os.path.join(sys.prefix, "tightdp-source.txt")  # written by peers.sh when it installs the package
    if os.path.exists(marker):
        lines.append("tightdp Python package: " + open(marker).read().strip())
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", metavar="FILE", help="CSV of every cell (default: stdout only the summary)")
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "..", "target", "release", "tightdp"))
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--timeout", type=float, default=30.0, help="peer wall-clock limit per case (default 30 s)")
    ap.add_argument("--tightdp-timeout", type=float, default=120.0,
                    help="wall-clock limit of one in-process tightdp case: warm-up + 3 timed calls (default 120 s)")
    ap.add_argument("--repeat-below", type=float, default=1.0,
                    help="dp_accounting 1e-4 pessimistic: best of 3 after a warm-up when its first call is faster (s)")
    ap.add_argument("--mem-limit-gb", type=float, default=8.0)
    ap.add_argument("--sigma2", help="comma-separated subset of sigma2 values")
    ap.add_argument("--max-n", type=float, default=1e7)
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    sigma2 = args.sigma2.split(",") if args.sigma2 else SIGMA2
    ns = [n for n in NS if n <= args.max_n]
    import importlib.util
    inproc = importlib.util.find_spec("tightdp") is not None
    if not inproc:
        print("scaling: the tightdp Python package is not importable here; in-process columns left out "
              "(scripts/bench/peers.sh --scaling installs it)", file=sys.stderr)
    head = provenance(args.binary)
    t_start = time.time()
    rows = []
    sink = open(args.out, "w") if args.out else None
    w = csv.writer(sink, lineterminator="\n") if sink else None
    if w:
        w.writerow(HEADER)
    if not args.no_peers:
        from peer_rows import _run_dpa, _run_prv
    mem = int(args.mem_limit_gb * 2**30)

    def inprocess(s2, n, delta, digits):
        spec = {"sigma2": s2, "n": n, "delta": delta, "digits": digits, "mem_limit_bytes": mem}
        res = peer_case(_run_tightdp, spec, args.tightdp_timeout)
        print(f"  tightdp in-process {digits:2d} digits {res['status']:8s} {fmt_s(res.get('seconds')):>10s} s "
              f"digits {res.get('digits', '')} {res.get('method', '')}", file=sys.stderr, flush=True)
        return res

    def in_row(s2, n, delta, digits, res):
        ok = res["status"] == "ok"
        timing = f"in-process; best of {REPEATS} after 1 untimed warm-up" if ok else "in-process"
        return [s2, n, delta, "tightdp", f"in-process {digits} digits", res["status"], fmt_s(res.get("seconds")),
                "" if res.get("peak_mb") is None else f"{res['peak_mb']:.1f}", "", res.get("lo", ""),
                res.get("hi", ""), res.get("digits", ""), res.get("method", ""), fmt_s(res.get("cpu_seconds")),
                timing, "", "", "", (res.get("note") or "").replace("\n", " ")]

    for s2 in sigma2:
        for delta in DELTAS:
            dead = set()  # peer settings that timed out at a smaller n
            for n in ns:
                cell = []
                st, secs, mb, lo, hi, dig, eng = tightdp_cell(args.binary, s2, n, delta)
                cell.append([s2, n, delta, "tightdp", "20 digits", st, f"{secs:.3f}", f"{mb:.1f}", "", lo, hi, dig, eng,
                             "", "process, /usr/bin/time (10 ms resolution, process start included)", "", "", "", ""])
                print(f"tightdp  s2={s2:5s} n={n:<9d} delta={delta:6s} {secs:7.3f} s {mb:7.1f} MB digits {dig} {eng}",
                      file=sys.stderr, flush=True)
                cli = (lo, hi, dig) if st == "ok" else None
                ratio_row = None  # dp_accounting 1e-4 pessimistic: (row, its eps, its seconds, its cpu seconds)
                peer_rows = []
                if not args.no_peers:
                    cases = ([("dp_accounting", _run_dpa_timed if (s, e) == DPA[0] else _run_dpa, s, e) for s, e in DPA]
                             + [("prv_accountant", _run_prv, s, "") for s in PRV])
                    for peer, fn, setting, est in cases:
                        key = (peer, setting, est)
                        label = f"{setting:g} {est}".strip()
                        if key in dead:
                            row = [s2, n, delta, peer, label, "skipped"] + [""] * (7 + NEW)
                            cell.append(row)
                            peer_rows.append((row, None))
                            if peer == "dp_accounting" and label == RATIO_DPA:
                                ratio_row = (row, None, None, None)
                            continue
                        spec = {"shifts": [[s2, n, 1]], "delta": delta, "setting": setting, "estimate": est,
                                "mem_limit_bytes": mem, "repeat_below": args.repeat_below}
                        res = peer_case(fn, spec, args.timeout)
                        eps = res.get("eps")
                        plo = e = phi = ""
                        point = None
                        if isinstance(eps, tuple):
                            plo, e, phi = (format(x, ".17g") for x in eps)
                        elif eps is not None:
                            e = format(eps, ".17g")
                            point = eps if math.isfinite(eps) else None  # inf: no answer
                        if res["status"] != "ok":
                            dead.add(key)
                        pk = "" if res.get("peak_mb") is None else f"{res['peak_mb']:.1f}"
                        timing = res.get("timing", "in-process; 1 call")
                        row = [s2, n, delta, peer, label, res["status"], fmt_s(res.get("seconds")), pk, e, plo, phi, "", "",
                               fmt_s(res.get("cpu_seconds")), timing, "", "", "", ""]
                        cell.append(row)
                        if peer == "dp_accounting":
                            peer_rows.append((row, point if res["status"] == "ok" else None))
                        if peer == "dp_accounting" and label == RATIO_DPA:
                            ratio_row = (row, point if res["status"] == "ok" else None, res.get("seconds"),
                                         res.get("cpu_seconds"))
                        print(f"  {peer:15s} {label:16s} {res['status']:8s} {fmt_s(res.get('seconds')):>10s} s eps={e}",
                              file=sys.stderr, flush=True)
                if inproc:
                    r20 = inprocess(s2, n, delta, 20)
                    cell.append(in_row(s2, n, delta, 20, r20))
                    if r20["status"] == "ok":
                        cert, src = (r20["lo"], r20["hi"], r20["digits"]), "in-process"
                    else:
                        cert, src = cli, "CLI"
                    # every dp_accounting answer's correct digits (they model the same discrete Gaussian)
                    for row, point in peer_rows:
                        if cert is not None and point is not None:
                            d = correct_digits(point, cert[0], cert[1], int(cert[2]))
                            row[15] = "" if d is None else str(d)
                    if ratio_row is not None:
                        row, point, dsecs, _ = ratio_row
                        dd = correct_digits(point, cert[0], cert[1], int(cert[2])) if cert and point is not None else None
                        if point is None:
                            why = row[5] if row[5] != "ok" else (row[8] or "no estimate")
                            row[18] = f"peer gave no answer ({why})"
                        elif dd is None:
                            row[18] = "no certified bracket with lo > 0 to compare with"
                        else:
                            want = max(dd, 1)
                            rd = r20 if want == 20 else inprocess(s2, n, delta, want)
                            if want != 20:
                                cell.append(in_row(s2, n, delta, want, rd))
                            notes = []
                            if src != "in-process":
                                notes.append("digits counted against the CLI's bracket")
                            if dd == 0:
                                notes.append("dp_accounting has 0 correct digits: ratio against digits=1")
                            if rd["status"] == "ok" and rd["seconds"] > 0:
                                row[16] = f"{dsecs / rd['seconds']:.4g}"
                            else:
                                notes.append(f"tightdp at {want} digits: {rd['status']}")
                            if r20["status"] == "ok" and r20["seconds"] > 0:
                                row[17] = f"{dsecs / r20['seconds']:.4g}"
                            row[18] = "; ".join(notes)
                for row in cell:
                    rows.append(row)
                    if w:
                        w.writerow(row)
                if sink:
                    sink.flush()
    if sink:
        sink.close()
    head.append(f"run took {(time.time() - t_start) / 60:.1f} min; load average at end "
                + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    summary(rows, head)


def summary(rows, head=()):
    """Markdown: the provenance lines, one line per cell (tightdp CLI, dp_accounting 1e-4 pessimistic, prv 1e-3),
    the equal-accuracy ratio table with its counts, median and worst cells, then the growth exponents."""
    for line in head:
        print(f"- {line}")
    print()
    by = {}
    for r in rows:
        by.setdefault((r[0], int(r[1]), r[2]), []).append(r)

    def find(rs, tool, setting):
        return next((r for r in rs if r[3] == tool and r[4] == setting), None)

    print("| sigma2 | n | delta | tightdp CLI s | MB | digits | engine | epsilon (tightdp, 12 digits) | dp_accounting 1e-4 pess. s | its eps | prv 1e-3 s | its eps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    growth = {}
    for (s2, n, d), rs in by.items():
        t = find(rs, "tightdp", "20 digits")
        dp = find(rs, "dp_accounting", RATIO_DPA)
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
        t20 = find(rs, "tightdp", "in-process 20 digits")
        if t20 is not None and t20[5] == "ok":
            growth.setdefault((s2, d, "in-process"), []).append((n, float(t20[6])))
        if dp is not None and dp[5] == "ok":
            growth.setdefault((s2, d, "dp_accounting"), []).append((n, float(dp[6])))
    ratio_table(by, find)
    print()
    print("| sigma2 | delta | tightdp CLI: exponent of time in n | tightdp in-process (20 digits) | dp_accounting 1e-4: exponent |")
    print("|---|---|---|---|---|")
    for s2 in SIGMA2:
        for d in DELTAS:
            if (s2, d, "tightdp") not in growth:
                continue
            a, b, c = (slope(growth.get((s2, d, k), [])) for k in ("tightdp", "in-process", "dp_accounting"))
            print(f"| {s2} | {d} | {'-' if a is None else f'{a:.2f}'} | {'-' if b is None else f'{b:.2f}'} | "
                  f"{'-' if c is None else f'{c:.2f}'} |")


def ratio_table(by, find):
    """The equal-accuracy table (issue 33: >= 1000x faster than dp_accounting at equal accuracy, in-process)."""
    if not any(find(rs, "tightdp", "in-process 20 digits") for rs in by.values()):
        return
    print()
    print("Equal accuracy: dp_accounting (1e-4, pessimistic) in-process seconds over tightdp's in-process seconds at "
          "digits = max(1, dp_accounting's correct digits), and over tightdp's 20-digit seconds.")
    print()
    print("| sigma2 | n | delta | tightdp in-process s, 20 digits (certified) | tightdp s at dp's digits | dp's correct digits | dp_accounting 1e-4 pess. s | ratio, equal accuracy | ratio vs 20 digits | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    eq, r20s, cpu, none, cells = [], [], [], [], 0
    for (s2, n, d), rs in by.items():
        cells += 1
        t20 = find(rs, "tightdp", "in-process 20 digits")
        dp = find(rs, "dp_accounting", RATIO_DPA)
        if t20 is None or dp is None:
            continue
        dd = dp[15]
        want = max(int(dd), 1) if dd != "" else None
        td = t20 if want == 20 else (find(rs, "tightdp", f"in-process {want} digits") if want else None)
        a = f"{t20[6]} ({t20[11]})" if t20[5] == "ok" else t20[5][:30]
        b = "" if td is None else (td[6] if td[5] == "ok" else td[5][:30])
        print(f"| {s2} | {n:.0e} | {d} | {a} | {b} | {dd} | {dp[6] if dp[5] == 'ok' else dp[5][:20]} | {dp[16]} | "
              f"{dp[17]} | {dp[18]} |")
        where = f"sigma2 {s2}, n {n:.0e}, delta {d}"
        if dp[16]:
            eq.append((float(dp[16]), where, dp[18]))
            if td is not None and td[13] and dp[13] and float(td[13]) > 0:
                cpu.append(float(dp[13]) / float(td[13]))
        elif dp[18].startswith("peer gave no answer"):
            none.append(where)
        if dp[17]:
            r20s.append(float(dp[17]))
    print()
    for name, rs in (("equal accuracy", [r for r, _, _ in eq]), ("vs tightdp at 20 digits", r20s)):
        if not rs:
            continue
        print(f"Ratio {name}: {len(rs)} cells with a ratio, of {cells}; >= 1000: {sum(r >= 1000 for r in rs)}, "
              f">= 100: {sum(r >= 100 for r in rs)}, >= 10: {sum(r >= 10 for r in rs)}, "
              f"< 1: {sum(r < 1 for r in rs)}; peer gave no answer: {len(none)}; "
              f"median {statistics.median(rs):.4g}, smallest {min(rs):.4g}, largest {max(rs):.4g}.")
        print()
    if cpu:
        print(f"On process CPU time instead of wall time (tightdp may use both cores, dp_accounting one thread) the "
              f"equal-accuracy ratio's median is {statistics.median(cpu):.4g} (smallest {min(cpu):.4g}, "
              f"{sum(r >= 1000 for r in cpu)} of {len(cpu)} cells >= 1000).")
        print()
    if eq:
        miss = [x for x in eq if x[0] < 1000]
        print(f"The 1,000x target at equal accuracy is met on {len(eq) - len(miss)} of the {len(eq)} cells where "
              f"dp_accounting gave an answer and NOT met on {len(miss)}; {len(none)} cells have no ratio because "
              f"dp_accounting gave no answer (timeout, error, skipped after a timeout at smaller n, or inf).")
        print()
        print("Five worst ratios at equal accuracy:")
        print()
        for r, where, note in sorted(eq)[:5]:
            print(f"- {r:.4g}: {where}" + (f" ({note})" if note else ""))


if __name__ == "__main__":
    main()
