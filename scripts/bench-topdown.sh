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
    --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 --schema $schema --seed 1 --out-dir "$W/m-$schema"
  ls -la "$W/m-$schema"
done
# a richer histogram (small schema: 48 cells, 96 query cells per geounit) on a tenth of the blocks
$T topdown gen-geography --levels "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block" \
  --fanout "51,2-5,3-5,1-3,2-4,2-4,5-11" --seed 7 --out "$W/geo-small.csv"
/usr/bin/time -f "wall %e s, peak RSS %M KB" $T topdown measure --geography "$W/geo-small.csv" \
  --allocation data/allocations/dhc-2022-08-25.toml --synth-seed 1 --schema small --seed 1 --out-dir "$W/m-small"
rm -rf "$W/m-scalar/measurements.csv" "$W/m-small/measurements.csv"
