#!/usr/bin/env bash
# Benchmark (not a test): CPU time an idle `cairnd --lite` uses over a window (default 600 s).
# Usage: scripts/idle-cpu.sh [SECONDS]   (after `cargo build --release --bins`)
set -euo pipefail
cd "$(dirname "$0")/.."
window="${1:-600}"
home="$(mktemp -d /tmp/cairn-idle.XXXXXX)"
export CAIRN_HOME="$home"
trap 'target/release/cairn down >/dev/null 2>&1 || true; rm -rf "$home"' EXIT
target/release/cairn up --lite >/dev/null
# With config files present, as a configured install has them (the watcher then has files to watch).
target/release/cairn config init >/dev/null
pid="$(cat "$home/cairnd.pid")"
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz="$(getconf CLK_TCK)"
before="$(ticks)"
sleep "$window"
after="$(ticks)"
awk -v a="$after" -v b="$before" -v hz="$hz" -v w="$window" \
  'BEGIN { printf "idle cairnd --lite: %.2f CPU-seconds in %d s\n", (a - b) / hz, w }'
