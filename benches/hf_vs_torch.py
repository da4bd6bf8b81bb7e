"""Glimpse against PyTorch eager (transformers) on the same real weights, every comparison in one run.

    python benches/hf_vs_torch.py [--glimpse PATH_TO_BINARY] [--runs N] [--peak GFLOPS]

Needs the reference venv (tests/reference/requirements-hf.txt) and the models from
scripts/fetch_models.sh. Cases:

* forward: all-MiniLM-L6-v2 at 32 and 128 tokens, SmolLM2-135M (its GGUF, dequantized to f32 by
  both) at 64 tokens (prefill). PyTorch runs eager, f32, no grad, with 1 thread and with every
  core; Glimpse (`glimpse bench-forward --json`) runs its traced forward pass (every
  intermediate kept) and its untraced one, with 1 thread and with every core.
* generation: SmolLM2 greedy, 64 new tokens after "The capital of France is", with the
  key/value cache, end-of-sequence ignored so both make 64 tokens (`glimpse generate
  --ignore-eos --json`; transformers `generate(min_new_tokens=64)`).

Both get the same English text cut to the same number of tokens. "speed-up" is PyTorch's
1-thread time over Glimpse's (above 1: Glimpse is faster). GFLOP/s use the forward pass's
floating-point operations (`bench-forward`'s count: every product, all T² attention pairs,
the output head) and are shown as a share of the CPU's f32 peak (`--peak`, one core's; all
cores' for the multi-thread columns). Prints tables and then one JSON line.
"""
import argparse, json, os, statistics, subprocess, time
from pathlib import Path

import torch
from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer

import cpu_info  # benches/cpu_info.py, beside this file

TEXT = ("The quick brown fox jumps over the lazy dog while the students watch every "
        "number of the attention computation change. ")
PROMPT = "The capital of France is"
NEW_TOKENS = 64


def torch_forward_ms(model, ids, runs, threads):
    torch.set_num_threads(threads)
    x = torch.tensor([ids])
    with torch.no_grad():
        model(input_ids=x)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            model(input_ids=x)
            times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def torch_generate_tps(model, ids, runs, threads):
    torch.set_num_threads(threads)
    x = torch.tensor([ids])
    kw = dict(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False,
              use_cache=True, attention_mask=torch.ones_like(x))
    with torch.no_grad():
        model.generate(x, **kw)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            out = model.generate(x, **kw)
            times.append(time.perf_counter() - t)
    assert out.shape[1] - x.shape[1] == NEW_TOKENS
    return NEW_TOKENS / statistics.median(times)


def glimpse(binary, *args):
    out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    target = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/glimpse/target"))
    ap.add_argument("--glimpse", default=str(target / "release/glimpse"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--generate-runs", type=int, default=3)
    ap.add_argument("--peak", type=float, default=117.0,
                    help="one core's f32 peak, GFLOP/s (AVX2+FMA at 3.66 GHz: 117)")
    a = ap.parse_args()
    cpu = cpu_info.cpu()
    print(cpu_info.describe(cpu))
    models = Path(os.environ.get("GLIMPSE_MODELS", Path.home() / ".cache/glimpse/models"))
    minilm = models / "all-MiniLM-L6-v2"
    smol_dir = models / "SmolLM2-135M-Instruct"
    smol_file = "SmolLM2-135M-Instruct.Q4_1.gguf"
    smol = smol_dir / smol_file
    cores = os.cpu_count() or 1
    threads = sorted({1, cores})

    bert = AutoModel.from_pretrained(minilm, attn_implementation="eager").eval()
    tok = AutoTokenizer.from_pretrained(minilm)
    llama = AutoModelForCausalLM.from_pretrained(smol_dir, gguf_file=smol_file,
                                                 dtype=torch.float32,
                                                 attn_implementation="eager").eval()
    ltok = AutoTokenizer.from_pretrained(smol_dir, gguf_file=smol_file)
    cases = [("all-MiniLM-L6-v2", n, bert, tok(TEXT * n)["input_ids"][:n], minilm)
             for n in (32, 128)]
    cases.append(("SmolLM2-135M (GGUF→f32)", 64, llama, ltok(TEXT * 64)["input_ids"][:64], smol))

    rows = []
    for name, n, model, ids, path in cases:
        row = {"model": name, "tokens": n}
        for k in threads:
            row[f"torch_{k}t_ms"] = round(torch_forward_ms(model, ids, a.runs, k), 2)
        for k in threads:
            g = glimpse(a.glimpse, "bench-forward", "--model", path, "--tokens", n,
                        "--runs", a.runs, "--threads", k, "--json")
            row["gflop"] = g["gflop"]
            row[f"glimpse_traced_{k}t_ms"] = round(g["median_ms"], 2)
            row[f"glimpse_untraced_{k}t_ms"] = round(g["untraced_median_ms"], 2)
        t1 = row["torch_1t_ms"]
        for k in threads:
            for kind in ("traced", "untraced"):
                ms = row[f"glimpse_{kind}_{k}t_ms"]
                row[f"speedup_{kind}_{k}t"] = round(t1 / ms, 2)
                row[f"glimpse_{kind}_{k}t_peak_pct"] = round(
                    100 * row["gflop"] / (ms / 1e3) / (a.peak * k), 1)
            row[f"torch_{k}t_peak_pct"] = round(
                100 * row["gflop"] / (row[f"torch_{k}t_ms"] / 1e3) / (a.peak * k), 1)
            row[f"traced_over_untraced_{k}t"] = round(
                row[f"glimpse_traced_{k}t_ms"] / row[f"glimpse_untraced_{k}t_ms"], 2)
        rows.append(row)

    gen = {"model": "SmolLM2-135M (GGUF→f32)", "prompt": PROMPT, "new_tokens": NEW_TOKENS}
    prompt_ids = ltok(PROMPT)["input_ids"]
    for k in threads:
        gen[f"torch_{k}t_tokens_per_s"] = round(
            torch_generate_tps(llama, prompt_ids, a.generate_runs, k), 2)
    for k in threads:
        tps = [glimpse(a.glimpse, "generate", "--model", smol, "--prompt", PROMPT, "--max-new",
                       NEW_TOKENS, "--ignore-eos", "--threads", k, "--json")["tokens_per_s"]
               for _ in range(a.generate_runs)]
        gen[f"glimpse_{k}t_tokens_per_s"] = round(statistics.median(tps), 2)

    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"CPU: {cpu['model']}, {cores} cores; load average {' '.join(load)}; medians of {a.runs} runs")
    print("forward pass, ms (speed-up = PyTorch 1 thread ÷ Glimpse; % = share of f32 peak)")
    head = f"{'model':26} {'T':>4}"
    for k in threads:
        head += f" {'torch ' + str(k) + 't':>13}"
    for k in threads:
        head += f" {'traced ' + str(k) + 't':>20} {'untraced ' + str(k) + 't':>20}"
    print(head)
    for r in rows:
        line = f"{r['model']:26} {r['tokens']:>4}"
        for k in threads:
            line += f" {r[f'torch_{k}t_ms']:>7} {r[f'torch_{k}t_peak_pct']:>4}%"
        for k in threads:
            for kind in ("traced", "untraced"):
                cell = (f"{r[f'glimpse_{kind}_{k}t_ms']} ×{r[f'speedup_{kind}_{k}t']} "
                        f"{r[f'glimpse_{kind}_{k}t_peak_pct']}%")
                line += f" {cell:>20}"
        print(line)
    print(f"generation: SmolLM2, {NEW_TOKENS} new tokens after {PROMPT!r}, greedy, "
          "key/value cache, tokens/s")
    for k in threads:
        print(f"  {k} thread(s): PyTorch {gen[f'torch_{k}t_tokens_per_s']:>7}   "
              f"Glimpse {gen[f'glimpse_{k}t_tokens_per_s']:>7}")
    print(json.dumps({"cpu": cpu, "cores": cores, "load_average": load, "peak_gflops": a.peak,
                      "forward": rows, "generation": gen}))


if __name__ == "__main__":
    main()
