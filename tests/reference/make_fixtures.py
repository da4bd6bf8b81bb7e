#!/usr/bin/env python3
"""Generate Glimpse parity fixtures from an independent PyTorch reference.

The model is written from docs/FORMAT.md in plain torch ops.  Weights are drawn as
float32 (and stored as float32); the forward pass upcasts them to float64, so the
stored trace is more exact than any f32 implementation.  Everything is seeded from
the case name, so re-running produces byte-identical files.

Output: tests/fixtures/parity/<CASE>/{model.json, model.safetensors, inputs.json,
trace.safetensors}.  See tests/reference/README.md.
"""

import json
import math
import os
import shutil
import sys
import zlib

import torch
from safetensors.torch import save_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "parity")

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
LETTERS = "abcdefghijklmnop"
PAD, BOS, EOS, UNK = 0, 1, 2, 3
GAIN = 1.0  # linear weights ~ N(0, GAIN^2 / fan_in)
EMBED_STD = 0.7
BILINEAR_STD = 1.0  # score_w ~ N(0, BILINEAR_STD^2 / h)
ADDITIVE_STD = (1.0, 1.5)  # W, U ~ N(0, a^2 / h); v ~ N(0, b^2)

torch.set_num_threads(1)  # deterministic reductions


# --------------------------------------------------------------------------------------
# Case list
# --------------------------------------------------------------------------------------

FAMILIES = [("enc", "encoder"), ("dec", "decoder"), ("encdec", "encoder_decoder")]
POSITIONALS = ["none", "sinusoidal", "learned", "rope", "alibi", "relative"]
KV = [("mha", None), ("gqa", 2), ("mqa", 1)]  # None = n_heads


def make_case(fam_short, pos, norm, kv, *, scoring="scaled_dot", activation="relu",
              tie=False, d_model=None, n_heads=4, n_layers=2, d_ff=16, ln_eps=1e-5,
              sin_base=10000.0, rope_base=10000.0, max_distance=2, extra=()):
    family = dict(FAMILIES)[fam_short]
    if d_model is None:
        d_model = 16 if pos == "rope" else 8  # rope: d_head 4 -> 2 pairs per head
    n_kv = dict(KV)[kv]
    n_kv = n_heads if n_kv is None else n_kv
    if pos == "sinusoidal":
        positional = {"kind": "sinusoidal", "base": float(sin_base)}
    elif pos == "rope":
        positional = {"kind": "rope", "base": float(rope_base)}
    elif pos == "relative":
        positional = {"kind": "relative", "max_distance": int(max_distance)}
    else:
        positional = {"kind": pos}
    parts = [fam_short, pos, norm, kv]
    if scoring != "scaled_dot":
        parts.append(scoring)
    if activation != "relu":
        parts.append(activation)
    if tie:
        parts.append("tied")
    parts.extend(extra)
    return {
        "name": "-".join(parts),
        "family": family,
        "d_model": d_model,
        "n_heads": n_heads,
        "n_kv_heads": n_kv,
        "n_layers": n_layers,
        "d_ff": d_ff,
        "max_len": 16,
        "activation": activation,
        "norm": norm,
        "ln_eps": ln_eps,
        "positional": positional,
        "scoring": scoring,
        "tie_embeddings": tie,
    }


def build_cases():
    cases = []
    # 1. family x positional (18): norm alternates, kv heads cycle; for each family the
    #    six (norm, kv) combinations all appear.  gelu on sinusoidal/alibi, tied
    #    embeddings on learned/relative.
    for fi, (fs, _) in enumerate(FAMILIES):
        for pi, pos in enumerate(POSITIONALS):
            k = pi + fi
            norm = "pre" if k % 2 == 0 else "post"
            kv = KV[k % 3][0]
            cases.append(make_case(
                fs, pos, norm, kv,
                activation="gelu" if pi in (1, 4) else "relu",
                tie=pi in (2, 5)))
    # 2. decoder RoPE: every kv setting x both norms.
    for norm in ("pre", "post"):
        for i, (kv, _) in enumerate(KV):
            cases.append(make_case("dec", "rope", norm, kv,
                                   activation="gelu" if (i + (norm == "post")) % 2 else "relu"))
    # 3. additive / bilinear scoring for every family.
    cases += [
        make_case("enc", "learned", "pre", "gqa", scoring="additive"),
        make_case("enc", "alibi", "post", "mha", scoring="bilinear"),
        make_case("dec", "rope", "post", "gqa", scoring="additive"),
        make_case("dec", "relative", "pre", "mqa", scoring="bilinear", activation="gelu"),
        make_case("encdec", "sinusoidal", "post", "mqa", scoring="additive", tie=True),
        make_case("encdec", "rope", "pre", "gqa", scoring="bilinear"),
    ]
    # 4. odd parameters.
    cases += [
        make_case("dec", "sinusoidal", "pre", "mha", sin_base=100.0, extra=("base100",)),
        make_case("enc", "sinusoidal", "post", "gqa", sin_base=100.0, extra=("base100",)),
        make_case("dec", "rope", "pre", "mha", rope_base=500.0, extra=("base500",)),
        make_case("encdec", "rope", "post", "mqa", rope_base=500.0, extra=("base500",)),
        make_case("dec", "alibi", "pre", "gqa", d_model=16, n_heads=8, extra=("h8",)),
        make_case("encdec", "learned", "pre", "mha", d_model=16, activation="gelu", tie=True,
                  extra=("d16",)),
        make_case("enc", "relative", "post", "mqa", max_distance=1, d_model=16,
                  extra=("k1", "d16")),
        make_case("dec", "none", "post", "mha", ln_eps=1e-2, extra=("eps1e-2",)),
        make_case("encdec", "alibi", "post", "gqa", n_layers=1, d_ff=8, extra=("1layer",)),
    ]
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


# --------------------------------------------------------------------------------------
# Weights and inputs
# --------------------------------------------------------------------------------------

def seed_of(name):
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def randn(gen, shape, std, mean=0.0):
    t = torch.randn(*shape, generator=gen, dtype=torch.float32)
    return (t * std + mean).to(torch.float32).contiguous()


def make_weights(cfg, V, gen):
    d, H, G = cfg["d_model"], cfg["n_heads"], cfg["n_kv_heads"]
    h, F, L = d // H, cfg["d_ff"], cfg["n_layers"]
    W = {}

    def lin(shape):  # [out, in], std GAIN/sqrt(in): keeps activations O(1)
        return randn(gen, shape, GAIN / math.sqrt(shape[1]))
    W["tok_embed"] = randn(gen, (V, d), EMBED_STD)
    if cfg["positional"]["kind"] == "learned":
        W["pos_embed"] = randn(gen, (cfg["max_len"], d), 0.5)

    def ln(prefix):
        W[prefix + ".gamma"] = randn(gen, (d,), 0.1, 1.0)
        W[prefix + ".beta"] = randn(gen, (d,), 0.1)

    def score_params(prefix):
        if cfg["scoring"] == "bilinear":
            W[prefix + ".score_w"] = randn(gen, (H, h, h), BILINEAR_STD / math.sqrt(h))
        if cfg["scoring"] == "additive":
            a, b = ADDITIVE_STD
            W[prefix + ".score_w"] = randn(gen, (H, h, h), a / math.sqrt(h))
            W[prefix + ".score_u"] = randn(gen, (H, h, h), a / math.sqrt(h))
            W[prefix + ".score_v"] = randn(gen, (H, h), b)

    stacks = {"encoder": ["enc"], "decoder": ["dec"], "encoder_decoder": ["enc", "dec"]}
    for S in stacks[cfg["family"]]:
        cross = cfg["family"] == "encoder_decoder" and S == "dec"
        for l in range(L):
            p = f"{S}.{l}"
            ln(p + ".ln_attn")
            W[p + ".self_attn.w_qkv"] = lin(((H + 2 * G) * h, d))
            W[p + ".self_attn.b_qkv"] = randn(gen, ((H + 2 * G) * h,), 0.1)
            W[p + ".self_attn.w_o"] = lin((d, H * h))
            W[p + ".self_attn.b_o"] = randn(gen, (d,), 0.1)
            score_params(p + ".self_attn")
            if cfg["positional"]["kind"] == "relative":
                K = cfg["positional"]["max_distance"]
                W[p + ".self_attn.rel_bias"] = randn(gen, (H, 2 * K + 1), 0.5)
            if cross:
                ln(p + ".ln_cross")
                W[p + ".cross_attn.w_q"] = lin((H * h, d))
                W[p + ".cross_attn.b_q"] = randn(gen, (H * h,), 0.1)
                W[p + ".cross_attn.w_kv"] = lin((2 * G * h, d))
                W[p + ".cross_attn.b_kv"] = randn(gen, (2 * G * h,), 0.1)
                W[p + ".cross_attn.w_o"] = lin((d, H * h))
                W[p + ".cross_attn.b_o"] = randn(gen, (d,), 0.1)
                score_params(p + ".cross_attn")
            ln(p + ".ln_ffn")
            W[p + ".ffn.w1"] = lin((F, d))
            W[p + ".ffn.b1"] = randn(gen, (F,), 0.1)
            W[p + ".ffn.w2"] = lin((d, F))
            W[p + ".ffn.b2"] = randn(gen, (d,), 0.1)
        if cfg["norm"] == "pre":
            ln(S + ".ln_f")
    if not cfg["tie_embeddings"]:
        W["lm_head.weight"] = lin((V, d))
    W["lm_head.bias"] = randn(gen, (V,), 0.1)
    return W


def make_inputs(cfg, V, gen, index):
    def ids(n):
        # ordinary ids 3..V-1 (3 = <unk>); never <pad>, so no key is padding.
        return [int(x) for x in torch.randint(4, V, (n,), generator=gen)]

    def lens():
        return int(torch.randint(4, 8, (1,), generator=gen))

    src, tgt = [], []
    fam = cfg["family"]
    if fam in ("encoder", "encoder_decoder"):
        src = ids(lens())
    if fam in ("decoder", "encoder_decoder"):
        n = lens()
        while fam == "encoder_decoder" and n == len(src):
            n = lens()
        tgt = [BOS] + ids(n - 1)
    # put an <unk> into every other case
    if index % 2 == 0:
        seq = src if src else tgt
        pos = int(torch.randint(1 if seq is tgt else 0, len(seq), (1,), generator=gen))
        seq[pos] = UNK
    return {"source": src, "target": tgt}


# --------------------------------------------------------------------------------------
# The reference model (float64 by default)
# --------------------------------------------------------------------------------------

def layer_norm(x, gamma, beta, eps):
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)  # biased
    y = (x - mu) / torch.sqrt(var + eps) * gamma + beta
    return y, mu.squeeze(-1), var.squeeze(-1)


def act_fn(name, z):
    if name == "relu":
        return torch.clamp(z, min=0.0)
    if name == "gelu":
        return z * 0.5 * (1.0 + torch.erf(z / math.sqrt(2.0)))
    raise ValueError(name)


def sinusoidal(T, d, base, dtype):
    t = torch.arange(T, dtype=dtype)[:, None]
    k = torch.arange(d // 2, dtype=dtype)[None, :]
    omega = torch.pow(torch.tensor(base, dtype=dtype), -2.0 * k / d)
    P = torch.zeros(T, d, dtype=dtype)
    P[:, 0::2] = torch.sin(t * omega)
    P[:, 1::2] = torch.cos(t * omega)
    return P


def rope(u, base):
    """u: [heads, T, h]; rotate pairs (2p, 2p+1) by θ = t·base^(−2p/h)."""
    _, T, h = u.shape
    dtype = u.dtype
    t = torch.arange(T, dtype=dtype)[:, None]
    p = torch.arange(h // 2, dtype=dtype)[None, :]
    theta = t * torch.pow(torch.tensor(base, dtype=dtype), -2.0 * p / h)  # [T, h/2]
    c, s = torch.cos(theta), torch.sin(theta)
    a, b = u[..., 0::2], u[..., 1::2]
    out = torch.empty_like(u)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    if u.dtype == torch.float64:  # same rotation as a complex product u * e^{iθ}
        z = torch.view_as_complex(u.reshape(*u.shape[:-1], h // 2, 2).contiguous())
        ref = torch.view_as_real(z * torch.polar(torch.ones_like(theta), theta)).reshape(u.shape)
        assert torch.allclose(out, ref, atol=1e-12)
    return out


# Dropout (training only).  Masks are a pure function of (seed, site, element), written from
# docs/FORMAT.md ("Dropout"): u = mix(mix(seed ^ mix(key + PHI)) + index * PHI) >> 40, / 2^24;
# an element is kept (and scaled by 1/(1-rate)) when u >= rate.
M64 = (1 << 64) - 1
PHI = 0x9E3779B97F4A7C15
STACK_ID = {"enc": 0, "dec": 1}
SLOT = {"embed": 0, "self_weights": 1, "self_output": 2, "cross_weights": 3,
        "cross_output": 4, "ffn_output": 5}


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def dropout_mask(dropout, stack, layer, slot, shape, dtype):
    """The multiplier tensor of one site, or None without dropout."""
    if not dropout:
        return None
    rate, seed = float(dropout[0]), int(dropout[1])
    key = (STACK_ID[stack] << 32) | (layer << 8) | SLOT[slot]
    site_seed = _mix(seed ^ _mix((key + PHI) & M64))
    n = math.prod(shape)
    u = [(_mix((site_seed + i * PHI) & M64) >> 40) / float(1 << 24) for i in range(n)]
    keep = 1.0 / (1.0 - rate)
    return torch.tensor([keep if x >= rate else 0.0 for x in u], dtype=dtype).reshape(shape)


def maybe_drop(x, mask):
    return x if mask is None else x * mask


def masked_softmax(logits, allowed):
    """logits, allowed: [H, Tq, Tk]. Disallowed -> exactly 0; empty row -> all 0."""
    neg = torch.full_like(logits, -math.inf)
    masked = torch.where(allowed, logits, neg)
    M = masked.max(dim=-1, keepdim=True).values
    M = torch.where(torch.isfinite(M), M, torch.zeros_like(M))
    ex = torch.where(allowed, torch.exp(logits - M), torch.zeros_like(logits))
    den = ex.sum(dim=-1, keepdim=True)
    den = torch.where(den > 0, den, torch.ones_like(den))
    return ex / den


def attention(cfg, P, prefix, xq, xkv, *, cross, causal, trace, tau=1.0, drop=None):
    """drop(shape) gives the attention-weight dropout multipliers (or None)."""
    d, H, G = cfg["d_model"], cfg["n_heads"], cfg["n_kv_heads"]
    h = d // H
    Tq, Tk = xq.shape[0], xkv.shape[0]
    if cross:
        Q = xq @ P[prefix + ".w_q"].T + P[prefix + ".b_q"]
        KV = xkv @ P[prefix + ".w_kv"].T + P[prefix + ".b_kv"]
        K, Vv = KV[:, : G * h], KV[:, G * h:]
    else:
        QKV = xq @ P[prefix + ".w_qkv"].T + P[prefix + ".b_qkv"]
        Q, K, Vv = QKV[:, : H * h], QKV[:, H * h: (H + G) * h], QKV[:, (H + G) * h:]
    q = Q.reshape(Tq, H, h).permute(1, 0, 2).contiguous()
    k = K.reshape(Tk, G, h).permute(1, 0, 2).contiguous()
    v = Vv.reshape(Tk, G, h).permute(1, 0, 2).contiguous()
    pos = cfg["positional"]
    if not cross and pos["kind"] == "rope":
        q = rope(q, pos["base"])
        k = rope(k, pos["base"])
    group = torch.tensor([i // (H // G) for i in range(H)])
    kq, vq = k[group], v[group]  # [H, Tk, h]

    sc = cfg["scoring"]
    if sc == "scaled_dot":
        s = torch.einsum("hid,hjd->hij", q, kq)
        e = s / (math.sqrt(h) * tau)
    elif sc == "bilinear":
        Wm = P[prefix + ".score_w"]
        s = torch.einsum("hia,hab,hjb->hij", q, Wm, kq)
        e = s / tau
    elif sc == "additive":
        Wm, Um, vv = P[prefix + ".score_w"], P[prefix + ".score_u"], P[prefix + ".score_v"]
        wq = torch.einsum("hab,hib->hia", Wm, q)   # W q_i
        uk = torch.einsum("hab,hjb->hja", Um, kq)  # U k_j
        s = torch.einsum("hija,ha->hij", torch.tanh(wq[:, :, None, :] + uk[:, None, :, :]), vv)
        e = s / tau
    else:
        raise ValueError(sc)

    bias = torch.zeros_like(e)
    i_idx = torch.arange(Tq)[:, None]
    j_idx = torch.arange(Tk)[None, :]
    if not cross and pos["kind"] == "alibi":
        slopes = torch.tensor([2.0 ** (-8.0 * (hd + 1) / H) for hd in range(H)], dtype=e.dtype)
        dist = (i_idx - j_idx).abs().to(e.dtype)
        bias = -slopes[:, None, None] * dist[None]
    elif not cross and pos["kind"] == "relative":
        Kd = pos["max_distance"]
        col = torch.clamp(j_idx - i_idx, -Kd, Kd) + Kd  # [Tq, Tk]
        rb = P[prefix + ".rel_bias"]  # [H, 2K+1]
        bias = rb[:, col]

    allowed = torch.ones(H, Tq, Tk, dtype=torch.bool)
    if causal:
        allowed = allowed & (j_idx <= i_idx)[None]
    a = masked_softmax(e + bias, allowed)
    m = drop(tuple(a.shape)) if drop else None
    o = torch.einsum("hij,hjd->hid", maybe_drop(a, m), vq)  # [H, Tq, h]
    if sc == "scaled_dot" and tau == 1.0 and q.dtype == torch.float64 and m is None:
        # cross-check against PyTorch's own attention (no row is fully masked here)
        add = bias.masked_fill(~allowed, -math.inf)
        ref = torch.nn.functional.scaled_dot_product_attention(q, kq, vq, attn_mask=add)
        assert torch.allclose(o, ref, atol=1e-10), prefix
    concat = o.permute(1, 0, 2).reshape(Tq, H * h)
    out = concat @ P[prefix + ".w_o"].T + P[prefix + ".b_o"]

    trace[prefix + ".q"] = q
    trace[prefix + ".k"] = k
    trace[prefix + ".v"] = v
    trace[prefix + ".scores"] = s
    trace[prefix + ".weights"] = a
    trace[prefix + ".head_out"] = o
    trace[prefix + ".out"] = out
    return out, allowed


def run_stack(cfg, P, S, ids, memory, trace, checks, dropout=None):
    d, eps, pre = cfg["d_model"], cfg["ln_eps"], cfg["norm"] == "pre"
    dtype = P["tok_embed"].dtype
    T = len(ids)

    def drop(layer, slot):
        return lambda shape: dropout_mask(dropout, S, layer, slot, shape, dtype)

    def dropped(z, layer, slot):
        return maybe_drop(z, drop(layer, slot)(tuple(z.shape)))

    x = P["tok_embed"][torch.tensor(ids, dtype=torch.long)]
    pos = cfg["positional"]
    if pos["kind"] == "sinusoidal":
        x = x + sinusoidal(T, d, pos["base"], dtype)
    elif pos["kind"] == "learned":
        x = x + P["pos_embed"][:T]
    x = dropped(x, 0, "embed")
    trace[S + ".embed"] = x
    causal = S == "dec"
    cross = memory is not None
    for l in range(cfg["n_layers"]):
        p = f"{S}.{l}"
        trace[p + ".input"] = x

        def ln(name, z):
            return layer_norm(z, P[f"{p}.{name}.gamma"], P[f"{p}.{name}.beta"], eps)

        # self-attention
        if pre:
            xn, mu, var = ln("ln_attn", x)
            A, allowed = attention(cfg, P, p + ".self_attn", xn, xn, cross=False,
                                   causal=causal, trace=trace, drop=drop(l, "self_weights"))
            r1 = x + dropped(A, l, "self_output")
        else:
            A, allowed = attention(cfg, P, p + ".self_attn", x, x, cross=False,
                                   causal=causal, trace=trace, drop=drop(l, "self_weights"))
            r1, mu, var = ln("ln_attn", x + dropped(A, l, "self_output"))
        trace[p + ".ln_attn.mean"] = mu
        trace[p + ".ln_attn.var"] = var
        trace[p + ".resid_attn"] = r1
        checks.append((p + ".self_attn.weights", trace[p + ".self_attn.weights"], allowed, causal))
        # cross-attention
        if cross:
            if pre:
                rn, _, _ = ln("ln_cross", r1)
                C, allowed = attention(cfg, P, p + ".cross_attn", rn, memory, cross=True,
                                       causal=False, trace=trace,
                                       drop=drop(l, "cross_weights"))
                r2 = r1 + dropped(C, l, "cross_output")
            else:
                C, allowed = attention(cfg, P, p + ".cross_attn", r1, memory, cross=True,
                                       causal=False, trace=trace,
                                       drop=drop(l, "cross_weights"))
                r2, _, _ = ln("ln_cross", r1 + dropped(C, l, "cross_output"))
            trace[p + ".resid_cross"] = r2
            checks.append((p + ".cross_attn.weights", trace[p + ".cross_attn.weights"],
                           allowed, False))
        else:
            r2 = r1
        # FFN
        fin = ln("ln_ffn", r2)[0] if pre else r2
        hidden = act_fn(cfg["activation"], fin @ P[p + ".ffn.w1"].T + P[p + ".ffn.b1"])
        Fo = dropped(hidden @ P[p + ".ffn.w2"].T + P[p + ".ffn.b2"], l, "ffn_output")
        trace[p + ".ffn.hidden"] = hidden
        y = r2 + Fo if pre else ln("ln_ffn", r2 + Fo)[0]
        trace[p + ".output"] = y
        x = y
    if pre:
        x, _, _ = layer_norm(x, P[S + ".ln_f.gamma"], P[S + ".ln_f.beta"], eps)
    trace[S + ".final"] = x
    return x


def forward(cfg, W, inputs, dtype=torch.float64):
    P = {k: v.to(dtype) for k, v in W.items()}
    trace, checks = {}, []
    fam = cfg["family"]
    dr = inputs.get("dropout")  # training-only (rate, seed); parity inputs have none
    if fam == "encoder":
        y = run_stack(cfg, P, "enc", inputs["source"], None, trace, checks, dr)
    elif fam == "decoder":
        y = run_stack(cfg, P, "dec", inputs["target"], None, trace, checks, dr)
    else:
        m = run_stack(cfg, P, "enc", inputs["source"], None, trace, checks, dr)
        y = run_stack(cfg, P, "dec", inputs["target"], m, trace, checks, dr)
    W_out = P["tok_embed"] if cfg["tie_embeddings"] else P["lm_head.weight"]
    trace["logits"] = y @ W_out.T + P["lm_head.bias"]
    return trace, checks


# --------------------------------------------------------------------------------------
# Self-checks
# --------------------------------------------------------------------------------------

def check_weights(name, a, allowed, causal):
    any_allowed = allowed.any(dim=-1)
    rows = a.sum(dim=-1)
    assert torch.allclose(rows[any_allowed], torch.ones_like(rows[any_allowed]), atol=1e-12), name
    assert (rows[~any_allowed] == 0).all(), name
    assert (a[~allowed] == 0).all(), f"{name}: masked weight not exactly 0"
    assert (a[allowed] > 0).all(), f"{name}: allowed weight underflowed to 0"
    if causal:
        T = a.shape[-1]
        upper = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        assert (a[:, upper] == 0).all(), f"{name}: weight above the diagonal"


def check_layer_norm_against_torch():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 8, generator=g, dtype=torch.float64)
    gm = torch.randn(8, generator=g, dtype=torch.float64)
    bt = torch.randn(8, generator=g, dtype=torch.float64)
    ours = layer_norm(x, gm, bt, 1e-5)[0]
    ref = torch.nn.functional.layer_norm(x, (8,), gm, bt, 1e-5)
    assert torch.allclose(ours, ref, atol=1e-12)
    z = torch.linspace(-4, 4, 33, dtype=torch.float64)
    assert torch.allclose(act_fn("gelu", z), torch.nn.functional.gelu(z), atol=1e-12)


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def describe(cfg):
    H, G = cfg["n_heads"], cfg["n_kv_heads"]
    kv = "MHA" if G == H else ("MQA" if G == 1 else "GQA")
    pos = cfg["positional"]
    ptxt = pos["kind"] + "".join(f" {k}={v}" for k, v in sorted(pos.items()) if k != "kind")
    return (f"Parity fixture (random weights): {cfg['family']}, {ptxt}, {cfg['norm']}-norm, "
            f"{kv} ({H} query / {G} kv heads), {cfg['scoring']} scoring, {cfg['activation']}, "
            f"d_model {cfg['d_model']}, {cfg['n_layers']} layers, "
            f"{'tied' if cfg['tie_embeddings'] else 'untied'} embeddings, ln_eps {cfg['ln_eps']}.")


def write_json(path, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, sort_keys=True, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    check_layer_norm_against_torch()
    cases = build_cases()
    if os.path.isdir(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    os.makedirs(OUT_DIR)
    worst32 = 0.0
    for index, case in enumerate(cases):
        name = case["name"]
        gen = torch.Generator().manual_seed(seed_of(name))
        n_letters = 6 + index % 5  # vocabulary of 10..14 tokens
        tokens = SPECIALS + list(LETTERS[:n_letters])
        V = len(tokens)
        cfg = {"format": "glimpse-model", "version": 1, **case,
               "description": "", "tokenizer": {"kind": "char", "tokens": tokens}}
        cfg["description"] = describe(cfg)
        W = make_weights(cfg, V, gen)
        inputs = make_inputs(cfg, V, gen, index)

        trace64, checks = forward(cfg, W, inputs, torch.float64)
        for c in checks:
            check_weights(*c)
        trace = {k: v.to(torch.float32).contiguous() for k, v in sorted(trace64.items())}
        for k, v in trace.items():
            assert torch.isfinite(v).all(), f"{name}: {k} not finite"

        # How far a plain f32 evaluation lands from the reference (headroom for 1e-5).
        trace32, _ = forward(cfg, W, inputs, torch.float32)
        err32 = max(float((trace32[k] - trace[k]).abs().max()) for k in trace)
        worst32 = max(worst32, err32)
        wmax = max(float(c[1].max()) for c in checks)
        wmin_allowed = min(float(c[1][c[2]].min()) for c in checks)

        cdir = os.path.join(OUT_DIR, name)
        os.makedirs(cdir)
        write_json(os.path.join(cdir, "model.json"), cfg)
        write_json(os.path.join(cdir, "inputs.json"), inputs)
        save_file({k: v.contiguous() for k, v in sorted(W.items())},
                  os.path.join(cdir, "model.safetensors"))
        save_file(trace, os.path.join(cdir, "trace.safetensors"))
        print(f"{name:42s} src={len(inputs['source'])} tgt={len(inputs['target'])} V={V:2d} "
              f"tensors={len(W):3d} trace={len(trace):3d} "
              f"weights[{wmin_allowed:.3f},{wmax:.3f}] f32err={err32:.1e}")
    print(f"{len(cases)} cases written to {os.path.relpath(OUT_DIR, ROOT)}; "
          f"worst plain-f32 deviation {worst32:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
