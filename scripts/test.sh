#!/usr/bin/env bash
# Run the whole test suite (unit tests beside the code, end-to-end CLI tests in tests/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --release --locked "$@"
