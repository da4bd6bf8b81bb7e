#!/usr/bin/env bash
# The threaded browser build: the same app compiled with wasm threads (shared memory and
# atomics), written to DIR/threads/ beside Trunk's plain build, and index.html taught to pick
# it. Where the page is cross-origin isolated (COOP + COEP headers, or the service worker adding
# them) it loads the threaded build and spreads the forward pass over a pool of Web Workers on
# one shared memory (src/app/threads.rs); elsewhere it loads the plain build, as before.
#
# Why nightly: std must be rebuilt with atomics (`-Z build-std`), which stable Rust cannot do.
# The toolchain is pinned in scripts/lib.sh (THREADS_TOOLCHAIN); scripts/setup.sh web installs
# it with rust-src. Only this build uses it; everything else builds on stable.
#
#   bash scripts/web_threads.sh [DIR]      DIR: $TRUNK_STAGING_DIR (post-build hook), else dist/
# GLIMPSE_NO_THREADS=1 skips it (the page then always loads the plain build).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIR="${1:-${TRUNK_STAGING_DIR:-$REPO_ROOT/dist}}"
[ -f "$DIR/index.html" ] || die "web_threads.sh: $DIR/index.html missing (build first)"
if [ "${GLIMPSE_NO_THREADS:-0}" = 1 ]; then
    log "web_threads.sh: skipped (GLIMPSE_NO_THREADS=1): the page loads the one-thread build"
    exit 0
fi
APP_DIR="${TRUNK_SOURCE_DIR:-$REPO_ROOT}"
# Its own target dir: other flags for every crate, so it never evicts the plain build's.
TARGET="${GLIMPSE_THREADS_TARGET:-$HOME/.cache/glimpse/target-threads}"
PROFILE=web
[ "${TRUNK_PROFILE:-release}" = debug ] && PROFILE=dev

# Shared memory imported from the page (the workers get the same one), at most 4 GiB, and the
# thread-local storage symbols wasm-bindgen's thread start-up needs.
FLAGS="-C target-feature=+simd128,+atomics,+bulk-memory,+mutable-globals"
for arg in --shared-memory --import-memory --max-memory=4294967296 \
    --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base; do
    FLAGS+=" -C link-arg=$arg"
done

log "web_threads.sh: building the threaded wasm ($THREADS_TOOLCHAIN, profile $PROFILE)"
(cd "$APP_DIR" && RUSTFLAGS="$FLAGS" CARGO_TARGET_DIR="$TARGET" \
    cargo "+$THREADS_TOOLCHAIN" build --profile "$PROFILE" --target wasm32-unknown-unknown \
    --bin glimpse -Z build-std=panic_abort,std)
OUT_DIR_NAME=$PROFILE
[ "$PROFILE" = dev ] && OUT_DIR_NAME=debug
WASM="$TARGET/wasm32-unknown-unknown/$OUT_DIR_NAME/glimpse.wasm"

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
wasm-bindgen --target web --out-dir "$STAGE" --out-name glimpse "$WASM"
if [ "$PROFILE" = web ]; then
    wasm-opt -Os "$STAGE/glimpse_bg.wasm" -o "$STAGE/opt.wasm"
    mv "$STAGE/opt.wasm" "$STAGE/glimpse_bg.wasm"
fi
# Names that change with the contents, as Trunk's do (hosts cache them for a year).
HASH=$(cat "$STAGE/glimpse.js" "$STAGE/glimpse_bg.wasm" | sha256sum | cut -c1-16)
rm -rf "$DIR/threads"
mkdir -p "$DIR/threads"
sed "s/glimpse_bg\.wasm/glimpse-threads-${HASH}_bg.wasm/g" "$STAGE/glimpse.js" \
    >"$DIR/threads/glimpse-threads-$HASH.js"
cp "$STAGE/glimpse_bg.wasm" "$DIR/threads/glimpse-threads-${HASH}_bg.wasm"

# index.html: Trunk's start-up line loads the plain wasm; make it choose. The plain build's
# preload goes, so an isolated page does not download both.
node "$REPO_ROOT/web/pick_build.mjs" "$DIR/index.html" "threads/glimpse-threads-$HASH.js" \
    "threads/glimpse-threads-${HASH}_bg.wasm" "$(stat -c %s "$DIR/threads/glimpse-threads-${HASH}_bg.wasm")"
log "web_threads.sh: wrote $DIR/threads/ ($(du -sh "$DIR/threads" | cut -f1))"
