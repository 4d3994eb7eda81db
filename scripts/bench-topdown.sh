#!/usr/bin/env bash
# Benchmark of `tightdp topdown measure` (issue 8): ~1 million blocks × 10 queries (DHC 2022-08-25
# allocation, 8 geolevels, scalar schema: each query group is one cell), exact discrete Gaussian
# noise, streamed CSV. Prints wall time and peak memory. Usage: scripts/bench-topdown.sh [WORKDIR [scale]]
# (`scale`: only the post-processing scale table of issue 37, at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d)}
mkdir -p "$W"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q
T=$CARGO_TARGET_DIR/release/tightdp
if [ "${2:-all}" != scale ]; then
$T topdown gen-geography --levels "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block" \
  --fanout "51,20-50,3-5,1-3,2-4,2-4,5-11" --ose "place:0.3,aian:0.05" --seed 7 --out "$W/geo.csv"
for schema in scalar; do
  /usr/bin/time -f "wall %e s, peak RSS %M KB" $T topdown measure --geography "$W/geo.csv" \
    --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 --schema $schema --seed 1 --out "$W/m-$schema"
  ls -la "$W/m-$schema"
done
# a richer histogram (small schema: 48 cells, 96 query cells per geounit) on a tenth of the blocks
$T topdown gen-geography --levels "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block" \
  --fanout "51,2-5,3-5,1-3,2-4,2-4,5-11" --seed 7 --out "$W/geo-small.csv"
/usr/bin/time -f "wall %e s, peak RSS %M KB" $T topdown measure --geography "$W/geo-small.csv" \
  --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 --schema small --seed 1 --out "$W/m-small"
rm -rf "$W/m-scalar/measurements.csv" "$W/m-small/measurements.csv"
# TopDown post-processing (issue 18): DHC 2022-08-25 allocation, 8 geolevels, a 10-cell histogram
# (hhgq=5, votingage=2; the 10 DHC queries per geolevel), zCDP bypass. Target: 100,000 blocks in
# <= 2 minutes on 2 cores, <= 2 GB. Scaling with the number of blocks (OBG fan-out varied).
echo "== topdown postprocess (10-cell histogram): blocks, wall time, peak RSS"
for obg in 1-3 2-5 8-18 30-60; do
  $T topdown gen-geography --levels "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block" \
    --fanout "51,3-6,1-3,1-3,2-4,2-4,$obg" --ose "" --seed 7 --out "$W/geo-pp.csv" >/dev/null
  $T topdown measure --geography "$W/geo-pp.csv" --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 \
    --schema hhgq=5,votingage=2 --seed 1 --out "$W/m-pp" >/dev/null
  blocks=$(($(wc -l < "$W/geo-pp.csv") - 1))
  /usr/bin/time -f "%e %M" -o "$W/pp-time" $T topdown postprocess --run "$W/m-pp" --out "$W/m-pp/estimates.csv" >/dev/null
  read -r secs kb < "$W/pp-time"
  printf "blocks %8d   wall %7.2f s   peak RSS %6.0f MB\n" "$blocks" "$secs" "$(awk "BEGIN{print $kb/1024}")"
  rm -rf "$W/m-pp"
done
fi
# TopDown post-processing at scale (issue 37): DHC 2022-08-25 allocation (the 10 DHC queries per
# geolevel), 8 geolevels, 51 states, a 10-cell histogram (hhgq=5, votingage=2), zCDP bypass; the
# number of blocks grows with the counties per state (COUNTIES: fan-outs State -> County; below a
# county ~14,000 blocks: 1-3 PEPG, 1-3 tract subset groups, 2-4 tract subsets, 2-4 OBGs, 5-11
# blocks). Each size: the whole-tree route (--by-state never) and the by-state route (always), wall
# time, CPU time and peak RSS (/usr/bin/time -v), and a byte comparison of the two estimates.
# ROUTES=always skips the whole-tree route (for sizes whose whole tree does not fit).
echo "== topdown postprocess at scale: blocks, geounits, measurements, route, wall, CPU, peak RSS"
for c in ${COUNTIES:-1 5-9 18-24 60-80}; do
  $T topdown gen-geography --levels "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block" \
    --fanout "51,$c,1-3,1-3,2-4,2-4,5-11" --ose "" --seed 7 --out "$W/geo-s.csv" >/dev/null
  rm -rf "$W/m-s"
  $T topdown measure --geography "$W/geo-s.csv" --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 \
    --schema hhgq=5,votingage=2 --seed 1 --out "$W/m-s" >/dev/null
  blocks=$(($(wc -l < "$W/geo-s.csv") - 1))
  mb=$(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$W/m-s/measurements.csv")/1e6}")
  for route in ${ROUTES:-never always}; do
    /usr/bin/time -v -o "$W/time-$route" $T topdown postprocess --run "$W/m-s" --by-state $route \
      --out "$W/m-s/est-$route.csv" > "$W/pp-$route.txt"
    units=$(awk '$1=="geounits"{print $2}' "$W/pp-$route.txt")
    wall=$(awk -F': ' '/Elapsed/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$W/time-$route")
    cpu=$(awk -F': ' '/User time|System time/{s+=$2} END{print s}' "$W/time-$route")
    kb=$(awk -F': ' '/Maximum resident/{print $2}' "$W/time-$route")
    printf "blocks %9d  geounits %9d  measurements %6d MB  %-6s  wall %8.1f s  CPU %8.1f s  peak RSS %7.0f MB\n" \
      "$blocks" "$units" "$mb" "$route" "$wall" "$cpu" "$(awk "BEGIN{print $kb/1024}")"
  done
  if [ -f "$W/m-s/est-never.csv" ] && [ -f "$W/m-s/est-always.csv" ]; then
    cmp -s "$W/m-s/est-never.csv" "$W/m-s/est-always.csv" && echo "  the two routes' estimates: identical" \
      || { echo "  the two routes' estimates DIFFER"; exit 1; }
  fi
  rm -rf "$W/m-s"
done
