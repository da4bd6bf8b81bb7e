#!/usr/bin/env bash
# SmolLM2-135M Q4_1 with its weights in their blocks, side by side in one run with the same
# model expanded to f32 (`--f32`) and with llama.cpp (benches/llama_cpp.sh), on 1 and 2 threads:
# prefill of 64 tokens, one decoding step with the key/value cache, greedy generation of 64
# tokens, and the weights' memory. The figures of docs/benchmarks.md ("Quantized weights").
#
#   cargo build --release && bash benches/quantized.sh
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

BIN="${GLIMPSE_BIN:-$CARGO_TARGET_DIR/release/glimpse}"
MODEL="${GLIMPSE_SMOLLM2_GGUF:-$HOME/.cache/glimpse/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf}"
[ -x "$BIN" ] || die "no $BIN: run cargo build --release first"
[ -f "$MODEL" ] || die "no $MODEL: run bash scripts/fetch_models.sh first"

summary='import json,sys; d=json.load(sys.stdin); step=d["decode_step_ms"]
print("prefill 64: %7.1f ms   decoding step: %5.1f ms (%5.1f tokens/s)   weights: %6.1f MiB   peak RSS: %s MB"
      % (d["untraced_median_ms"], step, 1e3 / step, d["weights_mib"], d["peak_rss_mb"]))'
for t in 1 2; do
    for weights in blocks f32; do
        flag=$([ "$weights" = f32 ] && echo --f32 || true)
        printf 'glimpse, %s thread(s), %-6s ' "$t" "$weights:"
        "$BIN" bench-forward --model "$MODEL" --tokens 64 --threads "$t" $flag --json 2>/dev/null | python3 -c "$summary"
    done
    printf 'glimpse, %s thread(s), greedy generation of 64 tokens: ' "$t"
    "$BIN" generate --model "$MODEL" --prompt "The capital of France is" --max-new 64 \
        --ignore-eos --threads "$t" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens_per_s"], "tokens/s")'
done
bash "$(dirname "$0")/llama_cpp.sh"
