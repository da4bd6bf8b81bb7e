"""PyTorch eager beside `cargo bench --bench forward`: the same forward pass (the reference
model of tests/reference/make_fixtures.py, vectorised over heads, in float32 and without
autograd) on the same weights and tokens, timed the same way (median of repeated calls).

    cargo bench --bench forward          # writes $TMPDIR/glimpse-bench-forward/
    ~/.cache/glimpse-torch/bin/python benches/torch_forward.py [--threads 1]

Prints one line per model: the median milliseconds per forward pass.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch
from safetensors.torch import load_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reference"))
import make_fixtures  # noqa: E402  (the reference model)
from cpu_info import describe  # noqa: E402  (benches/cpu_info.py, beside this file)

OUT = os.path.join(tempfile.gettempdir(), "glimpse-bench-forward")


def load(config_path, weights_path):
    with open(config_path) as f:
        cfg = json.load(f)
    return cfg, load_file(weights_path)


def median_ms(fn, min_seconds):
    fn()  # warm-up
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_seconds or len(times) < 5:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0, help="time per model")
    args = ap.parse_args()
    print(describe())
    torch.set_num_threads(args.threads)
    with open(os.path.join(OUT, "inputs.json")) as f:
        inputs = json.load(f)
    cases = [
        (name, os.path.join(OUT, name + ".json"), os.path.join(OUT, name + ".safetensors"), ids)
        for name, ids in inputs.items()
    ]
    with open(os.path.join(OUT, "large-input.json")) as f:
        large_ids = json.load(f)
    cases.append(("d512-L6-H8-T256", os.path.join(OUT, "large.json"),
                  os.path.join(OUT, "large.safetensors"), large_ids))
    print(f"torch {torch.__version__}, {args.threads} thread(s)")
    with torch.inference_mode():
        for name, config_path, weights_path, ids in cases:
            cfg, weights = load(config_path, weights_path)
            weights = {k: v.float() for k, v in weights.items()}
            ms = median_ms(lambda: make_fixtures.forward(cfg, weights, ids, dtype=torch.float32),
                           args.seconds)
            print(f"{name:18s} {ms:10.3f} ms")


if __name__ == "__main__":
    main()
