#!/usr/bin/env bash
# Fuzz Glimpse with cargo-fuzz (nightly): `bash scripts/fuzz.sh [TARGET|all] [SECONDS]`.
# Runs one target (or each in turn) for SECONDS (default 600), then minimises its corpus with
# `cargo fuzz cmin` so fuzz/corpus stays small. Crashes land in fuzz/artifacts/TARGET/; see
# fuzz/README.md for what to do with them. Installs nightly and cargo-fuzz when missing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

TARGET="${1:-all}"
SECONDS_EACH="${2:-600}"
# Sanitizer builds differ from normal ones: keep them out of the shared target dir.
export CARGO_TARGET_DIR="${GLIMPSE_FUZZ_TARGET_DIR:-$HOME/.cache/glimpse/fuzz-target}"
# Fuzzing takes every core it is given; stay out of the way of builds and the desktop.
NICE=(nice -n "${FUZZ_NICE:-19}")

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    log "installing cargo-fuzz"
    "${NICE[@]}" cargo install cargo-fuzz --locked
fi

# Inputs larger than a target needs only slow it down.
max_len() {
    case "$1" in
        checkpoint | subword) echo 16384 ;;
        *) echo 4096 ;;
    esac
}

if [ "$TARGET" = all ]; then
    mapfile -t TARGETS < <(cargo +nightly fuzz list)
else
    TARGETS=("$TARGET")
fi

for t in "${TARGETS[@]}"; do
    log "fuzzing $t for ${SECONDS_EACH}s"
    # -timeout: one input running 10 s is a hang worth reporting.
    "${NICE[@]}" cargo +nightly fuzz run "$t" -- \
        -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$t")" -timeout=10 -print_final_stats=1
    log "minimising fuzz/corpus/$t"
    # Set-cover merge on edges alone (no hit counts) keeps every covered edge in the fewest files.
    "${NICE[@]}" cargo +nightly fuzz cmin "$t" -- -max_len="$(max_len "$t")" -set_cover_merge=1 -use_counters=0
    du -sh --apparent-size "fuzz/corpus/$t"
done
