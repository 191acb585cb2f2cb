#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: builds the binaries that the end-to-end tests
# drive, then every unit and end-to-end test.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --workspace --bins --locked

# The semantic engine's tests use the real model: fetch it once (cairn setup checks every sha256
# and is a no-op when the files are there) into a folder every test shares through CAIRN_MODEL_DIR.
# A copy that scripts/install.sh already fetched (the default models folder) is reused when its
# sha256 sums are right, rather than downloaded again.
export CAIRN_MODEL_DIR="${CAIRN_MODEL_DIR:-$PWD/target/cairn-models}"
installed_models="${XDG_DATA_HOME:-${HOME:-/nonexistent}/.local/share}/cairn/models"
setup_home="$(mktemp -d)"
CAIRN_HOME="$setup_home" target/debug/cairn setup --from "$installed_models"
rm -rf "$setup_home"
# The end-to-end tests also run the real Claude Code CLI (print mode, against a stand-in of the
# Messages API on loopback): fetched once from npm into the build folder, at a pinned version,
# and checked. It is a tool for the tests only; nothing of it is committed or shipped.
export CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.197}"
scripts/claude-code.sh
export CAIRN_CLAUDE="$PWD/target/claude-code/$CLAUDE_CODE_VERSION/node_modules/.bin/claude"
# And the official MCP Inspector, whose CLI is the real MCP client `cairn mcp` is tested with.
export MCP_INSPECTOR_VERSION="${MCP_INSPECTOR_VERSION:-2.12.0}"
scripts/mcp-inspector.sh
export CAIRN_MCP_INSPECTOR="$PWD/target/mcp-inspector/$MCP_INSPECTOR_VERSION/node_modules/.bin/mcp-inspector"
# And a real browser for the dashboard: Debian's chromium (installed with apt when absent) driven
# by puppeteer-core; the test saves a screenshot of each page under target/dashboard-screenshots.
export PUPPETEER_VERSION="${PUPPETEER_VERSION:-25.16.0}"
scripts/browser.sh
export CAIRN_PUPPETEER="$PWD/target/browser/$PUPPETEER_VERSION/node_modules/puppeteer-core"
CAIRN_CHROMIUM="$(command -v chromium)"
export CAIRN_CHROMIUM

if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
