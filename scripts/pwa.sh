#!/usr/bin/env bash
# Write the service worker for a web build: DIR/sw.js from web/pwa/sw.js, with the list of the
# build's files to precache and a version = hash of their contents (a new build -> a new worker
# -> the open pages reload onto it).
#   bash scripts/pwa.sh [DIR]
# DIR defaults to $TRUNK_STAGING_DIR (Trunk runs this as a post_build hook, see Trunk.toml),
# else dist/. Run it again after changing a built dist/ by hand.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIR="${1:-${TRUNK_STAGING_DIR:-$REPO_ROOT/dist}}"
TEMPLATE="$REPO_ROOT/web/pwa/sw.js"
[ -f "$DIR/index.html" ] || die "pwa.sh: $DIR/index.html missing (build first)"
[ -f "$TEMPLATE" ] || die "pwa.sh: $TEMPLATE missing"

cd "$DIR"
# Every file of the build except the worker itself, source maps and the real checkpoints
# (models/hf/, hundreds of MB: cached when first downloaded, not on install), relative to DIR.
# Also never a static host's own files (scripts/package.sh: `_headers`, `.htaccess`): hosts do
# not serve them (Apache answers 403), and one failed request fails the worker's install.
mapfile -t FILES < <(find . -type f ! -name sw.js ! -name '*.map' ! -path './models/hf/*' \
    ! -name '.*' ! -name '_headers' ! -name '_redirects' -printf '%P\n' | LC_ALL=C sort)
[ "${#FILES[@]}" -gt 0 ] || die "pwa.sh: no files in $DIR"
for f in "${FILES[@]}"; do
    case "$f" in
        *[!A-Za-z0-9._/-]*) die "pwa.sh: unexpected character in file name: $f" ;;
    esac
done

# Version: hash over (name, content hash) of every file; 16 hex digits.
VERSION=$(for f in "${FILES[@]}"; do printf '%s  %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$f"; done |
    sha256sum | cut -c1-16)
# JSON array of relative URLs, one per line.
LIST="["
for f in "${FILES[@]}"; do LIST+=$'\n'"  \"$f\","; done
LIST="${LIST%,}"$'\n'"]"

TMP="sw.js.tmp.$$"
awk -v version="$VERSION" -v list="$LIST" '
    { gsub(/__GLIMPSE_VERSION__/, version); if (index($0, "__GLIMPSE_PRECACHE__")) { sub(/__GLIMPSE_PRECACHE__/, list) } print }
' "$TEMPLATE" >"$TMP"
grep -q "__GLIMPSE_" "$TMP" && { rm -f "$TMP"; die "pwa.sh: placeholders left in sw.js"; }
mv "$TMP" sw.js
log "pwa.sh: wrote $DIR/sw.js (version $VERSION, ${#FILES[@]} files)"
