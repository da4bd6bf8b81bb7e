#!/usr/bin/env bash
# Regenerate the PWA icons in web/pwa/ with ImageMagick: a 5×5 attention heatmap in viridis
# colours (bright diagonal, as a causal-ish attention pattern) on Glimpse's dark panel colour.
#   icon-192.png, icon-512.png: rounded dark square, grid filling most of it ("any" purpose).
#   icon-maskable-512.png: full-bleed background, grid inside the central safe zone ("maskable").
# Usage: bash scripts/make_icons.sh   (needs `convert`, Debian package imagemagick)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="$REPO_ROOT/web/pwa"
mkdir -p "$OUT"
command -v convert >/dev/null || die "convert (imagemagick) not found"

BG="#1b1b1b"
# Viridis, dark to bright.
VIRIDIS=("#440154" "#3b528b" "#21918c" "#5ec962" "#fde725")
# Attention weights as viridis indices, one row per query (rows sum-ish to 1: diagonal bright).
GRID=(
  "4 0 0 0 0"
  "2 3 0 0 0"
  "1 1 4 0 0"
  "0 1 2 3 0"
  "0 0 1 1 4"
)

# draw_icon SIZE FILE MARGIN_FRACTION ROUNDED(0|1)
draw_icon() {
  local size=$1 file=$2 margin=$3 rounded=$4
  local n=5
  local inner gap cell x0 draws=() r c x y v
  inner=$(awk -v s="$size" -v m="$margin" 'BEGIN { printf "%d", s * (1 - 2 * m) }')
  gap=$(awk -v i="$inner" -v n="$n" 'BEGIN { printf "%d", i / (n * 12) }')
  cell=$(awk -v i="$inner" -v n="$n" -v g="$gap" 'BEGIN { printf "%d", (i - (n - 1) * g) / n }')
  x0=$(( (size - (n * cell + (n - 1) * gap)) / 2 ))
  local radius=$(( size / 6 ))
  if [ "$rounded" = 1 ]; then
    draws+=(-fill "$BG" -draw "roundrectangle 0,0 $((size - 1)),$((size - 1)) $radius,$radius")
  else
    draws+=(-fill "$BG" -draw "rectangle 0,0 $((size - 1)),$((size - 1))")
  fi
  for r in $(seq 0 $((n - 1))); do
    read -r -a row <<<"${GRID[$r]}"
    for c in $(seq 0 $((n - 1))); do
      v=${row[$c]}
      x=$(( x0 + c * (cell + gap) ))
      y=$(( x0 + r * (cell + gap) ))
      draws+=(-fill "${VIRIDIS[$v]}" -draw "rectangle $x,$y $((x + cell - 1)),$((y + cell - 1))")
    done
  done
  convert -size "${size}x${size}" xc:none "${draws[@]}" \
    -strip -define png:exclude-chunks=date,time "PNG32:$file"
  log "wrote $file ($(stat -c %s "$file") bytes)"
}

draw_icon 192 "$OUT/icon-192.png" 0.14 1
draw_icon 512 "$OUT/icon-512.png" 0.14 1
# Maskable: the safe zone is the central circle of radius 40%; a grid within 56% of the side
# (margin 22%) has its corners at ~39.6% from the centre.
draw_icon 512 "$OUT/icon-maskable-512.png" 0.22 0
