#!/usr/bin/env bash
# A copy of the built site whose threaded wasm keeps its function names, for profiling the
# page (`PROFILE=1 DIST_DIR=OUT node web/bench_longtasks.mjs`): the same compiled code as the
# threaded build in dist/ (scripts/web_threads.sh), run through wasm-bindgen and wasm-opt
# again with the names section kept (`-g`), under the file names the page already loads.
#
#   bash scripts/web_names.sh [OUT]     OUT: /tmp/glimpse-dist-names by default
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="${1:-/tmp/glimpse-dist-names}"
WASM="${GLIMPSE_THREADS_TARGET:-$HOME/.cache/glimpse/target-threads}/wasm32-unknown-unknown/web/glimpse.wasm"
[ -f "$REPO_ROOT/dist/index.html" ] && [ -f "$WASM" ] || die "web_names.sh: build first (trunk build --release)"
rm -rf "$OUT"
cp -r "$REPO_ROOT/dist" "$OUT"
JS="$(ls "$OUT"/threads/glimpse-threads-*.js)"
BG="$(ls "$OUT"/threads/glimpse-threads-*_bg.wasm)"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
wasm-bindgen --target web --out-dir "$STAGE" --out-name glimpse "$WASM"
wasm-opt -Os -g "$STAGE/glimpse_bg.wasm" -o "$BG"
sed "s/glimpse_bg\.wasm/$(basename "$BG")/g" "$STAGE/glimpse.js" >"$JS"
log "web_names.sh: wrote $OUT (threaded wasm with names: $(du -h "$BG" | cut -f1))"
