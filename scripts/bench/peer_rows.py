#!/usr/bin/env python3
"""Both peers on every row of the side-by-side table, on exactly tightdp's inputs.

Input: the JSON lines of `cargo bench --bench table -- --groups` (stdin or --groups FILE): per row its
delta and the unit shifts a peer composes, [sigma^2 (exact fraction), count, sensitivity] (for "replace"
neighbours every query is two unit shifts, as in the TopDown code; see data/allocations/).
Run through scripts/bench/peers.sh --rows, which makes the scratch venv outside the repo.

Peers and settings (each case in its own spawned process, one thread, address-space cap --mem-limit-gb,
wall-clock --timeout; a case over either is recorded as "memory" / "timeout"):
  * Google dp_accounting (PLD, discrete Gaussian): from_discrete_gaussian_mechanism(sigma, sensitivity,
    pessimistic_estimate, value_discretization_interval), self_compose(count), compose(...),
    get_epsilon_for_delta(delta) -- as scripts/bench/dp_accounting_bench.py (read its notes). Settings:
    discretization 1e-4 (pessimistic), 1e-5 (pessimistic and optimistic), 1e-6 (pessimistic).
  * Microsoft prv_accountant (PRV): no discrete Gaussian, so GaussianMechanism(noise_multiplier=sigma,
    l2_sensitivity=sensitivity), max_self_compositions = counts, delta_error = delta/1000 -- as
    scripts/bench/prv_accountant_bench.py (read its notes). Settings: eps_error 1e-2, 1e-3, 1e-4. Beside
    it the exact continuous-Gaussian epsilon (Balle & Wang 2018, Thm 8; mu^2 = sum count*mu^2/sigma^2,
    mpmath), so that the table can split prv's error into its own and the model gap.
seconds: in-process wall time of construction + composition + the epsilon query (no imports), as for
tightdp's in-process column; cpu_seconds: the same span's process CPU time (the peers run on one thread,
so on an idle machine both agree; on a loaded one cpu_seconds is the figure to compare); peak_mb: the case
process's ru_maxrss (numpy/scipy included). Rows are written as they finish (a long run can be watched).

Output CSV: peer,row,delta,setting,estimate,seconds,cpu_seconds,peak_mb,epsilon,epsilon_lower,epsilon_upper,
epsilon_continuous_exact,status  (prv fills lower/upper; dp_accounting fills estimate)
"""
import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import platform
import sys
import time
from fractions import Fraction

DPA_SETTINGS = [(1e-4, "pessimistic"), (1e-5, "pessimistic"), (1e-5, "optimistic"), (1e-6, "pessimistic")]
PRV_SETTINGS = [1e-2, 1e-3, 1e-4]
HEADER = ["peer", "row", "delta", "setting", "estimate", "seconds", "cpu_seconds", "peak_mb", "epsilon", "epsilon_lower",
          "epsilon_upper", "epsilon_continuous_exact", "status"]


def _maxrss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _limit(spec):
    import resource
    if spec["mem_limit_bytes"]:
        resource.setrlimit(resource.RLIMIT_AS, (spec["mem_limit_bytes"], spec["mem_limit_bytes"]))


def _run_dpa(spec):
    import numpy  # noqa: F401  (imports before the clock)
    import scipy  # noqa: F401
    from dp_accounting.pld import privacy_loss_distribution as pld_lib
    _limit(spec)
    out = {"status": "ok", "eps": None}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        acc = None
        for s2, n, mu in spec["shifts"]:
            p = pld_lib.from_discrete_gaussian_mechanism(math.sqrt(float(Fraction(s2))), sensitivity=mu,
                                                         pessimistic_estimate=spec["estimate"] == "pessimistic",
                                                         value_discretization_interval=spec["setting"])
            p = p.self_compose(n) if n > 1 else p
            acc = p if acc is None else acc.compose(p)
        out["eps"] = acc.get_epsilon_for_delta(float(spec["delta"]))
    except MemoryError:
        out["status"] = "memory"
    except (ValueError, RuntimeError, OverflowError) as e:
        out["status"] = "error: " + str(e).replace(",", ";")[:80]
    out["seconds"] = time.perf_counter() - t0
    out["cpu_seconds"] = time.process_time() - c0
    out["peak_mb"] = _maxrss_mb()
    return out


def _run_prv(spec):
    import numpy  # noqa: F401
    import scipy  # noqa: F401
    import scipy.stats  # noqa: F401
    from prv_accountant import PRVAccountant, GaussianMechanism
    _limit(spec)
    out = {"status": "ok", "eps": None}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        prvs = [GaussianMechanism(noise_multiplier=math.sqrt(float(Fraction(s2))) / mu, l2_sensitivity=1.0)
                for s2, _, mu in spec["shifts"]]
        counts = [n for _, n, _ in spec["shifts"]]
        acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=spec["setting"],
                            delta_error=float(spec["delta"]) / 1000)
        out["eps"] = acc.compute_epsilon(delta=float(spec["delta"]), num_self_compositions=counts)
    except MemoryError:
        out["status"] = "memory"
    except (ValueError, RuntimeError) as e:
        out["status"] = "error: " + str(e).replace(",", ";")[:80]
    out["seconds"] = time.perf_counter() - t0
    out["cpu_seconds"] = time.process_time() - c0
    out["peak_mb"] = _maxrss_mb()
    return out


def continuous_epsilon(shifts, delta, dps=50):
    """Exact eps of the continuous Gaussian composition with the same shifts (Balle & Wang 2018, Thm 8):
    mu^2 = sum of n m^2 / sigma^2, exactly, then prv_accountant_bench's bisection (30 digits)."""
    from mpmath import mp, mpf
    from prv_accountant_bench import exact_continuous_epsilon
    with mp.workdps(dps):
        mu2 = sum(mpf(n) * mpf(m) ** 2 * Fraction(s2).denominator / Fraction(s2).numerator for s2, n, m in shifts)
        return exact_continuous_epsilon(mu2, delta, dps)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", metavar="FILE", help="the rows' JSON lines (default: stdin)")
    ap.add_argument("--out", metavar="FILE", help="write the CSV here instead of stdout")
    ap.add_argument("--peers", default="dp,prv", help="dp, prv or both (default)")
    ap.add_argument("--rows", metavar="NAMES", help="comma-separated subset of rows")
    ap.add_argument("--mem-limit-gb", type=float, default=16.0, help="address-space cap per case (default 16)")
    ap.add_argument("--timeout", type=float, default=1200.0, help="wall-clock limit per case (default 1200 s)")
    ap.add_argument("--dp-settings", metavar="LIST",
                    help="dp_accounting settings as INTERVAL:ESTIMATE,... (default 1e-4:pessimistic,1e-5:pessimistic,"
                         "1e-5:optimistic,1e-6:pessimistic)")
    ap.add_argument("--prv-settings", metavar="LIST", help="prv_accountant eps_error values, comma-separated (default 1e-2,1e-3,1e-4)")
    args = ap.parse_args(argv)
    dpa_settings = DPA_SETTINGS
    if args.dp_settings:
        dpa_settings = [(float(a), b) for a, b in (x.split(":") for x in args.dp_settings.split(","))]
    prv_settings = [float(x) for x in args.prv_settings.split(",")] if args.prv_settings else PRV_SETTINGS
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    text = open(args.groups).read() if args.groups else sys.stdin.read()
    rows = [json.loads(l) for l in text.splitlines() if l.strip()]
    if args.rows:
        keep = set(args.rows.split(","))
        rows = [r for r in rows if r["row"] in keep]
    peers = set(args.peers.split(","))
    mem = int(args.mem_limit_gb * 2**30) if args.mem_limit_gb > 0 else 0
    ctx = mp.get_context("spawn")
    from importlib import metadata
    vers = {p: metadata.version(p) for p in ("dp-accounting", "prv-accountant", "numpy", "scipy", "mpmath")}
    sink = open(args.out, "w") if args.out else sys.stdout
    sink.write(f"# peer_rows.py: {', '.join(f'{k} {v}' for k, v in vers.items())}, python {platform.python_version()}"
               f", timeout {args.timeout:g} s, memory cap {args.mem_limit_gb:g} GB\n")
    w = csv.writer(sink, lineterminator="\n")
    w.writerow(HEADER)
    sink.flush()
    for r in rows:
        cases = []
        if "dp" in peers:
            cases += [("dp_accounting", _run_dpa, s, e) for s, e in dpa_settings]
        if "prv" in peers:
            exact = continuous_epsilon(r["shifts"], r["delta"])
            cases += [("prv_accountant", _run_prv, s, "") for s in prv_settings]
        for peer, fn, setting, estimate in cases:
            spec = {"shifts": r["shifts"], "delta": r["delta"], "setting": setting, "estimate": estimate,
                    "mem_limit_bytes": mem}
            pool = ctx.Pool(processes=1, maxtasksperchild=1)
            try:
                res = pool.apply_async(fn, (spec,)).get(timeout=args.timeout)
            except mp.TimeoutError:
                res = {"status": "timeout", "seconds": args.timeout, "cpu_seconds": None, "peak_mb": None,
                       "eps": None}
            finally:
                pool.terminate()
                pool.join()
            eps = res["eps"]
            lo = est = hi = ""
            if eps is not None:
                if isinstance(eps, tuple):
                    lo, est, hi = (format(x, ".17g") for x in eps)
                else:
                    est = format(eps, ".17g")
            cpu = "" if res.get("cpu_seconds") is None else f"{res['cpu_seconds']:.4f}"
            w.writerow([peer, r["row"], r["delta"], repr(setting), estimate, f"{res['seconds']:.4f}", cpu,
                        "" if res["peak_mb"] is None else f"{res['peak_mb']:.1f}", est, lo, hi,
                        exact if peer == "prv_accountant" else "", res["status"]])
            sink.flush()
            print(f"{peer:15s} {r['row']:20s} {setting!r:8s} {estimate:12s} eps={est} t={res['seconds']:.2f}s "
                  f"cpu={cpu}s peak={res['peak_mb']} {res['status']}", file=sys.stderr, flush=True)
    if args.out:
        sink.close()

if __name__ == "__main__":
    main()
