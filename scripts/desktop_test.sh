#!/usr/bin/env bash
# Desktop test: runs the native release binary under Xvfb (glow on Mesa llvmpipe), waits for the
# app's probe file (GLIMPSE_PROBE), screenshots the window and checks the heatmap pixels.
#
# Environment: GLIMPSE_BIN (default $CARGO_TARGET_DIR/release/glimpse), OUT_DIR (default
# web/out), PROBE_TIMEOUT (seconds, default 60). Writes OUT_DIR/desktop.png,
# desktop-probe.json, desktop-app.log.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BIN="${GLIMPSE_BIN:-$CARGO_TARGET_DIR/release/glimpse}"
OUT="${OUT_DIR:-$REPO_ROOT/web/out}"
PROBE_TIMEOUT="${PROBE_TIMEOUT:-60}"
PROBE="$OUT/desktop-probe.json"
SHOT="$OUT/desktop.png"
APPLOG="$OUT/desktop-app.log"

[ -x "$BIN" ] || die "desktop: no binary at $BIN (cargo build --release first)"
for tool in Xvfb xdotool import node; do
    command -v "$tool" >/dev/null 2>&1 || die "desktop: $tool not found (scripts/setup.sh test)"
done

mkdir -p "$OUT"
rm -f "$PROBE" "$PROBE.tmp" "$SHOT" "$APPLOG"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/glimpse-desktop.XXXXXX")"
XVFB_PID=""
APP_PID=""
cleanup() {
    if [ -n "$APP_PID" ] && kill -0 "$APP_PID" 2>/dev/null; then
        kill "$APP_PID" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$APP_PID" 2>/dev/null || true
    fi
    if [ -n "$XVFB_PID" ] && kill -0 "$XVFB_PID" 2>/dev/null; then
        kill "$XVFB_PID" 2>/dev/null || true
        wait "$XVFB_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    echo "desktop: FAIL $*" >&2
    if [ -s "$APPLOG" ]; then
        echo "desktop: last lines of $APPLOG:" >&2
        tail -n 30 "$APPLOG" | sed 's/^/    /' >&2
    fi
    echo "desktop: 0 passed, 1 failed"
    exit 1
}

# Xvfb picks a free display itself (-displayfd) and writes its number to a file when ready.
# The screen is larger than the app's 1280x800 window (placed at 0,0: there is no window manager)
# so that the pointer can be parked outside the window: a pointer over the heatmap would draw a
# hover highlight and a tooltip over the cells.
SCREEN_W=1600
SCREEN_H=1000
Xvfb -displayfd 3 -screen 0 "${SCREEN_W}x${SCREEN_H}x24" -dpi 96 -nolisten tcp 3>"$WORK/display" 2>"$WORK/xvfb.log" &
XVFB_PID=$!
for _ in $(seq 1 100); do
    [ -s "$WORK/display" ] && break
    kill -0 "$XVFB_PID" 2>/dev/null || { cat "$WORK/xvfb.log" >&2; fail "Xvfb exited"; }
    sleep 0.1
done
[ -s "$WORK/display" ] || fail "Xvfb did not start within 10 s"
DISPLAY=":$(tr -d '[:space:]' <"$WORK/display")"
export DISPLAY
unset WAYLAND_DISPLAY
log "desktop: Xvfb on $DISPLAY; starting $BIN"

# glow on llvmpipe; X11 (no Wayland here); a home for eframe's persistence that we throw away.
START=$(date +%s)
# GLIMPSE_OPEN: a shared link to open (`glimpse --open`); GLIMPSE_EXPECT: text the probe must
# then contain (e.g. `"model":"reverse"`), proving the link reproduced the view natively.
# GLIMPSE_MODEL: a checkpoint to open (`glimpse --model PATH`).
OPEN_ARGS=()
[ -n "${GLIMPSE_MODEL:-}" ] && OPEN_ARGS+=(--model "$GLIMPSE_MODEL")
[ -n "${GLIMPSE_OPEN:-}" ] && OPEN_ARGS+=(--open "$GLIMPSE_OPEN")
env LIBGL_ALWAYS_SOFTWARE=1 GLIMPSE_PROBE="$PROBE" RUST_BACKTRACE=1 \
    XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config" XDG_CACHE_HOME="$WORK/cache" \
    "$BIN" "${OPEN_ARGS[@]}" >"$APPLOG" 2>&1 &
APP_PID=$!

while [ ! -s "$PROBE" ]; do
    kill -0 "$APP_PID" 2>/dev/null || fail "the app exited before writing $PROBE"
    [ $(($(date +%s) - START)) -lt "$PROBE_TIMEOUT" ] || fail "no probe file $PROBE after ${PROBE_TIMEOUT} s"
    sleep 0.25
done
log "desktop: probe written after $(($(date +%s) - START)) s"
if [ -n "${GLIMPSE_EXPECT:-}" ]; then
    grep -qF "$GLIMPSE_EXPECT" "$PROBE" || fail "the opened link did not give $GLIMPSE_EXPECT: $(head -c 300 "$PROBE")"
    log "desktop: the link opened the expected view ($GLIMPSE_EXPECT)"
fi

# The app's window (no window manager: no decorations, so the window is the client area).
WIN=""
for _ in $(seq 1 40); do
    WIN="$(xdotool search --onlyvisible --name '^Glimpse' 2>/dev/null | tail -n 1 || true)"
    [ -n "$WIN" ] && break
    sleep 0.25
done
[ -n "$WIN" ] || fail "no visible window named Glimpse"
log "desktop: window $WIN: $(xdotool getwindowgeometry "$WIN" | tr '\n' ' ')"

# Park the pointer outside the window (Xvfb starts it at the screen centre, over the heatmap).
# This only takes effect once a client window exists, hence here and not before the app starts.
xdotool mousemove $((SCREEN_W - 1)) $((SCREEN_H - 1)) || fail "xdotool could not move the pointer"
log "desktop: pointer at $(xdotool getmouselocation 2>/dev/null | cut -d' ' -f1-2)"

sleep 1 # let the pointer-left repaint and the frames after the probe reach the screen
kill -0 "$APP_PID" 2>/dev/null || fail "the app died after writing the probe"
import -window "$WIN" "$SHOT" || fail "screenshot with import failed"

if grep -q 'panicked' "$APPLOG"; then
    fail "the app panicked (see $APPLOG)"
fi

node "$REPO_ROOT/web/check_shot.mjs" "$SHOT" "$PROBE" 0 0 || fail "the screenshot $SHOT does not match $PROBE"

# GLIMPSE_CLICK_GPU=1: click the Compute section's GPU switch in the real window (Mesa's
# lavapipe here) and check the view then shows the GPU's trace, equal to the CPU's.
if [ "${GLIMPSE_CLICK_GPU:-}" = 1 ]; then
    COMPUTE="$PROBE.compute.json"
    CONTROLS="$PROBE.controls.json"
    for _ in $(seq 1 120); do
        grep -qE '"(Ready|Unavailable)"' "$COMPUTE" 2>/dev/null && break
        sleep 0.25
    done
    grep -q '"Ready"' "$COMPUTE" 2>/dev/null || fail "the desktop app found no GPU adapter: $(cat "$COMPUTE" 2>/dev/null)"
    log "desktop: $(node -e 'const c=require(process.argv[1]); console.log(JSON.stringify(c.status))' "$COMPUTE")"
    CENTRE="$(node -e '
        const c = require(process.argv[1])["compute:GPU"];
        const ppp = require(process.argv[2]).pixels_per_point || 1;
        if (!c) process.exit(1);
        console.log(Math.round((c[0] + c[2]) / 2 * ppp), Math.round((c[1] + c[3]) / 2 * ppp));
    ' "$CONTROLS" "$PROBE")" || fail "no compute:GPU control in $CONTROLS"
    # shellcheck disable=SC2086
    xdotool mousemove --window "$WIN" $CENTRE click 1 || fail "xdotool could not click the GPU switch"
    for _ in $(seq 1 80); do
        grep -q '"used":"Gpu"' "$COMPUTE" && break
        sleep 0.25
    done
    grep -q '"used":"Gpu"' "$COMPUTE" || fail "after the click the view is not on the GPU: $(cat "$COMPUTE")"
    node -e '
        const t = require(process.argv[1]).last;
        if (!(t.max_difference <= 1e-4)) { console.error("GPU and CPU differ by", t.max_difference); process.exit(1); }
        console.log(`desktop: on the GPU: CPU ${t.cpu_ms.toFixed(2)} ms, GPU ${t.gpu_ms.toFixed(2)} ms, largest difference ${t.max_difference}`);
    ' "$COMPUTE" || fail "the GPU trace does not match the CPU's"
    xdotool mousemove $((SCREEN_W - 1)) $((SCREEN_H - 1))
    sleep 1
    import -window "$WIN" "$OUT/desktop-gpu.png" || fail "screenshot with import failed"
    node "$REPO_ROOT/web/check_shot.mjs" "$OUT/desktop-gpu.png" "$PROBE" 0 0 ||
        fail "the heatmap drawn from the GPU trace does not match the probe"
    grep -q 'panicked' "$APPLOG" && fail "the app panicked (see $APPLOG)"
fi
echo "desktop: 1 passed, 0 failed"
