#!/usr/bin/env bash
# Sourced by the scripts that fetch a test tool from npm: `npm_fetch DIR SPEC` installs SPEC
# into the empty folder DIR, once more after a failure (a registry hiccup), and when it still
# fails says how much disk is free: npm reports a full disk only as a warning (TAR_ENTRY_ERROR
# ENOSPC), which --loglevel=error hides.
npm_fetch() {
  local dir="$1" spec="$2" try
  for try in 1 2; do
    rm -rf "$dir"
    mkdir -p "$dir"
    if npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=warn "$spec" >&2; then
      return 0
    fi
    echo "npm install $spec failed (attempt $try of 2)" >&2
  done
  echo "disk free where it was installing:" >&2
  df -h "$dir" >&2 || true
  return 1
}
