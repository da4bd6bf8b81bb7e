#!/usr/bin/env python3
"""The position probe on all-MiniLM-L6-v2, computed independently from transformers' hidden
states in float64 numpy (issue 38: does position survive depth?).

    eval "$(scripts/fetch_models.sh)"
    ~/.cache/glimpse/venv-ref/bin/python tests/reference/make_probe_fixture.py

Writes tests/fixtures/real/minilm/position_probe.json: the chunks' ids and, per hidden state
(the embeddings' output, then each layer's), the probe's held-out exact and within-one accuracy
and the positional share. The method is the one src/analysis/position_probe/mod.rs documents:
96 chunks of 32 tokens ([CLS] + 30 tokens of assets/corpora/attention.txt + [SEP]), chunk k held
out when k % 4 == 3; features standardised on the training rows; ridge least squares onto the
one-hot positions with lambda = 1 * trace(A^T A) / d; the position named by argmax; the share of
variance between positions, position 0 left out.
"""

import json
import os

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoTokenizer, BertModel  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENS, CHUNKS, RIDGE = 32, 96, 1.0


def probe(x_train, t_train, x_test, t_test, positions):
    mean = x_train.mean(0)
    var = x_train.var(0)
    sd = np.where(var > 1e-12, np.sqrt(np.maximum(var, 0)), 1.0)
    a, b = (x_train - mean) / sd, (x_test - mean) / sd
    d = a.shape[1]
    y = np.eye(positions)[t_train]
    prior = y.mean(0)
    g = a.T @ a
    g += RIDGE * np.trace(g) / d * np.eye(d)
    w = np.linalg.solve(g, a.T @ (y - prior))
    guess = (b @ w + prior).argmax(1)
    return float((guess == t_test).mean()), float((np.abs(guess - t_test) <= 1).mean())


def share(x, t):
    keep = t > 0
    x, t = x[keep], t[keep]
    mu = x.mean(0)
    between = sum((t == p).sum() * ((x[t == p].mean(0) - mu) ** 2).sum() for p in np.unique(t))
    return float(between / ((x - mu) ** 2).sum())


def main():
    folder = os.environ.get("GLIMPSE_MINILM", os.path.expanduser("~/.cache/glimpse/models/all-MiniLM-L6-v2"))
    tok = AutoTokenizer.from_pretrained(folder)
    model = BertModel.from_pretrained(folder).eval()
    text = open(os.path.join(ROOT, "assets/corpora/attention.txt"), encoding="utf-8").read()
    ids = tok(text, add_special_tokens=False)["input_ids"]
    content = TOKENS - 2
    chunks = [[tok.cls_token_id] + ids[k * content:(k + 1) * content] + [tok.sep_token_id] for k in range(CHUNKS)]
    assert all(len(c) == TOKENS for c in chunks)
    with torch.no_grad():
        hidden = model(torch.tensor(chunks), output_hidden_states=True).hidden_states
    layers = []
    t = np.tile(np.arange(TOKENS), CHUNKS)
    held = np.repeat(np.arange(CHUNKS) % 4 == 3, TOKENS)
    for h in hidden:
        x = h.numpy().astype(np.float64).reshape(-1, h.shape[-1])
        exact, within = probe(x[~held], t[~held], x[held], t[held], TOKENS)
        layers.append({"exact": exact, "within_one": within, "share": share(x, t)})
        print(f"{len(layers) - 1}: exact {exact:.4f} within {within:.4f} share {layers[-1]['share']:.4f}")
    out = os.path.join(ROOT, "tests/fixtures/real/minilm/position_probe.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tokens": TOKENS, "chunks": chunks, "layers": layers}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
