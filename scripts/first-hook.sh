#!/usr/bin/env bash
# The first hook after `cairn up`, timed: for each run, a fresh home, `up`, a pause, one Bash
# event (a force push, which the seed pack speaks on), `down`. Two builds are interleaved run by
# run, so the VM's drift falls on both alike. With --load, two busy loops hold both cores for the
# whole measurement. Prints, per build, the median, least and most milliseconds, and how many
# first hooks said nothing (the answer missed the hook's deadline).
#
#   scripts/first-hook.sh NEW_BIN_DIR OLD_BIN_DIR [RUNS] [PAUSE_S] [--load]
#
# CAIRN_MODEL_DIR must name the model folder (scripts/test.sh fetches it into target/).
set -euo pipefail
new=$1 old=$2 runs=${3:-10} pause=${4:-1} load=${5:-}
: "${CAIRN_MODEL_DIR:?set CAIRN_MODEL_DIR to the model folder}"
out=$(mktemp)
busy=()
if [ "$load" = --load ]; then
    for _ in 1 2; do (while :; do :; done) & busy+=($!); done
fi
one() {
    local bin=$1 home
    home=$(mktemp -d)
    CAIRN_HOME=$home "$bin/cairn" up >/dev/null
    sleep "$pause"
    local start end said
    start=$(date +%s%N)
    said=$(printf '%s' '{"session_id":"s1","cwd":"/","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"git push --force origin main"},"tool_response":{"stdout":"","stderr":""}}' | CAIRN_HOME=$home "$bin/cairn" hook)
    end=$(date +%s%N)
    CAIRN_HOME=$home "$bin/cairn" down >/dev/null
    rm -rf "$home"
    echo "$(( (end - start) / 1000000 )) $([ -n "$said" ] && echo said || echo silent)"
}
for _ in $(seq "$runs"); do
    echo "new $(one "$new")" >>"$out"
    echo "old $(one "$old")" >>"$out"
done
for pid in "${busy[@]}"; do kill "$pid"; done
for build in new old; do
    grep "^$build " "$out" | awk '{print $2}' | sort -n | awk -v b="$build" '{a[NR]=$1} END {printf "%s: median %d ms, least %d, most %d", b, a[int((NR+1)/2)], a[1], a[NR]}'
    echo ", $(grep "^$build " "$out" | grep -c silent || true) of $runs silent"
done
rm -f "$out"
