# Shared helpers for Glimpse's scripts. Source it: `. "$(dirname "$0")/lib.sh"`.
# Sets REPO_ROOT, CARGO_TARGET_DIR, GLIMPSE_TOOLS and PATH; defines the pinned tool versions.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT

# Pinned versions (see /work/shared/TOOLCHAIN.md; keep Cargo.toml's wasm-bindgen pin equal).
TRUNK_VERSION="0.21.14"
WASM_BINDGEN_VERSION="0.2.130"
BINARYEN_VERSION="132.0.0" # npm package; provides wasm-opt 132. Debian's binaryen 108 breaks the build.
# Nightly for the threaded browser build only (scripts/web_threads.sh: std rebuilt with atomics).
THREADS_TOOLCHAIN="nightly-2026-05-20"
APT_PACKAGES=(chromium chromium-driver xvfb imagemagick xdotool mesa-vulkan-drivers libgl1-mesa-dri libegl1)

# One cargo target dir for every script, outside the clone (CI clones afresh; builds stay warm).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/glimpse/target}"
# Local prefix for tools installed from npm (wasm-opt).
export GLIMPSE_TOOLS="${GLIMPSE_TOOLS:-$HOME/.cache/glimpse/tools}"

path_prepend() {
    case ":$PATH:" in
        *":$1:"*) ;;
        *) PATH="$1:$PATH" ;;
    esac
}
path_prepend "$HOME/.cargo/bin"
path_prepend "$GLIMPSE_TOOLS/node_modules/.bin"
export PATH

log() { printf '[glimpse %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[glimpse] ERROR: %s\n' "$*" >&2; exit 1; }

# Run as root, or through sudo when we are not (non-interactive: CI has no stdin).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -n "$@"
    else
        die "need root for: $*"
    fi
}

# `tool_version_is CMD WANT` — true when CMD exists and `CMD --version` mentions WANT.
tool_version_is() {
    command -v "$1" >/dev/null 2>&1 || return 1
    "$1" --version 2>/dev/null | grep -qF -- "$2"
}

# Elapsed-time formatting for stage summaries.
fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
