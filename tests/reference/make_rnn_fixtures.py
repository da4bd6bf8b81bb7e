#!/usr/bin/env python3
"""Gradient fixtures for Glimpse's GRU encoder-decoder (src/train/rnn.rs), from PyTorch.

The model, written from the formulas in rnn.rs's header and independent of its code: an
embedding table; a torch.nn.GRUCell encoder over the source (h_0 = 0); a GRUCell decoder whose
first state is the encoder's last and whose input is [embedding of the previous word; c_t];
logits = W_out [s_t; c_t] + b_out.  c_t is the encoder's last state ("fixed") or additive
attention ("attention"): e_i = v . tanh(W s_{t-1} + U h_i), alpha = softmax(e),
c_t = sum_i alpha_i h_i.  The loss is the summed cross-entropy over every target word of every
example in the batch.

Weights are drawn (seeded) as float32 and stored as float32; the loss and gradients are computed
in float64 by autograd.  Output: tests/fixtures/rnn/<case>/{weights.safetensors, batch.json,
grads.safetensors} (grads holds `loss` and dL/dNAME under each parameter NAME, F32).

Run: ~/.cache/glimpse/venv-ref/bin/python tests/reference/make_rnn_fixtures.py
"""

import json
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "rnn")
V, E, H, A = 9, 4, 5, 3
BATCH = [
    {"source": [3, 4, 5, 6], "target_in": [1, 7, 8], "labels": [7, 8, 2]},
    {"source": [5, 3], "target_in": [1, 6, 7, 8], "labels": [6, 7, 8, 2]},
]
SHAPES = {
    "emb": (V, E),
    "enc.w_ih": (3 * H, E), "enc.w_hh": (3 * H, H), "enc.b_ih": (3 * H,), "enc.b_hh": (3 * H,),
    "dec.w_ih": (3 * H, E + H), "dec.w_hh": (3 * H, H), "dec.b_ih": (3 * H,), "dec.b_hh": (3 * H,),
    "att.w": (A, H), "att.u": (A, H), "att.v": (A,),
    "out.w": (V, 2 * H), "out.b": (V,),
}


def cell(p, prefix, size_in):
    c = torch.nn.GRUCell(size_in, H, dtype=torch.float64)
    c.weight_ih = p[f"{prefix}.w_ih"]
    c.weight_hh = p[f"{prefix}.w_hh"]
    c.bias_ih = p[f"{prefix}.b_ih"]
    c.bias_hh = p[f"{prefix}.b_hh"]
    return c


def loss_of(p, attention):
    enc, dec = cell(p, "enc", E), cell(p, "dec", E + H)
    total = torch.zeros((), dtype=torch.float64)
    for ex in BATCH:
        h = torch.zeros(1, H, dtype=torch.float64)
        states = []
        for i in ex["source"]:
            h = enc(p["emb"][i].unsqueeze(0), h)
            states.append(h[0])
        hs = torch.stack(states)
        s = hs[-1].unsqueeze(0)
        for y_in, label in zip(ex["target_in"], ex["labels"]):
            if attention:
                e = torch.tanh(s[0] @ p["att.w"].T + hs @ p["att.u"].T) @ p["att.v"]
                c = torch.softmax(e, dim=0) @ hs
            else:
                c = hs[-1]
            s = dec(torch.cat([p["emb"][y_in], c]).unsqueeze(0), s)
            logits = p["out.w"] @ torch.cat([s[0], c]) + p["out.b"]
            total = total + F.cross_entropy(logits.unsqueeze(0), torch.tensor([label]), reduction="sum")
    return total


def main():
    for case, attention in [("fixed", False), ("attention", True)]:
        g = torch.Generator().manual_seed(1 if attention else 2)
        weights = {n: (torch.randn(shape, generator=g) * 0.6).float() for n, shape in SHAPES.items()}
        p = {n: torch.nn.Parameter(w.double()) for n, w in weights.items()}
        loss = loss_of(p, attention)
        loss.backward()
        # Without attention its parameters take no part: their gradient is zero.
        grads = {n: (t.grad if t.grad is not None else torch.zeros_like(t)).float().contiguous()
                 for n, t in p.items()}
        grads["loss"] = loss.detach().float().reshape(1)
        # Self-check: a central difference on a few entries agrees with autograd.
        with torch.no_grad():
            for n in ["enc.w_hh", "dec.w_ih", "att.u", "emb"]:
                if p[n].grad is None:
                    continue
                idx = tuple(0 for _ in SHAPES[n])
                old = p[n][idx].item()
                p[n][idx] = old + 1e-6
                up = loss_of(p, attention).item()
                p[n][idx] = old - 1e-6
                down = loss_of(p, attention).item()
                p[n][idx] = old
                fd = (up - down) / 2e-6
                assert abs(fd - p[n].grad[idx].item()) < 1e-6 * max(1.0, abs(fd)), (case, n)
        d = os.path.join(OUT, case)
        os.makedirs(d, exist_ok=True)
        save_file({n: w.contiguous() for n, w in weights.items()}, os.path.join(d, "weights.safetensors"))
        save_file(grads, os.path.join(d, "grads.safetensors"))
        with open(os.path.join(d, "batch.json"), "w") as f:
            json.dump({"vocab": V, "embed": E, "hidden": H, "attention_width": A,
                       "attention": attention, "batch": BATCH}, f, indent=1)
        print(case, "loss", loss.item())


if __name__ == "__main__":
    main()
