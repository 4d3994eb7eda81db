"""Sensitivity (max iterations per household) of SafeTab-H's flat maps, computed from the public
characteristic-iteration files: h_r*max(2, r) + h_e, h = max over race/eth codes of the number of
iterations the code maps to after the filter (level 0 dropped)."""
import csv, sys, os
from collections import Counter
d = sys.argv[1]
def rd(f):
    with open(os.path.join(d, f)) as fh:
        return list(csv.DictReader(fh, delimiter="|"))
race = [r for r in rd("race-characteristic-iterations.txt") if r["LEVEL"] != "0"]
eth = [r for r in rd("ethnicity-characteristic-iterations.txt") if r["LEVEL"] != "0"]
code2it = rd("race-and-ethnicity-code-to-iteration.txt")
def filt(df, alone=None, detailed_only="both", coarse_only="both", level=None):
    out = []
    for r in df:
        if alone is not None and r["ALONE"] != alone: continue
        if detailed_only != "both" and r["DETAILED_ONLY"] != detailed_only: continue
        if coarse_only != "both" and r["COARSE_ONLY"] != coarse_only: continue
        if level is not None and r["LEVEL"] != level: continue
        out.append(r["ITERATION_CODE"])
    return set(out)
def h(its):
    c = Counter(r["RACE_ETH_CODE"] for r in code2it if r["ITERATION_CODE"] in its)
    return max(c.values()) if c else 0
r_max = 8
for level in ["1", "2"]:
    for gran in ["COARSE", "DETAILED"]:
        do = "both" if gran == "DETAILED" else "False"
        co = "both" if gran == "COARSE" else "False"
        ha = h(filt(race, alone="True", detailed_only=do, coarse_only=co, level=level))
        hn = h(filt(race, alone="False", detailed_only=do, coarse_only=co, level=level))
        he = h(filt(eth, detailed_only=do, coarse_only=co, level=level))
        print(f"level {level} {gran}: h_r_alone={ha} h_r_not_alone={hn} h_e={he} sensitivity={max(ha,hn)*max(2,r_max)+he}")
