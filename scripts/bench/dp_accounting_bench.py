#!/usr/bin/env python3
"""Peer benchmark: Google's dp_accounting PLD accountant on the 2020 Census DHC discrete-Gaussian cases.

Runs beside tightdp's own benchmark so the two can be compared on the same inputs: run it through
scripts/bench/peers.sh, which makes a scratch venv outside the repo and installs dp-accounting.

Mechanism.  Each query adds discrete Gaussian noise N_Z(0, sigma^2), pmf proportional to
exp(-x^2 / (2 sigma^2)) on the integers, sensitivity 1.  DHC production settings of 2022-08-25: the
total zCDP budget rho = 3.65 is split over the 8 geographic levels with proportions `a`, and each
level answers n = 10 i.i.d. queries, so sigma^2 = n / (2 * a * 3.65).

dp_accounting API used (read from the installed 0.6.0 source):
    pld = dp_accounting.pld.privacy_loss_distribution.from_discrete_gaussian_mechanism(
              sigma, sensitivity=1, pessimistic_estimate=..., value_discretization_interval=...)
    pld = pld.self_compose(10)                      # tail_mass_truncation=1e-15 (library default)
    overall = pld_US.compose(pld_State).compose(...)# tail_mass_truncation=1e-15 (library default)
    eps = pld.get_epsilon_for_delta(delta)
  * The parameter is called `sigma` (not `standard_deviation`); it is the sigma of
    exp(-x^2/(2 sigma^2)), i.e. NOT the standard deviation of the noise (the library says so too).
  * The library truncates the noise to [-T, T] with T = ceil(11.6 * sigma) (truncation_bound=None),
    renormalises it there, and puts the mass of the shifted distribution outside [-T, T] (one atom,
    mu(T) ~ 1e-30) at infinite privacy loss.
  * self_compose / compose truncate the PLD tails by Chernoff bounds with tail_mass_truncation=1e-15,
    and (for self_compose, both estimates) add that 1e-15 to the infinite-loss mass.  At delta=1e-11
    this padding moves eps by 1e-7..3e-5, and it is what keeps the pessimistic value above the true
    one: with tail_mass_truncation=0 the State level at discretization 1e-5 gave 10.1254095 < exact
    10.1254170 (float64 FFT round-off ~1e-16 absolute per bin is not negligible against delta=1e-11).
  * Rounding each atom's loss up (pessimistic) or down (optimistic) to the grid makes the two
    estimates differ by exactly n * discretization here (1e-4 for 10 queries at 1e-5), which caps the
    accuracy either estimate can promise at ~4-6 significant digits.

Cases.
  (a) level: each of the 8 levels alone, n = 10 composed queries, eps at delta = 1e-11 and 1e-5.
  (b) overall: the 8 levels' 10-fold PLDs composed together (80 queries), eps at delta = 1e-10.
  Each at discretization 1e-4 (pessimistic) and 1e-5 (pessimistic and optimistic, a bracket).
  --quick: discretization 1e-4 only, and no overall case.

Measurement.  Every (case, discretization, estimate) runs in its own freshly spawned Python process
(multiprocessing "spawn"), one at a time, single-threaded (OMP/BLAS threads = 1).
  seconds  = wall time (time.perf_counter) of PLD construction + composition + that row's
             get_epsilon_for_delta call (rows of one group share the construction/composition part).
  peak_mb  = the worker process's ru_maxrss at the end (MiB), i.e. peak resident memory of a Python
             process holding numpy/scipy/dp_accounting plus the case; the idle baseline after the
             imports is reported on stderr and in --json output (baseline_mb).
  epsilon  = printed with 17 significant digits (inputs sigma2/delta/discretization are printed as
             Python's shortest round-trip repr, so they are exact float64 values too).

Output: CSV with header
    case,level,n,sigma2,delta,discretization,estimate,seconds,peak_mb,epsilon
to stdout or --out FILE; --json writes a JSON document instead (the same rows plus per-row timing
breakdown, truncation details and library versions).
"""

import argparse
import csv
import io
import json
import math
import multiprocessing as mp
import os
import platform
import sys
import time

RHO_TOTAL = 3.65
N_QUERIES = 10
# DHC production settings, 2022-08-25: proportion of rho per geographic level.
LEVELS = [
    ("US", 0.02),
    ("State", 0.274),
    ("County", 0.085),
    ("PEPG", 0.131),
    ("Tract Subset Group", 0.131),
    ("Tract Subset", 0.238),
    ("Optimized Block Group", 0.118),
    ("Block", 0.003),
]
LEVEL_DELTAS = [1e-11, 1e-5]
OVERALL_DELTAS = [1e-10]
HEADER = ["case", "level", "n", "sigma2", "delta", "discretization", "estimate", "seconds",
          "peak_mb", "epsilon"]


def sigma2_of(a, n=N_QUERIES, rho=RHO_TOTAL):
    """sigma^2 = n / (2 a rho): each of the n queries gets zCDP rho_q = a rho / n = 1 / (2 sigma^2)."""
    return n / (2.0 * a * rho)


def _maxrss_mb():
    import resource
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _run_group(spec):
    """Worker body (runs in a spawned child): build, compose and query one group of rows."""
    import numpy  # noqa: F401  (imported before the baseline so it is not charged to the case)
    import scipy  # noqa: F401
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    baseline_mb = _maxrss_mb()
    disc = spec["discretization"]
    pessimistic = spec["estimate"] == "pessimistic"

    def level_pld(sigma2):
        single = pld_lib.from_discrete_gaussian_mechanism(
            math.sqrt(sigma2),
            sensitivity=1,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=disc)
        return single, single.self_compose(N_QUERIES)

    t0 = time.perf_counter()
    singles_inf = []
    if spec["case"] == "level":
        single, pld = level_pld(spec["sigma2"])
        singles_inf.append(single._pmf_remove._infinity_mass)  # pylint: disable=protected-access
    else:
        pld = None
        for _, sigma2 in spec["levels"]:
            single, composed = level_pld(sigma2)
            singles_inf.append(single._pmf_remove._infinity_mass)  # pylint: disable=protected-access
            pld = composed if pld is None else pld.compose(composed)
    t_build = time.perf_counter() - t0

    pmf = pld._pmf_remove  # pylint: disable=protected-access
    rows = []
    for delta in spec["deltas"]:
        t1 = time.perf_counter()
        eps = pld.get_epsilon_for_delta(delta)
        t_query = time.perf_counter() - t1
        rows.append({"delta": delta, "epsilon": eps, "build_compose_seconds": t_build,
                     "query_seconds": t_query, "seconds": t_build + t_query})
    return {
        "rows": rows,
        "peak_mb": _maxrss_mb(),
        "baseline_mb": baseline_mb,
        "pmf_size": int(pmf.size),
        "pmf_type": type(pmf).__name__,
        "composed_infinity_mass": float(pmf._infinity_mass),  # pylint: disable=protected-access
        "single_query_infinity_mass": [float(x) for x in singles_inf],
    }


def _fmt(x):
    return format(x, ".17g")


def build_specs(args):
    levels = [(name, sigma2_of(a)) for name, a in LEVELS]
    if args.levels:
        wanted = {s.strip().lower() for s in args.levels.split(",")}
        levels = [(n, s) for n, s in levels if n.lower() in wanted]
        unknown = wanted - {n.lower() for n, _ in levels}
        if unknown:
            sys.exit(f"unknown level(s): {sorted(unknown)}; known: {[n for n, _ in LEVELS]}")
    if args.quick:
        grid = [(1e-4, "pessimistic")]
    else:
        grid = [(1e-4, "pessimistic"), (1e-5, "pessimistic"), (1e-5, "optimistic")]
    specs = []
    for name, sigma2 in levels:
        for disc, est in grid:
            specs.append({"case": "level", "level": name, "n": N_QUERIES, "sigma2": sigma2,
                          "deltas": LEVEL_DELTAS, "discretization": disc, "estimate": est})
    if not args.quick and not args.no_overall:
        all_levels = [(name, sigma2_of(a)) for name, a in LEVELS]
        for disc, est in grid:
            specs.append({"case": "overall", "level": "all", "n": N_QUERIES * len(all_levels),
                          "sigma2": None, "levels": all_levels, "deltas": OVERALL_DELTAS,
                          "discretization": disc, "estimate": est})
    return specs


def versions():
    from importlib import metadata
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("dp-accounting", "numpy", "scipy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Benchmark Google's dp_accounting PLD accountant on the Census DHC "
                    "discrete-Gaussian cases (peer of tightdp's benchmark).",
        epilog="Columns: seconds = PLD construction + composition + that row's "
               "get_epsilon_for_delta; peak_mb = ru_maxrss of the per-case spawned process "
               "(includes the interpreter+numpy+scipy baseline, shown on stderr).")
    ap.add_argument("--out", metavar="FILE", help="write the results here instead of stdout")
    ap.add_argument("--json", action="store_true",
                    help="write JSON (rows + timing breakdown, truncation details, versions) "
                         "instead of CSV")
    ap.add_argument("--quick", action="store_true",
                    help="only discretization 1e-4 (pessimistic), and skip the overall case")
    ap.add_argument("--levels", metavar="NAMES",
                    help="comma-separated subset of levels for case (a), e.g. 'US,State,Block'")
    ap.add_argument("--no-overall", action="store_true", help="skip the overall (80-query) case")
    args = ap.parse_args(argv)

    # Keep CPU use serial: one worker at a time, single-threaded numerics.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

    vers = versions()
    if vers["dp-accounting"] is None:
        sys.exit("dp-accounting is not installed; run scripts/bench/peers.sh")
    print(f"dp_accounting {vers['dp-accounting']}, numpy {vers['numpy']}, scipy {vers['scipy']}, "
          f"python {vers['python']}", file=sys.stderr)

    specs = build_specs(args)
    ctx = mp.get_context("spawn")
    records = []
    t_total = time.perf_counter()
    for i, spec in enumerate(specs, 1):
        # One fresh process per group so ru_maxrss is that group's own peak.
        with ctx.Pool(processes=1, maxtasksperchild=1) as pool:
            res = pool.apply(_run_group, (spec,))
        for row in res["rows"]:
            rec = {k: spec[k] for k in ("case", "level", "n", "sigma2", "discretization", "estimate")}
            rec.update(row)
            rec.update({k: res[k] for k in ("peak_mb", "baseline_mb", "pmf_size", "pmf_type",
                                            "composed_infinity_mass",
                                            "single_query_infinity_mass")})
            if spec["case"] == "level":
                rec["truncation_bound"] = math.ceil(11.6 * math.sqrt(spec["sigma2"]))
            records.append(rec)
            print(f"[{i}/{len(specs)}] {spec['case']:7s} {spec['level']:22s} "
                  f"disc={spec['discretization']:g} {spec['estimate']:11s} "
                  f"delta={row['delta']:g} eps={_fmt(row['epsilon'])} "
                  f"t={row['seconds']:.3f}s peak={res['peak_mb']:.1f}MB "
                  f"(baseline {res['baseline_mb']:.1f}MB, pmf {res['pmf_size']})",
                  file=sys.stderr, flush=True)
    total = time.perf_counter() - t_total
    print(f"total wall time {total:.1f}s", file=sys.stderr)

    if args.json:
        text = json.dumps({"tool": "dp_accounting", "versions": vers, "rho_total": RHO_TOTAL,
                           "levels": [{"level": n, "a": a, "sigma2": sigma2_of(a)}
                                      for n, a in LEVELS],
                           "total_seconds": total, "rows": records}, indent=1) + "\n"
    else:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(HEADER)
        for r in records:
            w.writerow([r["case"], r["level"], r["n"],
                        "" if r["sigma2"] is None else repr(r["sigma2"]),
                        repr(r["delta"]), repr(r["discretization"]), r["estimate"],
                        f"{r['seconds']:.4f}", f"{r['peak_mb']:.1f}", _fmt(r["epsilon"])])
        text = buf.getvalue()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
