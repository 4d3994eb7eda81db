#!/usr/bin/env python3
"""Issue 53's two timing criteria beside its accuracy one, measured in one run, tightdp alone (no peer answers
f(alpha) or certifies these digits):

1. "time flat in T from T = 10^3 on (fitted exponent <= 0.1)": eps(delta) at 20 digits of the continuous laws'
   cells at T = 10^3, 10^4, 10^5 and 10^6 releases (DP-SGD at the MNIST and Abadi et al. rates and noise, the
   Laplace mechanism at scale 1 and 10, randomized response, and DP-SGD steps mixed with discrete Gaussian
   releases), and the exponent of time in T fitted by least squares of log time on log T.
2. "delta(eps) and f(alpha) within 2x the time of eps(delta)": on the same cells at T = 10^3 and on issue 53's
   DP-SGD settings, delta at the eps found (rounded to 6 significant digits) and f at alpha = 1e-3, 1/10 and 1/2,
   each at 20 digits, as the ratio of its time to eps(delta)'s.

Each query is the first on its composition: a fresh process (tightdp's Python package from target/pyvenv, built by
./scripts/test.sh), the package imported and the composition built outside the timing, the one query timed, best
of 3. The digits are the certified bracket's.

Usage: python3 scripts/bench/queries.py [--out CSV] [--quick]   (--quick: T up to 10^4, one run per query)
"""
import math
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dpsgd import SETTINGS  # noqa: E402
from laplace import BIN, write_csv  # noqa: E402

PYVENV = BIN.parents[1] / "pyvenv" / "bin" / "python"

ONE_QUERY = """
import sys, time, tightdp
mechs, neighbors, kind, arg = sys.argv[1].split("|"), sys.argv[2], sys.argv[3], sys.argv[4]
c = tightdp.from_mechs(mechs, neighbors)
ask = {"epsilon": c.epsilon, "delta": c.delta, "tradeoff": c.tradeoff}[kind]
t = time.perf_counter()
r = ask(arg, digits=20)
print(time.perf_counter() - t, r.digits, r.method, r.lo, r.hi)
"""


def families():
    """(name, T -> (mechanisms, neighbours), delta): the cells whose number of releases is T."""
    yield ("DP-SGD q = 256/60000, sigma 1.1", lambda t: ([f"gauss:sigma=1.1,q=256/60000,n={t}"], "add-remove"), "1e-5")
    yield ("DP-SGD q = 0.01, sigma 4", lambda t: ([f"gauss:sigma=4,q=1/100,n={t}"], "add-remove"), "1e-5")
    yield ("Laplace(1)", lambda t: ([f"laplace:scale=1,n={t}"], "add-remove"), "1e-5")
    yield ("Laplace(10)", lambda t: ([f"laplace:scale=10,n={t}"], "add-remove"), "1e-5")
    yield ("randomized response eps0 = 1", lambda t: ([f"rr:epsilon=1,n={t}"], "replace"), "1e-5")
    yield ("DP-SGD q = 0.01, sigma 2 + 10 discrete Gaussian(100)",
           lambda t: ([f"gauss:sigma=2,q=1/100,n={t}", "dgauss:sigma2=100,n=10"], "add-remove"), "1e-5")


def query(mechs, neighbors, kind, arg, runs):
    """(best seconds, digits, method, lo, hi) of one query, each run in a fresh process."""
    best, out = math.inf, None
    for _ in range(runs):
        res = subprocess.run([str(PYVENV), "-c", ONE_QUERY, "|".join(mechs), neighbors, kind, arg],
                             capture_output=True, text=True)
        if res.returncode != 0:
            return None
        s, digits, method, lo, hi = res.stdout.split()
        if float(s) < best:
            best, out = float(s), (float(s), int(digits), method, lo, hi)
    return out


def fit(ts, secs):
    """The least-squares slope of log seconds on log T."""
    xs, ys = [math.log(t) for t in ts], [math.log(s) for s in secs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def sig6(x):
    return f"{float(x):.6g}"


def ratios(name, mechs, neighbors, delta, runs, rows):
    eps = query(mechs, neighbors, "epsilon", delta, runs)
    if eps is None:
        print(f"{name:<58} eps(delta) refused")
        return
    asks = [("delta", sig6(eps[3]))] + [("tradeoff", a) for a in ("1/1000", "1/10", "1/2")]
    line = f"{name:<58} eps {eps[0]:7.3f} s {eps[1]:>2}d"
    for kind, arg in asks:
        r = query(mechs, neighbors, kind, arg, runs)
        if r is None:
            line += f" | {kind}({arg}) refused"
            continue
        line += f" | {'d' if kind == 'delta' else 'f'}({arg}) {r[0] / eps[0]:5.1f}x {r[1]:>2}d"
        rows.append(dict(part="ratio", cell=name, query=f"{kind}({arg})", seconds=f"{r[0]:.4f}", digits=r[1],
                         method=r[2], epsilon_seconds=f"{eps[0]:.4f}", ratio=f"{r[0] / eps[0]:.2f}"))
    print(line, flush=True)


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    quick = "--quick" in sys.argv
    runs = 1 if quick else 3
    if not PYVENV.exists():
        sys.exit(f"no {PYVENV}: run ./scripts/test.sh first (it builds tightdp's Python package there)")
    rows = []
    ts = (1000, 10000) if quick else (1000, 10000, 100000, 1000000)
    print("eps(delta) at 20 digits against the number of releases T (seconds, best of %d; digits)" % runs)
    for name, make, delta in families():
        secs, line = [], f"{name:<58}"
        for t in ts:
            r = query(*make(t), "epsilon", delta, runs)
            if r is None:
                line += f" T={t:.0e}: refused"
                continue
            secs.append((t, r[0]))
            line += f" {r[0]:7.3f} s {r[1]:>2}d"
            rows.append(dict(part="scaling", cell=name, query=f"epsilon({delta}), T = {t}", seconds=f"{r[0]:.4f}",
                             digits=r[1], method=r[2]))
        if len(secs) >= 2:
            k = fit([t for t, _ in secs], [s for _, s in secs])
            line += f"   exponent {k:+.3f}"
            rows.append(dict(part="exponent", cell=name, query="epsilon, T = 10^3 .. 10^6", ratio=f"{k:.3f}"))
        print(line, flush=True)
    print("\ndelta(eps) and f(alpha) at 20 digits: time against eps(delta)'s (the first query on a composition)")
    for name, make, delta in families():
        ratios(f"{name}, T = 1000", *make(1000), delta, runs, rows)
    for name, q, sigma, steps, delta in SETTINGS:
        ratios(f"DP-SGD {name}", [f"gauss:sigma={sigma},q={q},n={steps}"], "add-remove", delta, runs, rows)
    if out:
        keys = ("part", "cell", "query", "seconds", "digits", "method", "epsilon_seconds", "ratio")
        write_csv(out, [{k: r.get(k, "") for k in keys} for r in rows])


if __name__ == "__main__":
    main()
