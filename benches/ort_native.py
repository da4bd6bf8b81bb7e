"""Glimpse against Python onnxruntime on all-MiniLM-L6-v2, natively, on 1 and 2 threads, side by side.

    ~/.cache/glimpse/venv-ref/bin/pip install onnxruntime==1.32.0 onnx==1.23.2 onnxscript==0.7.2
    ~/.cache/glimpse/venv-ref/bin/python benches/export_onnx.py        # once: the .onnx file
    ~/.cache/glimpse/venv-ref/bin/python benches/ort_native.py [--rounds R] [--runs N]

onnxruntime runs the export of `benches/export_onnx.py` (the BertModel, no pooling head) on the
CPU execution provider, graph optimisation `all`, `intra_op_num_threads` K, one inter-op
thread. Glimpse runs `glimpse bench-forward --model MiniLM --tokens T --threads K --json`: its
traced pass (every intermediate kept) and its untraced one. Both get T tokens of the same
English text. The machine's timings drift from minute to minute, so the engines take turns:
each round times every engine and thread count once (median of N passes each), and the table
gives the median over R rounds with the range. "ort ÷ Glimpse" above 1: Glimpse is faster.
Prints the CPU, a table, then one JSON line.
"""
import argparse, json, os, statistics, subprocess, time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

import cpu_info  # benches/cpu_info.py, beside this file

TEXT = ("The quick brown fox jumps over the lazy dog while the students watch every "
        "number of the attention computation change. ")


def ort_session(path, threads):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def ort_ms(session, ids, runs):
    x = np.array([ids], dtype=np.int64)
    feed = {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.zeros_like(x)}
    session.run(None, feed)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def glimpse_ms(binary, model, tokens, threads, runs, kernel):
    env = dict(os.environ)
    if kernel != "widest":
        env["GLIMPSE_KERNEL"] = kernel
    out = subprocess.run([binary, "bench-forward", "--model", str(model), "--tokens", str(tokens),
                          "--runs", str(runs), "--threads", str(threads), "--json"],
                         check=True, capture_output=True, text=True, env=env)
    g = json.loads(out.stdout)
    return g["median_ms"], g["untraced_median_ms"]


def spread(values):
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def main():
    ap = argparse.ArgumentParser()
    target = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/glimpse/target"))
    models = Path(os.environ.get("GLIMPSE_MODELS", Path.home() / ".cache/glimpse/models"))
    ap.add_argument("--glimpse", default=str(target / "release/glimpse"))
    ap.add_argument("--model", default=str(models / "all-MiniLM-L6-v2"))
    ap.add_argument("--onnx", default=str(Path.home() / ".cache/glimpse/onnx/all-MiniLM-L6-v2.onnx"))
    ap.add_argument("--tokens", type=int, nargs="+", default=[32, 128])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--kernels", nargs="+", default=["widest"],
                    help="Glimpse's product kernels to time (GLIMPSE_KERNEL): widest, avx512, avx2")
    a = ap.parse_args()
    cpu = cpu_info.cpu()
    print(cpu_info.describe(cpu))
    print(f"onnxruntime {ort.__version__}")
    tok = Tokenizer.from_file(str(Path(a.model) / "tokenizer.json"))
    threads = (1, 2)
    sessions = {k: ort_session(a.onnx, k) for k in threads}

    rows = []
    for n in a.tokens:
        ids = tok.encode(TEXT * n).ids[:n]
        assert len(ids) == n, f"the text is shorter than {n} tokens"
        engines = ["ort"] + [f"{kind}[{kernel}]" for kernel in a.kernels
                             for kind in ("traced", "untraced")]
        times = {f"{engine}_{k}t": [] for engine in engines for k in threads}
        for _ in range(a.rounds):
            for k in threads:
                times[f"ort_{k}t"].append(ort_ms(sessions[k], ids, a.runs))
                for kernel in a.kernels:
                    traced, untraced = glimpse_ms(a.glimpse, a.model, n, k, a.runs, kernel)
                    times[f"traced[{kernel}]_{k}t"].append(traced)
                    times[f"untraced[{kernel}]_{k}t"].append(untraced)
        row = {"tokens": n, **{key: [round(v, 2) for v in vals] for key, vals in times.items()}}
        for k in threads:
            ort_median = statistics.median(times[f"ort_{k}t"])
            for engine in engines[1:]:
                row[f"ort_over_{engine}_{k}t"] = round(
                    ort_median / statistics.median(times[f"{engine}_{k}t"]), 2)
        rows.append((row, times, engines))

    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"load average {' '.join(load)}; medians over {a.rounds} rounds of {a.runs} passes, "
          "ms (range); ort ÷ Glimpse above 1: Glimpse faster")
    for row, times, engines in rows:
        for k in threads:
            print(f"  MiniLM T={row['tokens']:<4} {k} thread(s): onnxruntime {spread(times[f'ort_{k}t'])}")
            for engine in engines[1:]:
                print(f"      Glimpse {engine:18} {spread(times[f'{engine}_{k}t'])}  "
                      f"(×{row[f'ort_over_{engine}_{k}t']})")
    print(json.dumps({"cpu": cpu, "onnxruntime": ort.__version__, "load_average": load,
                      "rounds": a.rounds, "runs": a.runs, "minilm": [r for r, _, _ in rows]}))


if __name__ == "__main__":
    main()
