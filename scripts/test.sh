#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: builds the binaries that the end-to-end tests
# drive, then every unit and end-to-end test.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --workspace --bins --locked
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
