#!/usr/bin/env bash
# Benchmark of `tightdp topdown measure` (issue 8): ~1 million blocks × 10 queries (DHC 2022-08-25
# allocation, 8 geolevels, scalar schema: each query group is one cell), exact discrete Gaussian
# noise, streamed CSV. Prints wall time and peak memory. Usage: scripts/bench-topdown.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d)}
mkdir -p "$W"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q
T=$CARGO_TARGET_DIR/release/tightdp
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
