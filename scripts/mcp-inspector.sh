#!/usr/bin/env bash
# Fetches the official MCP Inspector, whose CLI mode the end-to-end tests use as a real MCP
# client of `cairn mcp`, once, into target/mcp-inspector/$MCP_INSPECTOR_VERSION, with npm, and
# checks the version npm installed. Run by scripts/test.sh; a tool for the tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-fetch.sh
source scripts/npm-fetch.sh

version="${MCP_INSPECTOR_VERSION:-2.12.0}"
dir="$PWD/target/mcp-inspector/$version"
bin="$dir/node_modules/.bin/mcp-inspector"

installed() {
  [ -x "$bin" ] && node -e 'const l=require(process.argv[1]); const p=l.packages["node_modules/@modelcontextprotocol/inspector"]; process.exit(p && p.version===process.argv[2] ? 0 : 1)' \
    "$dir/node_modules/.package-lock.json" "$version" 2>/dev/null
}

if ! installed; then
  echo "fetching the MCP Inspector $version for the end-to-end tests" >&2
  npm_fetch "$dir" "@modelcontextprotocol/inspector@$version"
fi
installed || { echo "the MCP Inspector $version did not install as expected in $dir" >&2; exit 1; }
