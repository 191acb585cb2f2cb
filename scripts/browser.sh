#!/usr/bin/env bash
# Gets what the dashboard's browser test needs, once: headless Chromium (Debian's `chromium`
# package, installed with apt when it is absent) and puppeteer-core (npm, pinned, into
# target/browser/$PUPPETEER_VERSION; it drives the browser over the DevTools protocol and
# downloads no browser of its own). Run by scripts/test.sh; a tool for the tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-fetch.sh
source scripts/npm-fetch.sh

version="${PUPPETEER_VERSION:-25.16.0}"
dir="$PWD/target/browser/$version"

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium for the dashboard's browser test" >&2
  if [ "$(id -u)" = 0 ]; then
    apt() { apt-get "$@"; }
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    apt() { sudo apt-get "$@"; }
  else
    echo "chromium is not installed and apt-get needs root: install Debian's chromium package" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt install -y --no-install-recommends chromium >&2 || { apt update >&2 && apt install -y --no-install-recommends chromium >&2; }
fi
command -v chromium >/dev/null 2>&1 || { echo "chromium did not install" >&2; exit 1; }

installed() {
  node -e 'const p=require(process.argv[1]); process.exit(p.version===process.argv[2] ? 0 : 1)' "$dir/node_modules/puppeteer-core/package.json" "$version" 2>/dev/null
}
if ! installed; then
  echo "fetching puppeteer-core $version for the dashboard's browser test" >&2
  npm_fetch "$dir" "puppeteer-core@$version"
fi
installed || { echo "puppeteer-core $version did not install as expected in $dir" >&2; exit 1; }
