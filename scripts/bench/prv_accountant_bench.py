#!/usr/bin/env python3
"""Peer benchmark: Microsoft's prv_accountant on the 2020 Census DHC cases, continuous-Gaussian stand-in.

Runs beside tightdp's own benchmark and beside scripts/bench/dp_accounting_bench.py, on the same
workloads; run it through `scripts/bench/peers.sh --prv`, which makes a scratch venv outside the repo
and installs prv-accountant (and mpmath, for the analytic reference below).

Sources.
  * prv_accountant: S. Gopi, Y. T. Lee, L. Wutschitz, "Numerical Composition of Differential
    Privacy", NeurIPS 2021 (arXiv:2106.02848); code github.com/microsoft/prv_accountant, PyPI
    `prv-accountant` (0.2.0 used for the recorded results; API read from the installed source).
  * Analytic Gaussian mechanism: B. Balle, Y.-X. Wang, "Improving the Gaussian Mechanism for
    Differential Privacy: Analytical Calibration and Optimal Denoising", ICML 2018, Theorem 8:
    the Gaussian mechanism with sensitivity 1 and noise sigma is (eps, delta)-DP exactly for
        delta(eps) = Phi(-eps/mu + mu/2) - e^eps * Phi(-eps/mu - mu/2),   mu = 1/sigma.
    A composition of Gaussian mechanisms is one Gaussian mechanism with mu = sqrt(sum_i 1/sigma_i^2)
    (its privacy-loss random variable is N(mu^2/2, mu^2); also Dong, Roth, Su, "Gaussian
    Differential Privacy", 2019/2022, Corollary 3.3).

The mechanism prv_accountant cannot model.  The Census queries add *discrete* Gaussian noise
N_Z(0, sigma^2) (pmf proportional to exp(-x^2/(2 sigma^2)) on the integers); prv_accountant 0.2.0 has
no discrete Gaussian privacy random variable (it has GaussianMechanism, LaplaceMechanism,
PoissonSubsampledGaussianMechanism, PureDPMechanism, ApproximateDPMechanism).  Its closest mechanism
is the continuous Gaussian with the same sigma: GaussianMechanism(noise_multiplier=sigma,
l2_sensitivity=1).  So two errors separate:
    prv's own numerical error = |prv eps - exact continuous eps|  (the analytic formula above,
                                solved for eps with mpmath to 30 significant digits),
    model gap                 = |exact continuous eps - exact discrete eps| (tightdp's certified value;
                                table.py computes it, this script records only the continuous value).

Workloads (the same as dp_accounting_bench.py).  DHC production settings of 2022-08-25: rho = 3.65
split over 8 geographic levels with proportions a (data/allocations/dhc-2022-08-25.toml), each level
answers n = 10 queries with sigma^2 = n / (2 a rho).
  (a) level:   each level alone, 10 composed queries, eps at delta = 1e-11 and 1e-5.
  (b) overall: the 8 levels' queries composed (80 queries, heterogeneous), eps at delta = 1e-10.

prv_accountant API used (prv_accountant/accountant.py, 0.2.0):
    acc = PRVAccountant(prvs=[GaussianMechanism(sigma_1), ..., GaussianMechanism(sigma_8)],
                        max_self_compositions=[10]*8, eps_error=e, delta_error=d)
    lower, estimate, upper = acc.compute_epsilon(delta=delta, num_self_compositions=[10]*8)
  * The eight levels are passed as eight PRVs (PEPG and Tract Subset Group share a sigma but are not
    merged), as dp_accounting composes them; the level case passes one PRV with 10 self-compositions.
  * delta_error = delta / 1000 (what the library's own `Accountant` wrapper uses, and its docstring's
    "typically around 1e-3 x delta").  eps_error is the setting varied: the mesh is
    eps_error / sqrt(N/2 * log(12/delta_error)) on a domain [-L, L] whose L comes from an RDP bound
    (paper, Theorem 5.5 and Remark 5.6), so the grid has ~2L/mesh points per PRV and the memory and
    time grow ~1/eps_error.
  * The library returns (lower, estimate, upper); lower/upper are the paper's error bounds
    (estimate -/+ eps_error, widened for delta_error) for the *continuous* Gaussian composition,
    computed in float64 (not certified).

Settings.  eps_error 1e-2 and 1e-4 for the levels; 1e-2, 1e-3 and 1e-4 for the overall case (1e-4
needs 8 grids of ~2e7 points).  --quick: eps_error 1e-2 only, and no overall case.
--eps-errors overrides the list for both cases.

Measurement.  Every row (case, level, delta, eps_error) runs in its own freshly spawned Python
process (multiprocessing "spawn"), one at a time, single-threaded (OMP/BLAS threads = 1), with an
address-space cap (--mem-limit-gb, default 12) and a wall-clock timeout (--timeout, default 900 s);
a row that hits either is recorded with status "memory" / "timeout" and no epsilon.
  seconds  = in-process wall time (time.perf_counter) of PRVAccountant construction (domain bound,
             discretisation) + compute_epsilon (composition by FFT and convolution tree, search),
             excluding the interpreter start and the imports.
  peak_mb  = resource.getrusage(RUSAGE_SELF).ru_maxrss of that process at the end (MiB): peak
             resident memory, INCLUDING the interpreter + numpy + scipy + prv_accountant baseline,
             which is recorded separately as baseline_mb (ru_maxrss right after the imports).  Same
             definition as dp_accounting_bench.py's peak_mb, so the two are comparable.
  epsilon_lower / epsilon / epsilon_upper = the library's three values, 17 significant digits.
  epsilon_continuous_exact = the analytic continuous-Gaussian eps (30 significant digits), not timed.

Observed with 0.2.0 (recorded run and one-off runs, 2 shared cores):
  * Its own error |estimate - exact continuous| stays at 1e-6..1e-5 whatever eps_error (State level,
    delta 1e-11: 1.1e-5 at eps_error 1e-2, 1.2e-5 at 1e-4, 5.3e-6 at 1e-5 [83 s, 5.0 GB, 4e7-point
    grid]; 1.9e-6 at 1e-4 with delta_error 1e-17): a floor, likely of its float64 arithmetic (bin masses are
    differences of Phi values near 1), not of the mesh.  Its [lower, upper] held the exact value in all.
  * The model gap dominates at a single level: the discrete Gaussian's privacy loss lives on a lattice
    of step 1/sigma^2 and its eps(delta) is 9.0e-3 above the continuous one at the State level
    (sigma^2 = 5); across the 8 levels' incommensurate lattices the overall gap is only 1.1e-7.
  * The overall case at eps_error 1e-4 needs 8 grids of 1.96e7 points: 241 s and 7.4 GB peak RSS.

Output: CSV (to stdout or --out FILE) preceded by '#' comment lines (tool and package versions,
settings); header
    case,level,n,sigma2,delta,eps_error,delta_error,seconds,peak_mb,baseline_mb,domain_size,
    epsilon_lower,epsilon,epsilon_upper,epsilon_continuous_exact,status
"""

import argparse
import csv
import io
import math
import multiprocessing as mp
import os
import platform
import sys
import time

RHO_TOTAL = "3.65"
N_QUERIES = 10
# DHC production settings, 2022-08-25 (data/allocations/dhc-2022-08-25.toml): share of rho per level.
LEVELS = [
    ("US", "0.02"),
    ("State", "0.274"),
    ("County", "0.085"),
    ("PEPG", "0.131"),
    ("Tract Subset Group", "0.131"),
    ("Tract Subset", "0.238"),
    ("Optimized Block Group", "0.118"),
    ("Block", "0.003"),
]
LEVEL_DELTAS = ["1e-11", "1e-5"]
OVERALL_DELTAS = ["1e-10"]
LEVEL_EPS_ERRORS = [1e-2, 1e-4]
OVERALL_EPS_ERRORS = [1e-2, 1e-3, 1e-4]
HEADER = ["case", "level", "n", "sigma2", "delta", "eps_error", "delta_error", "seconds", "peak_mb",
          "baseline_mb", "domain_size", "epsilon_lower", "epsilon", "epsilon_upper",
          "epsilon_continuous_exact", "status"]


def sigma2_of(a, n=N_QUERIES, rho=RHO_TOTAL):
    """sigma^2 = n / (2 a rho) as a float (same value as dp_accounting_bench.py's sigma2_of)."""
    return n / (2.0 * float(a) * float(rho))


def _maxrss_mb():
    import resource
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _run_row(spec):
    """Worker body (runs in a spawned child): build the accountant and query one delta."""
    import resource
    import numpy  # noqa: F401  (imported before the baseline so it is not charged to the case)
    import scipy  # noqa: F401
    import scipy.stats  # noqa: F401
    import prv_accountant
    from prv_accountant import PRVAccountant, GaussianMechanism

    if spec["mem_limit_bytes"]:
        resource.setrlimit(resource.RLIMIT_AS, (spec["mem_limit_bytes"], spec["mem_limit_bytes"]))
    baseline_mb = _maxrss_mb()
    sigmas = [math.sqrt(s2) for s2 in spec["sigma2s"]]
    counts = [N_QUERIES] * len(sigmas)
    out = {"baseline_mb": baseline_mb, "domain_size": None, "eps": (None, None, None),
           "status": "ok", "seconds": None}
    t0 = time.perf_counter()
    try:
        acc = PRVAccountant(prvs=[GaussianMechanism(noise_multiplier=s, l2_sensitivity=1.0)
                                  for s in sigmas],
                            max_self_compositions=counts,
                            eps_error=spec["eps_error"], delta_error=spec["delta_error"])
        out["domain_size"] = len(acc.composer.prvs[0].pmf)
        out["eps"] = acc.compute_epsilon(delta=float(spec["delta"]), num_self_compositions=counts)
    except MemoryError:
        out["status"] = "memory"
    except (ValueError, RuntimeError) as e:  # the library's own refusals (float64 floor, search)
        out["status"] = "error: " + str(e).replace(",", ";")[:80]
    out["seconds"] = time.perf_counter() - t0
    out["peak_mb"] = _maxrss_mb()
    out["version"] = getattr(prv_accountant, "__version__", None)
    return out


def exact_continuous_epsilon(mu2, delta, dps=50):
    """eps with Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta (Balle & Wang 2018, Thm 8).

    mu2 and delta are decimal strings or mpmath numbers; bisection at `dps` digits (delta(eps) is
    strictly decreasing), returned as a string of 30 significant digits.
    """
    from mpmath import mp, mpf, sqrt, exp, ncdf, nstr

    with mp.workdps(dps):
        mu = sqrt(mpf(mu2))
        d = mpf(delta)

        def delta_of(eps):
            return ncdf(-eps / mu + mu / 2) - exp(eps) * ncdf(-eps / mu - mu / 2)

        lo, hi = mpf(0), mpf(1)
        if delta_of(lo) <= d:
            return nstr(lo, 30)
        while delta_of(hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(dps * 4):  # 2^-200 of the bracket: far below 30 digits
            mid = (lo + hi) / 2
            if delta_of(mid) > d:
                lo = mid
            else:
                hi = mid
        return nstr((lo + hi) / 2, 30, strip_zeros=False)


def mu2_of(shares):
    """mu^2 = sum over levels of n / sigma^2 = sum 2 a rho, exactly, from the decimal shares."""
    from mpmath import mp, mpf

    with mp.workdps(50):
        return sum(2 * mpf(a) * mpf(RHO_TOTAL) for a in shares)


def _fmt(x):
    return "" if x is None else format(x, ".17g")


def build_specs(args):
    levels = list(LEVELS)
    if args.levels:
        wanted = {s.strip().lower() for s in args.levels.split(",")}
        levels = [(n, a) for n, a in levels if n.lower() in wanted]
        unknown = wanted - {n.lower() for n, _ in levels}
        if unknown:
            sys.exit(f"unknown level(s): {sorted(unknown)}; known: {[n for n, _ in LEVELS]}")
    if args.eps_errors:
        lev_errs = ovr_errs = [float(x) for x in args.eps_errors.split(",")]
    elif args.quick:
        lev_errs, ovr_errs = [1e-2], []
    else:
        lev_errs, ovr_errs = LEVEL_EPS_ERRORS, OVERALL_EPS_ERRORS
    mem = int(args.mem_limit_gb * 2**30) if args.mem_limit_gb > 0 else 0
    specs = []
    for name, a in levels:
        for delta in LEVEL_DELTAS:
            for e in lev_errs:
                specs.append({"case": "level", "level": name, "n": N_QUERIES, "shares": [a],
                              "sigma2s": [sigma2_of(a)], "delta": delta, "eps_error": e,
                              "delta_error": float(delta) / 1000, "mem_limit_bytes": mem})
    if not args.quick and not args.no_overall:
        for delta in OVERALL_DELTAS:
            for e in ovr_errs:
                specs.append({"case": "overall", "level": "all", "n": N_QUERIES * len(LEVELS),
                              "shares": [a for _, a in LEVELS],
                              "sigma2s": [sigma2_of(a) for _, a in LEVELS], "delta": delta,
                              "eps_error": e, "delta_error": float(delta) / 1000,
                              "mem_limit_bytes": mem})
    return specs


def versions():
    from importlib import metadata
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("prv-accountant", "numpy", "scipy", "mpmath"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Benchmark Microsoft's prv_accountant (continuous Gaussian with the same sigma) "
                    "on the Census DHC cases, with the exact continuous-Gaussian eps beside it.",
        epilog="seconds = PRVAccountant construction + compute_epsilon, in-process; peak_mb = "
               "ru_maxrss of the per-row spawned process (baseline_mb = after the imports).")
    ap.add_argument("--out", metavar="FILE", help="write the CSV here instead of stdout")
    ap.add_argument("--quick", action="store_true",
                    help="only eps_error 1e-2, and skip the overall case")
    ap.add_argument("--levels", metavar="NAMES",
                    help="comma-separated subset of levels for case (a), e.g. 'US,State,Block'")
    ap.add_argument("--no-overall", action="store_true", help="skip the overall (80-query) case")
    ap.add_argument("--eps-errors", metavar="LIST",
                    help="comma-separated eps_error settings for all cases, e.g. '1e-2,1e-3'")
    ap.add_argument("--mem-limit-gb", type=float, default=12.0,
                    help="address-space cap per row (RLIMIT_AS; 0 = none); default 12")
    ap.add_argument("--timeout", type=float, default=900.0,
                    help="wall-clock limit per row in seconds; default 900")
    args = ap.parse_args(argv)

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

    vers = versions()
    if vers["prv-accountant"] is None or vers["mpmath"] is None:
        sys.exit("prv-accountant and mpmath are needed; run scripts/bench/peers.sh --prv")
    print(f"prv_accountant {vers['prv-accountant']}, numpy {vers['numpy']}, scipy {vers['scipy']}, "
          f"mpmath {vers['mpmath']}, python {vers['python']}", file=sys.stderr)

    specs = build_specs(args)
    ctx = mp.get_context("spawn")
    rows = []
    exact_cache = {}
    t_total = time.perf_counter()
    for i, spec in enumerate(specs, 1):
        key = (tuple(spec["shares"]), spec["delta"])
        if key not in exact_cache:
            exact_cache[key] = exact_continuous_epsilon(mu2_of(spec["shares"]), spec["delta"])
        exact = exact_cache[key]
        pool = ctx.Pool(processes=1, maxtasksperchild=1)
        try:
            res = pool.apply_async(_run_row, (spec,)).get(timeout=args.timeout)
        except mp.TimeoutError:
            res = {"status": "timeout", "seconds": args.timeout, "peak_mb": None,
                   "baseline_mb": None, "domain_size": None, "eps": (None, None, None)}
        finally:
            pool.terminate()
            pool.join()
        lo, est, hi = res["eps"]
        rows.append([spec["case"], spec["level"], spec["n"],
                     repr(spec["sigma2s"][0]) if spec["case"] == "level" else "",
                     spec["delta"], repr(spec["eps_error"]), repr(spec["delta_error"]),
                     f"{res['seconds']:.4f}",
                     "" if res["peak_mb"] is None else f"{res['peak_mb']:.1f}",
                     "" if res["baseline_mb"] is None else f"{res['baseline_mb']:.1f}",
                     "" if res["domain_size"] is None else res["domain_size"],
                     _fmt(lo), _fmt(est), _fmt(hi), exact, res["status"]])
        peak = "-" if res["peak_mb"] is None else f"{res['peak_mb']:.1f}MB"
        print(f"[{i}/{len(specs)}] {spec['case']:7s} {spec['level']:22s} delta={spec['delta']:5s} "
              f"eps_error={spec['eps_error']:g} eps={_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}] "
              f"exact_cont={exact[:14]} t={res['seconds']:.3f}s peak={peak} "
              f"grid={res['domain_size']} {res['status']}", file=sys.stderr, flush=True)
    total = time.perf_counter() - t_total
    print(f"total wall time {total:.1f}s", file=sys.stderr)

    buf = io.StringIO()
    buf.write(f"# prv_accountant_bench.py: prv-accountant {vers['prv-accountant']}, "
              f"numpy {vers['numpy']}, scipy {vers['scipy']}, mpmath {vers['mpmath']}, "
              f"python {vers['python']}, {vers['platform']}\n")
    buf.write("# mechanism: continuous GaussianMechanism(noise_multiplier=sigma) standing in for the "
              "discrete Gaussian N_Z(0, sigma^2); delta_error = delta/1000; seconds in-process "
              "(no imports); peak_mb = ru_maxrss incl. baseline_mb; one process per row, 1 thread\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(rows)
    text = buf.getvalue()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
