#!/usr/bin/env bash
# Reference figure for docs/benchmarks.md: llama.cpp's CPU speed on the same SmolLM2-135M
# Instruct Q4_1 GGUF that Glimpse loads. llama.cpp keeps the Q4_1 blocks quantized and runs
# SIMD dot products on them, so its pp64 (prompt, 64 tokens) and tg64 (generation, 64 tokens)
# tokens/s on 1 and 2 threads are the bar our own engine is compared against.
#
#   benches/llama_cpp.sh                     # fetch + build once, then benchmark
#   LLAMA_BENCH_ARGS="-r 5" benches/llama_cpp.sh
#
# Only PyPI is reachable, so llama.cpp comes from the copy vendored in the pinned
# llama-cpp-python sdist (its CHANGELOG names the upstream commit). CPU-only Release build with
# -DGGML_NATIVE=ON minus AMX (so the figure is for this CPU's AVX-512). Idempotent: download and
# unpacking are skipped when done, the build is incremental (~10 min the first time on 2 cores,
# seconds after). Run it on an otherwise idle machine. Everything lives outside the clone:
#   ~/.cache/glimpse/llama-cpp-src     sdist + unpacked source
#   ~/.cache/glimpse/llama-cpp-build   cmake build (bin/llama-bench, bin/llama-simple)
#   ~/.cache/glimpse/tools/cmake-venv  `pip install cmake`, used when cmake is not on PATH
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

PKG_VERSION="0.3.36"
PKG_SHA256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
CACHE="$HOME/.cache/glimpse"
SRC_ROOT="$CACHE/llama-cpp-src"
BUILD="$CACHE/llama-cpp-build"
SDIST="$SRC_ROOT/llama_cpp_python-$PKG_VERSION.tar.gz"
LLAMA_SRC="$SRC_ROOT/llama_cpp_python-$PKG_VERSION/vendor/llama.cpp"
MODEL="${GLIMPSE_SMOLLM2_GGUF:-$CACHE/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf}"
JOBS="${JOBS:-$(nproc)}"

# 1. Source: the llama-cpp-python sdist (--no-binary for this package only; its build
#    dependencies may come as wheels, otherwise pip compiles cmake from source).
if [ ! -f "$LLAMA_SRC/CMakeLists.txt" ]; then
    mkdir -p "$SRC_ROOT"
    [ -f "$SDIST" ] || python3 -m pip download --no-deps --disable-pip-version-check \
        --no-binary llama-cpp-python "llama-cpp-python==$PKG_VERSION" -d "$SRC_ROOT" >&2
    [ "$(sha256sum "$SDIST" | cut -d" " -f1)" = "$PKG_SHA256" ] || die "$SDIST: sha256 mismatch"
    tar -xzf "$SDIST" -C "$SRC_ROOT"
fi
COMMIT="$(grep -m1 -o 'llama.cpp@[0-9a-f]*' "$SRC_ROOT/llama_cpp_python-$PKG_VERSION/CHANGELOG.md" | cut -d@ -f2)"

# 2. Build (CPU only, no curl/openssl, only the two tools). AMX is switched off: -march=native
#    enables it from cpuinfo, but its tile instructions raise SIGILL in our Firecracker VMs, and
#    without it Q4_1 weights go through ggml's AVX-512 Q4_1 x Q8_1 dot products.
CMAKE="$(command -v cmake || true)"
if [ -z "$CMAKE" ]; then
    CMAKE="$CACHE/tools/cmake-venv/bin/cmake"
    [ -x "$CMAKE" ] || { python3 -m venv "$CACHE/tools/cmake-venv" &&
        "$CACHE/tools/cmake-venv/bin/pip" install -q cmake >&2; }
fi
[ -x "$BUILD/bin/llama-bench" ] || log "building llama.cpp ${COMMIT:-?} in $BUILD (-j$JOBS, ~10 min on 2 cores)"
NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
"$CMAKE" -S "$LLAMA_SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DCMAKE_C_FLAGS="$NO_AMX" -DCMAKE_CXX_FLAGS="$NO_AMX" -DGGML_CCACHE=OFF \
    -DGGML_CUDA=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_COMMIT="${COMMIT:-unknown}" >/dev/null
"$CMAKE" --build "$BUILD" --config Release -j"$JOBS" --target llama-bench llama-simple >/dev/null

# 3. Benchmark.
if [ ! -f "$MODEL" ]; then
    eval "$("$REPO_ROOT/scripts/fetch_models.sh")"
    MODEL="$GLIMPSE_SMOLLM2_GGUF"
fi
echo "llama.cpp: ${COMMIT:-unknown} (vendored in llama-cpp-python $PKG_VERSION)"
lscpu | grep 'Model name' | sed 's/  */ /g'
echo "cpu flags: $(grep -m1 -ow -E 'avx2|fma|avx512f' /proc/cpuinfo | sort -u | tr '\n' ' ')· $(nproc) logical CPUs"
# Other work on the machine wrecks -t 2 on 2 cores (ggml's threads spin at barriers): measure
# how busy the CPUs are over 2 s first, so a skewed table can be recognised as such.
cpu_ticks() { awk '/^cpu /{ print $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat; }
read -r B0 I0 < <(cpu_ticks); sleep 2; read -r B1 I1 < <(cpu_ticks)
BUSY=$(( 100 * (B1 - B0) / (B1 - B0 + I1 - I0 + 1) ))
echo "cpu busy before the run: $BUSY%"
[ "$BUSY" -le 10 ] || log "warning: the CPUs are $BUSY% busy with other work; the figures (-t 2 most) will be skewed"
# shellcheck disable=SC2086
"$BUILD/bin/llama-bench" -m "$MODEL" -p 64 -n 64 -t 1,2 -r 3 ${LLAMA_BENCH_ARGS:-}
