#!/usr/bin/env bash
# Build Glimpse for the browser and serve it at http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops).
# First run installs the web tools (trunk, wasm-bindgen, wasm-opt; ~15 min on 2 cores) and the
# first release build takes a few minutes; later runs rebuild in about a minute.
# Environment: PORT (8080), ADDRESS (127.0.0.1), APP_DIR (crate to serve; default the repo),
# CARGO_TARGET_DIR (default ~/.cache/glimpse/target). Extra arguments go to `trunk serve`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${PORT:-8080}"
ADDRESS="${ADDRESS:-127.0.0.1}"
# The crate to build (the repo by default; another checkout for experiments).
APP_DIR="${APP_DIR:-$REPO_ROOT}"

bash "$REPO_ROOT/scripts/setup.sh" web

cd "$APP_DIR"
log "serving on http://$ADDRESS:$PORT/ (release build; Trunk rebuilds on file changes)"
# Trunk.toml sets offline = true, so Trunk and cargo never touch the network here.
exec trunk serve --release --skip-version-check --offline --address "$ADDRESS" --port "$PORT" "$@"
