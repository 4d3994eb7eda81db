#!/usr/bin/env bash
# Install what tightdp needs to build on a fresh Debian machine of this kind: Rust is already there;
# MPFR/GMP come from Debian's dev packages (gmp-mpfr-sys is built with `use-system-libs`, so no m4 and
# no 6-minute source build), pkg-config to find them. Idempotent: does nothing when all is present.
set -euo pipefail
need=()
for pkg in libmpfr-dev libgmp-dev pkg-config; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cargo >/dev/null || { echo "setup: cargo not found (install Rust stable)" >&2; exit 1; }
