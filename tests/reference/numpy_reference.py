#!/usr/bin/env python3
"""An independent float64 numpy forward pass written from /work/shared/REAL_MODELS.md §1-4 (not from
transformers), with its own safetensors reader. check_fixtures.py runs it on every tiny HF fixture
and compares with transformers' expected outputs: it shows that the conventions written in the
README (hidden_states meaning, RoPE pairing, llama3 scaling, GQA mapping, Conv1D layout, F16/BF16
conversion, prefixes, ties, shards) are the ones transformers follows, so a Rust port of the same
rules will match.
"""

import json
import math
import os
import struct

import numpy as np


# ------------------------------------------------------------------------------------------
# safetensors (REAL_MODELS.md §3), by hand
# ------------------------------------------------------------------------------------------


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = data[base + b:base + e]
        shape = info["shape"]
        dt = info["dtype"]
        if dt == "F32":
            a = np.frombuffer(raw, "<f4")
        elif dt == "F16":
            a = np.frombuffer(raw, "<f2").astype(np.float32)
        elif dt == "BF16":
            a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        elif dt == "I64":
            a = np.frombuffer(raw, "<i8")
        else:
            raise ValueError(f"{name}: dtype {dt}")
        out[name] = a.reshape(shape).astype(np.float64) if dt != "I64" else a.reshape(shape)
    return out


def read_folder(d):
    idx = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(idx):
        w = {}
        for f in sorted(set(json.load(open(idx))["weight_map"].values())):
            w.update(read_safetensors(os.path.join(d, f)))
        return w
    return read_safetensors(os.path.join(d, "model.safetensors"))


def strip(w, prefixes):
    out = {}
    for k, v in w.items():
        for p in prefixes:
            if k.startswith(p):
                k = k[len(p):]
                break
        out[k] = v
    return out


# ------------------------------------------------------------------------------------------
# Pieces
# ------------------------------------------------------------------------------------------


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / math.sqrt(2)))


def gelu_new(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACT = {"gelu": gelu, "gelu_new": gelu_new, "silu": lambda x: x / (1 + np.exp(-x))}


def softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def attention(q, k, v, add_mask):
    """q [H,T,hd], k/v [H,T,hd] (already expanded for GQA), add_mask [T,T] additive."""
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1]) + add_mask
    a = softmax(s)
    return a, a @ v


def causal_mask(T):
    return np.triu(np.full((T, T), -np.inf), 1)


# ------------------------------------------------------------------------------------------
# Architectures (REAL_MODELS.md §2)
# ------------------------------------------------------------------------------------------


def bert(cfg, w, ids, tt, mask):
    w = strip(w, ["bert."])
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    hd, eps, act = d // H, cfg["layer_norm_eps"], ACT[cfg["hidden_act"]]
    T = len(ids)
    lin = lambda x, n: x @ w[n + ".weight"].T + w[n + ".bias"]  # noqa: E731
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][tt] \
        + w["embeddings.position_embeddings.weight"][:T]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    add = np.where(np.asarray(mask)[None, :] == 1, 0.0, -np.inf) * np.ones((T, 1))
    hidden, atts = [x], []
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        heads = lambda y: y.reshape(T, H, hd).transpose(1, 0, 2)  # noqa: E731
        q, k, v = (heads(lin(x, p + "attention.self." + n)) for n in ("query", "key", "value"))
        a, ctx = attention(q, k, v, add)
        atts.append(a)
        ctx = ctx.transpose(1, 0, 2).reshape(T, d)
        x = layer_norm(lin(ctx, p + "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        f = lin(act(lin(x, p + "intermediate.dense")), p + "output.dense")
        x = layer_norm(f + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    out = {"hidden": hidden, "attention": atts}
    if "cls.predictions.bias" in w:
        t = act(lin(x, "cls.predictions.transform.dense"))
        t = layer_norm(t, w["cls.predictions.transform.LayerNorm.weight"], w["cls.predictions.transform.LayerNorm.bias"], eps)
        dec = w.get("cls.predictions.decoder.weight", w["embeddings.word_embeddings.weight"])
        out["logits"] = t @ dec.T + w["cls.predictions.bias"]
    if "pooler.dense.weight" in w:
        out["pooler"] = np.tanh(lin(x[0], "pooler.dense"))
    return out


def gpt2(cfg, w, ids):
    w = strip(w, ["transformer."])
    d, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    hd, eps, act = d // H, cfg["layer_norm_epsilon"], ACT[cfg["activation_function"]]
    T = len(ids)
    conv = lambda x, n: x @ w[n + ".weight"] + w[n + ".bias"]  # Conv1D: W [in, out]  # noqa: E731
    ln = lambda x, n: layer_norm(x, w[n + ".weight"], w[n + ".bias"], eps)  # noqa: E731
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    hidden, atts = [x], []
    for l in range(L):
        p = f"h.{l}."
        qkv = conv(ln(x, p + "ln_1"), p + "attn.c_attn")
        heads = lambda y: y.reshape(T, H, hd).transpose(1, 0, 2)  # noqa: E731
        q, k, v = heads(qkv[:, :d]), heads(qkv[:, d:2 * d]), heads(qkv[:, 2 * d:])
        a, ctx = attention(q, k, v, causal_mask(T))
        atts.append(a)
        x = x + conv(ctx.transpose(1, 0, 2).reshape(T, d), p + "attn.c_proj")
        x = x + conv(act(conv(ln(x, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
        hidden.append(x)
    hidden[-1] = ln(x, "ln_f")
    lm = w.get("lm_head.weight", w["wte.weight"])
    return {"hidden": hidden, "attention": atts, "logits": hidden[-1] @ lm.T}


def llama_inv_freq(cfg, hd):
    rp = cfg.get("rope_parameters") or {}
    theta = rp.get("rope_theta", cfg.get("rope_theta", 10000.0))
    scaling = cfg.get("rope_scaling") or (rp if rp.get("rope_type", "default") != "default" else None)
    # HF computes in float32
    f = (1.0 / (np.float32(theta) ** (np.arange(0, hd, 2, dtype=np.int64).astype(np.float32) / np.float32(hd)))).astype(np.float32)
    if scaling:
        kind = scaling.get("rope_type", scaling.get("type"))
        F = scaling["factor"]
        if kind == "linear":
            f = f / F
        elif kind == "llama3":
            lo, hi, O = scaling["low_freq_factor"], scaling["high_freq_factor"], scaling["original_max_position_embeddings"]
            lam = 2 * math.pi / f
            s = (O / lam - lo) / (hi - lo)
            f = np.where(lam > O / lo, f / F, np.where(lam < O / hi, f, (1 - s) * f / F + s * f))
        else:
            raise ValueError(kind)
    return f.astype(np.float64)


def rope_half(x, inv_freq):
    """x [heads, T, hd]; rotate-half pairing p <-> p + hd/2."""
    T, hd = x.shape[1], x.shape[2]
    phi = np.arange(T)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(np.concatenate([phi, phi], -1)), np.sin(np.concatenate([phi, phi], -1))
    rot = np.concatenate([-x[..., hd // 2:], x[..., :hd // 2]], -1)
    return x * cos + rot * sin


def llama(cfg, w, ids):
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    KV = cfg.get("num_key_value_heads") or H
    hd = cfg.get("head_dim") or d // H
    eps = cfg["rms_norm_eps"]
    T = len(ids)
    inv = llama_inv_freq(cfg, hd)
    b = lambda n: w.get(n + ".bias", 0.0)  # noqa: E731
    lin = lambda x, n: x @ w[n + ".weight"].T + b(n)  # noqa: E731
    x = w["model.embed_tokens.weight"][ids]
    hidden, atts = [x], []
    for l in range(L):
        p = f"model.layers.{l}."
        a_in = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = lin(a_in, p + "self_attn.q_proj").reshape(T, H, hd).transpose(1, 0, 2)
        k = lin(a_in, p + "self_attn.k_proj").reshape(T, KV, hd).transpose(1, 0, 2)
        v = lin(a_in, p + "self_attn.v_proj").reshape(T, KV, hd).transpose(1, 0, 2)
        q, k = rope_half(q, inv), rope_half(k, inv)
        rep = H // KV
        k, v = np.repeat(k, rep, 0), np.repeat(v, rep, 0)  # query head h reads kv head h // rep
        a, ctx = attention(q, k, v, causal_mask(T))
        atts.append(a)
        x = x + lin(ctx.transpose(1, 0, 2).reshape(T, H * hd), p + "self_attn.o_proj")
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + lin(ACT[cfg["hidden_act"]](lin(m, p + "mlp.gate_proj")) * lin(m, p + "mlp.up_proj"), p + "mlp.down_proj")
        hidden.append(x)
    hidden[-1] = rms_norm(x, w["model.norm.weight"], eps)
    lm = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return {"hidden": hidden, "attention": atts, "logits": hidden[-1] @ lm.T}


def forward(folder, row):
    cfg = json.load(open(os.path.join(folder, "config.json")))
    w = read_folder(folder)
    ids = row["ids"]
    if cfg["model_type"] == "bert":
        return bert(cfg, w, ids, row["token_type_ids"], row["attention_mask"])
    if cfg["model_type"] == "gpt2":
        return gpt2(cfg, w, ids)
    return llama(cfg, w, ids)
