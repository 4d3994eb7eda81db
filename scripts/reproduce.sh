#!/usr/bin/env bash
# The main job: build, then regenerate every table, figure and the verification into results/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release --locked
./target/release/tightdp reproduce --out results "$@"
