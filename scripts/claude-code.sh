#!/usr/bin/env bash
# Fetches the Claude Code CLI that the end-to-end tests drive, once, into
# target/claude-code/$CLAUDE_CODE_VERSION, with npm, and checks it: the packages' sha512 (as npm
# recorded them) against the ones pinned here, and the version the binary reports. Run by
# scripts/test.sh; to try another version, set CLAUDE_CODE_VERSION (its hashes are then only
# reported, since nothing pins them).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-fetch.sh
source scripts/npm-fetch.sh

version="${CLAUDE_CODE_VERSION:-2.1.197}"
dir="$PWD/target/claude-code/$version"
bin="$dir/node_modules/.bin/claude"

# Published integrity of the pinned version: the launcher package and the Linux x86-64 binary.
pinned_version="2.1.197"
pinned_main="sha512-EqrwbRcI7M5y8jQlayIfTMmbZJ2OQaLOc7KwIWKdryQCdKWUEFr+C9rMovZUuj2Asndi7aqLujEzRtr471gncg=="
pinned_linux_x64="sha512-rIlKmrY0QMyHgPRX/MYWNj039vbypICvI9jVe3rs9Xy2RnNklySjyPxqh62QadznzoftEO23uYQ1tFePcQ//bg=="

reports_version() {
  [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null | awk '{print $1}')" = "$version" ]
}

if ! reports_version; then
  echo "fetching the Claude Code CLI $version for the end-to-end tests" >&2
  npm_fetch "$dir" "@anthropic-ai/claude-code@$version"
fi

# What npm installed, by its own record.
integrity() {
  node -e 'const l=require(process.argv[1]); const p=l.packages["node_modules/"+process.argv[2]]; process.stdout.write(p ? p.version+" "+p.integrity : "")' \
    "$dir/node_modules/.package-lock.json" "$1"
}
main="$(integrity @anthropic-ai/claude-code)"
if [ "$version" = "$pinned_version" ]; then
  [ "$main" = "$version $pinned_main" ] || { echo "claude-code $version: unexpected package ($main)" >&2; exit 1; }
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    native="$(integrity @anthropic-ai/claude-code-linux-x64)"
    [ "$native" = "$version $pinned_linux_x64" ] || { echo "claude-code-linux-x64 $version: unexpected package ($native)" >&2; exit 1; }
  fi
else
  echo "claude-code $version is not pinned here: installed $main" >&2
fi
reports_version || { echo "$bin does not report version $version" >&2; exit 1; }
