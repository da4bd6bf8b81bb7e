"""Glimpse against PyTorch eager (transformers) on the same real weights, in one run.

    python benches/hf_vs_torch.py [--glimpse PATH_TO_BINARY] [--runs N]

Needs the reference venv (tests/reference/requirements-hf.txt) and the models from
scripts/fetch_models.sh. Cases: all-MiniLM-L6-v2 at 32 and 128 tokens, SmolLM2-135M (its GGUF,
dequantized to f32 by both) at 64 tokens. PyTorch runs eager, f32, no grad, with 1 thread and
with every core; Glimpse runs its traced forward pass (every intermediate kept) on one thread.
Both get the same English text cut to the same number of tokens. Prints a table and JSON.
"""
import argparse, json, os, statistics, subprocess, time
from pathlib import Path

import torch
from transformers import AutoModel, AutoModelForCausalLM

TEXT = ("The quick brown fox jumps over the lazy dog while the students watch every "
        "number of the attention computation change. ")


def torch_ms(model, ids, runs, threads):
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


def glimpse_ms(binary, model, tokens, runs):
    out = subprocess.run([binary, "bench-forward", "--model", str(model), "--tokens", str(tokens),
                          "--runs", str(runs)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["median_ms"]


def main():
    ap = argparse.ArgumentParser()
    root = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/glimpse/target"))
    ap.add_argument("--glimpse", default=str(target / "release/glimpse"))
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    models = Path(os.environ.get("GLIMPSE_MODELS", Path.home() / ".cache/glimpse/models"))
    minilm = models / "all-MiniLM-L6-v2"
    smol_dir = models / "SmolLM2-135M-Instruct"
    smol_file = "SmolLM2-135M-Instruct.Q4_1.gguf"
    from transformers import AutoTokenizer
    cases = []
    bert = AutoModel.from_pretrained(minilm, attn_implementation="eager").eval()
    tok = AutoTokenizer.from_pretrained(minilm)
    for n in (32, 128):
        ids = tok(TEXT * n)["input_ids"][:n]
        cases.append(("all-MiniLM-L6-v2", n, bert, ids, minilm))
    llama = AutoModelForCausalLM.from_pretrained(smol_dir, gguf_file=smol_file,
                                                 dtype=torch.float32,
                                                 attn_implementation="eager").eval()
    ltok = AutoTokenizer.from_pretrained(smol_dir, gguf_file=smol_file)
    cases.append(("SmolLM2-135M (GGUF→f32)", 64, llama, ltok(TEXT * 64)["input_ids"][:64],
                  smol_dir / smol_file))
    cores = os.cpu_count() or 1
    rows = []
    for name, n, model, ids, path in cases:
        t1 = torch_ms(model, ids, a.runs, 1)
        tn = torch_ms(model, ids, a.runs, cores)
        g = glimpse_ms(a.glimpse, path, n, a.runs)
        rows.append({"model": name, "tokens": n, "torch_1_thread_ms": round(t1, 2),
                     f"torch_{cores}_threads_ms": round(tn, 2), "glimpse_traced_ms": round(g, 2),
                     "glimpse_over_torch_1_thread": round(g / t1, 2)})
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"{'model':28} {'T':>4} {'torch 1t':>9} {'torch ' + str(cores) + 't':>9} {'glimpse':>9} {'ratio':>6}")
    for r in rows:
        vals = list(r.values())
        print(f"{vals[0]:28} {vals[1]:>4} {vals[2]:>9} {vals[3]:>9} {vals[4]:>9} {vals[5]:>6}")
    print(json.dumps({"load_average": load, "cases": rows}))


if __name__ == "__main__":
    main()
