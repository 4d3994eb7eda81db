#!/usr/bin/env python3
"""Make SYNTHETIC files in the layouts of the real census extracts behind Figures 6, 8 and 9 of
census-2020-more-private-fdp.txt, so that `tightdp accuracy --nhgis`, `tightdp downstream --acs`, the
tests and `tightdp reproduce` run end to end without the (unbundlable) real downloads.

Every number is made up (seeded pseudo-random draws); the layouts are the publishers':

* NHGIS 2010 SF1 (dataset 2010_SF1a, ds172) CSV extracts, one per level (state, county, tract, block
  group, block): NHGIS context fields (GISJOIN, YEAR, REGIONA, ..., STATEA, COUNTYA, TRACTA, BLKGRPA,
  BLOCKA, ...) and the tables P1 (H7V001), P3 (H7X001-H7X008) and P8 (H72001-H72071); the county file
  carries NHGIS's optional descriptive second header row.
* An NHGIS privacy-protected demonstration data (PPDD) county file: gisjoin, name_sf, <code>_sf and
  <code>_dp columns.
* ACS 5-year S1501 "Educational Attainment": Census Data API JSON arrays for six levels (the variables of
  the documented query, then the API's geography columns) and a data.census.gov CSV for the state level
  (GEO_ID, NAME, every S1501_C01_001E...064E estimate and margin of error, a label row).
* ACS B15003 + B20004_001E (detailed tables) for counties, Census API JSON.

Usage: python3 scripts/make_synthetic_extracts.py [OUT_DIR] [--blocks N]
  OUT_DIR defaults to data/synthetic-extracts; --blocks scales the NHGIS geography (benchmarks use
  --blocks 421545, the number of Pennsylvania's 2010 blocks, written only to OUT_DIR/nhgis).
Standard library only; the output is a deterministic function of the arguments.
"""
import csv
import json
import math
import os
import random
import sys

STATE_FIPS = "99"  # not a real state: these files must never be mistaken for real data
STATE_NAME = "Synthetic State"

CONTEXT = [
    "GISJOIN", "YEAR", "REGIONA", "DIVISIONA", "STATE", "STATEA", "COUNTY", "COUNTYA", "COUSUBA", "PLACEA",
    "TRACTA", "BLKGRPA", "BLOCKA", "CONCITA", "RES_ONLYA", "TRUSTA", "AIANHHA", "AITSCEA", "ANRCA", "CBSAA",
    "METDIVA", "CSAA", "NECTAA", "NECTADIVA", "CNECTAA", "UAA", "URBRURALA", "CDA", "SLDUA", "SLDLA", "ZCTA5A",
    "SUBMCDA", "SDELMA", "SDSECA", "SDUNIA", "SABINSA", "NAME",
]
CONTEXT_LABELS = {
    "GISJOIN": "GIS Join Match Code", "YEAR": "Data File Year", "REGIONA": "Region Code", "DIVISIONA": "Division Code",
    "STATE": "State Name", "STATEA": "State Code", "COUNTY": "County Name", "COUNTYA": "County Code",
    "COUSUBA": "County Subdivision Code", "PLACEA": "Place Code", "TRACTA": "Census Tract Code",
    "BLKGRPA": "Block Group Code", "BLOCKA": "Block Code", "NAME": "Area Name-Legal/Statistical Area Description",
}
P3 = ["H7X%03d" % k for k in range(1, 9)]
P8 = ["H72%03d" % k for k in range(1, 72)]
# P8 multi-race cells: (subtotal cell, first combination cell, last combination cell) for 2..6 races
P8_MULTI = [(10, 11, 25), (26, 27, 46), (47, 48, 62), (63, 64, 69), (70, 71, 71)]


def draw_block_population(rng):
    u = rng.random()
    if u < 0.30:
        return 0
    if u < 0.65:
        return rng.randint(1, 20)
    if u < 0.92:
        return rng.randint(21, 150)
    return rng.randint(151, 1200)


def race_profile(rng):
    """P3 category probabilities (White, Black, AI/AN, Asian, NH/PI, Other, Two or more) of a tract."""
    base = [0.78, 0.11, 0.003, 0.035, 0.0006, 0.024, 0.019]
    w = [b * math.exp(rng.gauss(0, 0.8)) for b in base]
    s = sum(w)
    return [x / s for x in w]


def block_p8(rng, n, prof):
    """P8 cells 1..71 (index 0 unused) of a block of n persons."""
    c = [0] * 72
    cats = rng.choices(range(7), weights=prof, k=n) if n else []
    for k in cats:
        if k < 6:
            c[3 + k] += 1
        else:  # two or more races: 2 races 90%, 3 races 8%, 4-6 races 2%
            u = rng.random()
            g = 0 if u < 0.90 else 1 if u < 0.98 else rng.choice([2, 3, 4])
            sub, a, b = P8_MULTI[g]
            c[rng.randint(a, b)] += 1
            c[sub] += 1
            c[9] += 1
    c[2] = sum(c[3:9])
    c[1] = c[2] + c[9]
    return c


def nhgis_row(level, ids, name, p8):
    st, cty, tr, bg, bl = ids
    gis = {
        "state": "G%s0" % st,
        "county": "G%s0%s0" % (st, cty),
        "tract": "G%s0%s0%s" % (st, cty, tr),
        "blck_grp": "G%s0%s0%s%s" % (st, cty, tr, bg),
        "block": "G%s0%s0%s%s" % (st, cty, tr, bl),
    }[level]
    row = {k: "" for k in CONTEXT}
    row.update({"GISJOIN": gis, "YEAR": "2010", "REGIONA": "9", "DIVISIONA": "0", "STATE": STATE_NAME, "STATEA": st, "NAME": name})
    if level != "state":
        row.update({"COUNTY": "County %s" % cty, "COUNTYA": cty})
    if level in ("tract", "blck_grp", "block"):
        row["TRACTA"] = tr
    if level in ("blck_grp", "block"):
        row["BLKGRPA"] = bg
    if level == "block":
        row["BLOCKA"] = bl
        row["URBRURALA"] = "U" if p8[1] > 40 else "R"
    row["H7V001"] = p8[1]
    # P3 = P8's total, six single races, two or more
    for code, v in zip(P3, [p8[1]] + p8[3:9] + [p8[9]]):
        row[code] = v
    for k in range(1, 72):
        row["H72%03d" % k] = p8[k]
    return row


def write_nhgis(out, blocks_target, rng):
    os.makedirs(out, exist_ok=True)
    header = CONTEXT + ["H7V001"] + P3 + P8
    levels = {k: [] for k in ("state", "county", "tract", "blck_grp", "block")}
    n_counties = max(3, round(6 * (blocks_target / 3000) ** 0.5))
    per_county = blocks_target / n_counties
    n_tracts = max(1, round(per_county / 75))
    # blocks per block group (3 per tract), adjusted to sum to exactly blocks_target
    sizes = [max(1, round(per_county / n_tracts / 3 * rng.uniform(0.6, 1.4))) for _ in range(n_counties * n_tracts * 3)]
    i = 0
    while sum(sizes) != blocks_target:
        step = 1 if sum(sizes) < blocks_target else -1
        if sizes[i % len(sizes)] + step >= 1:
            sizes[i % len(sizes)] += step
        i += 1
    sizes = iter(sizes)
    state_tot = [0] * 72
    for ci in range(n_counties):
        cty = "%03d" % (2 * ci + 1)
        county_tot = [0] * 72
        for ti in range(n_tracts):
            tr = "%06d" % (100 * (ti + 1))
            prof = race_profile(rng)
            tract_tot = [0] * 72
            for bi, bg in enumerate("123"):
                bg_tot = [0] * 72
                n_blocks = next(sizes)
                for k in range(n_blocks):
                    bl = "%s%03d" % (bg, k)
                    p8 = block_p8(rng, draw_block_population(rng), prof)
                    levels["block"].append(nhgis_row("block", (STATE_FIPS, cty, tr, bg, bl), "Block %s" % bl, p8))
                    bg_tot = [a + b for a, b in zip(bg_tot, p8)]
                levels["blck_grp"].append(nhgis_row("blck_grp", (STATE_FIPS, cty, tr, bg, ""), "Block Group %s" % bg, bg_tot))
                tract_tot = [a + b for a, b in zip(tract_tot, bg_tot)]
            levels["tract"].append(nhgis_row("tract", (STATE_FIPS, cty, tr, "", ""), "Census Tract %d" % (ti + 1), tract_tot))
            county_tot = [a + b for a, b in zip(county_tot, tract_tot)]
        levels["county"].append(nhgis_row("county", (STATE_FIPS, cty, "", "", ""), "County %s" % cty, county_tot))
        state_tot = [a + b for a, b in zip(state_tot, county_tot)]
    levels["state"].append(nhgis_row("state", (STATE_FIPS, "", "", "", ""), STATE_NAME, state_tot))
    for level, rows in levels.items():
        path = os.path.join(out, "nhgis0000_ds172_2010_%s.csv" % level)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
            w.writeheader()
            if level == "county":  # NHGIS's optional descriptive header row
                labels = {k: CONTEXT_LABELS.get(k, "") for k in CONTEXT}
                labels["H7V001"] = "Total"
                for code in P3 + P8:
                    labels[code] = "Race: " + code
                w.writerow(labels)
            w.writerows(rows)
    return levels


def write_ppdd(out, counties):
    os.makedirs(out, exist_ok=True)
    codes = ["H7V001"] + P3 + P8[:9]
    header = ["gisjoin", "name_sf", "name_dp"]
    for c in codes:
        header += [c + "_sf", c + "_dp"]
    rng = random.Random(77)
    with open(os.path.join(out, "nhgis_ppdd_synthetic_county.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in counties:
            row = [r["GISJOIN"], r["NAME"], r["NAME"]]
            for c in codes:
                v = int(r[c])
                row += [v, max(0, v + round(rng.gauss(0, 3)))]
            w.writerow(row)


# ---- ACS -------------------------------------------------------------------------------------------
ACS_LEVELS = [
    # name, count, GEO_ID prefix, API geography columns, pop25+ lognormal (mu, sigma)
    ("state", 52, "0400000US", ["state"], (14.8, 1.0)),
    ("metro", 60, "310M500US", ["metropolitan statistical area/micropolitan statistical area"], (12.0, 1.3)),
    ("county", 250, "0500000US", ["state", "county"], (10.3, 1.3)),
    ("tract", 1200, "1400000US", ["state", "county", "tract"], (7.9, 0.45)),
    ("cousub", 400, "0600000US", ["state", "county", "county subdivision"], (8.0, 1.4)),
    ("place", 500, "1600000US", ["state", "place"], (7.8, 1.6)),
    ("zcta", 1000, "860Z200US", ["zip code tabulation area"], (8.3, 1.5)),
]
S1501_VARS = ["S1501_C01_%03dE" % k for k in (6, 7, 8, 9, 10, 11, 12, 13, 59)]


def acs_area(rng, mu, sd):
    """(pop 25+ in 7 S1501 rows 007-013, median earnings) of one area."""
    n = max(0, int(round(math.exp(rng.gauss(mu, sd)))))
    bach = min(0.85, max(0.03, rng.betavariate(3, 6.5)))
    rest = [0.05, 0.07, 0.28, 0.21, 0.09]
    rest = [r * math.exp(rng.gauss(0, 0.25)) for r in rest]
    s = sum(rest)
    shares = [r / s * (1 - bach) for r in rest] + [bach * 0.62, bach * 0.38]
    counts = [int(round(n * p)) for p in shares]
    earnings = 21000 + 520 * 100 * bach + rng.gauss(0, 3500)
    return counts, max(2500, int(round(earnings)))


def geo_cols(level, i):
    st = "%02d" % (1 + i % 52)
    if level == "state":
        st = "%02d" % (i + 1)
        return [st], st
    if level == "metro":
        c = "%05d" % (10000 + 37 * i)
        return [c], c
    if level == "county":
        cty = "%03d" % (1 + 2 * (i // 52))
        return [st, cty], st + cty
    if level == "tract":
        cty = "%03d" % (1 + 2 * ((i // 52) % 20))
        tr = "%06d" % (100 * (1 + i // 1040) + i % 97)
        return [st, cty, tr], st + cty + tr
    if level == "cousub":
        cty = "%03d" % (1 + 2 * ((i // 52) % 20))
        cs = "%05d" % (1000 + i)
        return [st, cty, cs], st + cty + cs
    if level == "place":
        pl = "%05d" % (2000 + i)
        return [st, pl], st + pl
    z = "%05d" % (1001 + 7 * i)
    return [z], z


def write_acs(out, rng):
    os.makedirs(out, exist_ok=True)
    all_areas = {}
    for name, n, prefix, api_cols, (mu, sd) in ACS_LEVELS:
        rows = []
        for i in range(n):
            counts, earn = acs_area(rng, mu, sd)
            g, gid = geo_cols(name, i)
            pop = sum(counts)
            med = str(earn)
            if name in ("tract", "place", "zcta") and rng.random() < 0.01:
                med = "-666666666"  # API annotation: median not available
            if name == "zcta" and i % 250 == 7:
                counts, med = [0] * 7, "-666666666"  # an unpopulated ZCTA
                pop = 0
            rows.append((g, prefix + gid, "%s %d, %s" % (name.capitalize(), i + 1, STATE_NAME), pop, counts, med))
        all_areas[name] = rows
        if name == "state":
            continue  # the state level is the data.census.gov CSV below
        header = ["NAME", "GEO_ID"] + S1501_VARS + api_cols
        data = [header]
        for g, gid, nm, pop, counts, med in rows:
            data.append([nm, gid, str(pop)] + [str(c) for c in counts] + [med] + g)
        with open(os.path.join(out, "acs5-2020-s1501-%s.json" % name), "w") as f:
            f.write("[" + ",\n".join(json.dumps(r) for r in data) + "]\n")
    # data.census.gov layout: GEO_ID, NAME, S1501_C01_001E, S1501_C01_001M, ..., S1501_C01_064M; label row
    header = ["GEO_ID", "NAME"]
    labels = ["Geography", "Geographic Area Name"]
    for k in range(1, 65):
        header += ["S1501_C01_%03dE" % k, "S1501_C01_%03dM" % k]
        labels += ["Estimate!!Total!!row %d" % k, "Margin of Error!!Total!!row %d" % k]
    with open(os.path.join(out, "ACSST5Y2020.S1501-Data.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerow(labels)
        for g, gid, nm, pop, counts, med in all_areas["state"]:
            est = {6: pop, 59: int(med)}
            for j, c in enumerate(counts):
                est[7 + j] = c
            est[14] = sum(counts[2:])
            est[15] = counts[5] + counts[6]
            row = [gid, nm]
            for k in range(1, 65):
                row += [est.get(k, 0), max(1, int(math.sqrt(est.get(k, 0) + 1)))]
            w.writerow(row)
    return all_areas


def write_b15003(out, counties, rng):
    """Counties in the detailed-table layout: B15003_001E-025E and B20004_001E (Census API JSON)."""
    os.makedirs(out, exist_ok=True)
    header = ["NAME"] + ["B15003_%03dE" % k for k in range(1, 26)] + ["B20004_001E", "state", "county"]
    data = [header]
    # S1501 rows 007..013 -> B15003 cells: 002-012 | 013-016 | 017-018 | 019-020 | 021 | 022 | 023-025
    spans = [range(2, 13), range(13, 17), range(17, 19), range(19, 21), range(21, 22), range(22, 23), range(23, 26)]
    for g, gid, nm, pop, counts, med in counties:
        cells = [0] * 26
        for c, span in zip(counts, spans):
            span = list(span)
            for _ in range(c):
                cells[rng.choice(span)] += 1
        cells[1] = sum(cells[2:])
        data.append([nm] + [str(v) for v in cells[1:]] + [med] + g)
    with open(os.path.join(out, "acs5-2020-b15003-b20004-county.json"), "w") as f:
        f.write("[" + ",\n".join(json.dumps(r) for r in data) + "]\n")


def main():
    args = sys.argv[1:]
    blocks = 3000
    if "--blocks" in args:
        i = args.index("--blocks")
        blocks = int(args[i + 1])
        del args[i:i + 2]
    out = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "synthetic-extracts")
    rng = random.Random(20101)
    levels = write_nhgis(os.path.join(out, "nhgis"), blocks, rng)
    if blocks != 3000:
        print("wrote %d blocks to %s" % (len(levels["block"]), os.path.join(out, "nhgis")))
        return
    write_ppdd(os.path.join(out, "other-layouts"), levels["county"])
    areas = write_acs(os.path.join(out, "acs"), random.Random(20202))
    write_b15003(os.path.join(out, "other-layouts"), areas["county"][:60], random.Random(3))
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
