#!/usr/bin/env bash
# Installs whatever is missing to build and test Glimpse. Idempotent: every step checks first.
#   scripts/setup.sh web   Rust wasm target, trunk, wasm-bindgen-cli, wasm-opt, crates (cargo fetch)
#   scripts/setup.sh test  the above + Debian packages for the browser/desktop tests + web/ npm deps
#   scripts/setup.sh all   same as test
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODE="${1:-all}"
case "$MODE" in
    web | test | all) ;;
    *) die "usage: scripts/setup.sh [web|test|all]" ;;
esac

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup (https://rustup.rs)"
command -v rustup >/dev/null 2>&1 || die "rustup not found: the wasm32 target is installed through rustup"
# Node >= 20 (playwright-core 1.65's minimum; Debian 12's nodejs is 18, so it is not installed here).
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
[ "$NODE_MAJOR" -ge 20 ] || die "Node.js >= 20 with npm is required (found: $(node -v 2>/dev/null || echo none))"
command -v npm >/dev/null 2>&1 || die "npm not found (it comes with Node.js)"

setup_rust_components() {
    if ! cargo fmt --version >/dev/null 2>&1; then
        log "installing rustfmt"
        rustup component add rustfmt
    fi
    if ! cargo clippy --version >/dev/null 2>&1; then
        log "installing clippy"
        rustup component add clippy
    fi
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        log "adding target wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
    # The threaded browser build (scripts/web_threads.sh) rebuilds std with atomics: nightly
    # with its sources, pinned in lib.sh, and clippy for that configuration (test.sh). A minimal
    # profile: about 90 MB, a few seconds.
    if ! rustup run "$THREADS_TOOLCHAIN" rustc --version >/dev/null 2>&1 ||
        [ ! -d "$(rustup run "$THREADS_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library" ] ||
        ! rustup run "$THREADS_TOOLCHAIN" cargo-clippy --version >/dev/null 2>&1; then
        log "installing $THREADS_TOOLCHAIN with rust-src and clippy (the threaded browser build)"
        rustup toolchain install "$THREADS_TOOLCHAIN" --profile minimal -c rust-src -c clippy
    fi
}

setup_wasm_bindgen() {
    if tool_version_is wasm-bindgen "wasm-bindgen $WASM_BINDGEN_VERSION"; then
        return
    fi
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (~4 min on 2 cores)"
    # No --locked: its lock file pins a crate version the registry no longer serves.
    cargo install --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
}

setup_trunk() {
    if tool_version_is trunk "trunk $TRUNK_VERSION"; then
        return
    fi
    log "installing trunk $TRUNK_VERSION (~11 min on 2 cores)"
    # Trunk 0.22 needs a newer rustc.
    cargo install --force --locked trunk --version "$TRUNK_VERSION"
}

setup_wasm_opt() {
    local want="version ${BINARYEN_VERSION%%.*}"
    if "$GLIMPSE_TOOLS/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -qF "$want"; then
        return
    fi
    log "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) under $GLIMPSE_TOOLS"
    mkdir -p "$GLIMPSE_TOOLS"
    npm install --prefix "$GLIMPSE_TOOLS" --no-audit --no-fund --loglevel=error \
        "binaryen@$BINARYEN_VERSION"
    "$GLIMPSE_TOOLS/node_modules/.bin/wasm-opt" --version | grep -qF "$want" ||
        die "wasm-opt from npm binaryen is not $want"
}

setup_apt() {
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        return
    fi
    log "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

setup_web_node_modules() {
    local dir="$REPO_ROOT/web"
    # node_modules/.package-lock.json is npm's record of what it installed; newer than the
    # committed lock file and every package present means there is nothing to do.
    if [ -f "$dir/node_modules/.package-lock.json" ] &&
        [ -d "$dir/node_modules/playwright-core" ] && [ -d "$dir/node_modules/pngjs" ] &&
        [ -d "$dir/node_modules/axe-core" ] &&
        [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
        return
    fi
    log "installing web/ test dependencies (npm ci: playwright-core, pngjs, axe-core; no browser download)"
    (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}

setup_crates() {
    # Trunk runs cargo --offline (Trunk.toml), so every crate must be in the cache first.
    log "cargo fetch"
    (cd "$REPO_ROOT" && cargo fetch --quiet)
    # And the crates std itself needs for the threaded build's -Z build-std.
    local std_dir
    std_dir="$(rustup run "$THREADS_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library"
    (cd "$std_dir" && cargo "+$THREADS_TOOLCHAIN" fetch --quiet)
}

# System packages first: they are quick, and the tests need them.
if [ "$MODE" = test ] || [ "$MODE" = all ]; then
    setup_apt
fi
setup_rust_components
setup_wasm_opt
if [ "$MODE" = test ] || [ "$MODE" = all ]; then
    setup_web_node_modules
fi
setup_wasm_bindgen
setup_trunk
setup_crates

log "setup ($MODE) done: $(trunk --version), $(wasm-bindgen --version), $(wasm-opt --version | head -1)"
