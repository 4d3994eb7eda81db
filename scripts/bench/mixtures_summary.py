#!/usr/bin/env python3
"""Summarise scripts/bench/mixtures_results.csv (scripts/bench/mixtures.py) as the markdown table quoted in
docs/lattice-fourier.md: per query and binary, the cells answered at >= 20 digits, answered with fewer
(the note says how many and why), refused (exit 2) and timed out; median and largest wall time; largest
peak memory. Then the slowest cells of the first binary.

Run: python3 scripts/bench/mixtures_summary.py [scripts/bench/mixtures_results.csv]"""
import csv
import statistics
import sys


def num(v):
    return float(v) if v else 0.0


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "scripts/bench/mixtures_results.csv"
    rows = list(csv.DictReader(open(path)))
    bins = list(dict.fromkeys(r["binary"] for r in rows))
    queries = list(dict.fromkeys(r["query"] for r in rows))
    print("| query | binary | cells | >= 20 digits | fewer digits | refused | timed out | median s | max s | max MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for q in queries:
        for b in bins:
            rs = [r for r in rows if r["binary"] == b and r["query"] == q]
            ok = [r for r in rs if r["status"] == "ok"]
            full = sum(1 for r in ok if r["digits"] == "exact" or int(r["digits"]) >= 20)
            refused = sum(1 for r in rs if r["status"].startswith("exit"))
            timeout = sum(1 for r in rs if r["status"] == "timeout")
            secs = [num(r["secs"]) for r in rs]
            mb = max(num(r["mb"]) for r in rs)
            print(
                f"| {q} | {b} | {len(rs)} | {full} | {len(ok) - full} | {refused} | {timeout} | "
                f"{statistics.median(secs):.2f} | {max(secs):.1f}{'+' if timeout else ''} | {mb:.0f} |"
            )
    first = [r for r in rows if r["binary"] == bins[0]]
    print()
    print(f"Slowest cells ({bins[0]}):")
    print()
    print("| sigma2 | n_G | DLap scale | n_L | query | s | MB | method | digits |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in sorted(first, key=lambda r: -num(r["secs"]))[:8]:
        print(f"| {r['sigma2']} | {r['n_g']} | {r['dlap_scale']} | {r['n_l']} | {r['query']} | {num(r['secs']):.1f} | {num(r['mb']):.0f} | "
              f"{r['method'] or r['status']} | {r['digits']} |")


if __name__ == "__main__":
    main()
