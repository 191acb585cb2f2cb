#!/usr/bin/env bash
# Benchmark (not a test): CPU time an idle `cairnd --lite` uses over a window (default 600 s);
# with `full`, a daemon with the model loaded (CAIRN_MODEL_DIR or the models folder must hold it).
# Usage: scripts/idle-cpu.sh [SECONDS] [full]   (after `cargo build --release --bins`)
set -euo pipefail
cd "$(dirname "$0")/.."
window="${1:-600}"
mode="${2:-lite}"
home="$(mktemp -d /tmp/cairn-idle.XXXXXX)"
export CAIRN_HOME="$home"
trap 'target/release/cairn down >/dev/null 2>&1 || true; rm -rf "$home"' EXIT
if [ "$mode" = full ]; then target/release/cairn up >/dev/null; else target/release/cairn up --lite >/dev/null; fi
# With config files present, as a configured install has them (the watcher then has files to watch).
target/release/cairn config init >/dev/null
pid="$(cat "$home/cairnd.pid")"
if [ "$mode" = full ]; then
  # The window starts once the model is loaded and the seed pack embedded: idle, not start-up.
  for _ in $(seq 120); do
    target/release/cairn status | grep -q '^model: *loaded' && target/release/cairn status | grep -q 'finished in' && break
    sleep 1
  done
  sleep 5
fi
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz="$(getconf CLK_TCK)"
before="$(ticks)"
sleep "$window"
after="$(ticks)"
awk -v a="$after" -v b="$before" -v hz="$hz" -v w="$window" \
  -v m="$mode" 'BEGIN { printf "idle cairnd (%s): %.2f CPU-seconds in %d s\n", m, (a - b) / hz, w }'
