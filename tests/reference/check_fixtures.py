#!/usr/bin/env python3
"""Load every fixture written by make_hf_fixtures.py / make_real_fixtures.py back and check it.

    ~/.cache/glimpse/venv-ref/bin/python tests/reference/check_fixtures.py [--rerun]

Checks, without transformers: JSON and safetensors agree (ids, masks, token types), shapes follow
config.json, tokenizer.json re-encodes every text to the recorded ids, token ids fit the vocabulary,
attention rows sum to 1 with exact zeros at padded keys (and above the diagonal for decoders), the
weights on disk have the dtypes the JSON claims, sharded indexes name existing files.
By default it also runs numpy_reference.py (an independent float64 numpy forward written from
REAL_MODELS.md, with its own safetensors reader) on every tiny model and requires <= 1e-4.
--rerun also reloads each tiny model with transformers and compares every tensor (max abs <= 1e-5),
and, when the real models are fetched, re-runs MiniLM on its inputs the same way.
"""

import argparse
import json
import os
import sys

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HF = os.path.join(ROOT, "tests", "fixtures", "hf")
REAL = os.path.join(ROOT, "tests", "fixtures", "real")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def check_attention(name, a, mask, causal):
    check(a.dtype == np.float32, f"{name}: dtype {a.dtype}")
    H, T, T2 = a.shape
    check(T == T2, f"{name}: not square")
    real = np.asarray(mask, dtype=bool)
    rows = a[:, real, :]
    check(np.abs(rows.sum(-1) - 1).max() < 1e-5, f"{name}: rows do not sum to 1")
    check(np.all(a[:, :, ~real] == 0), f"{name}: weight on padded keys")
    if causal:
        check(np.all(np.triu(a, 1) == 0), f"{name}: weight above the diagonal")
    check(np.all(a >= 0), f"{name}: negative weight")


def shapes_from_config(cfg):
    mt = cfg["model_type"]
    if mt == "gpt2":
        return cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    return cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["hidden_size"]


def check_hf_case(d, rerun, spec):
    name = os.path.basename(d)
    cfg = json.load(open(os.path.join(d, "config.json")))
    exp = json.load(open(os.path.join(d, "expected.json")))
    t = load_file(os.path.join(d, "expected.safetensors"))
    tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    L, H, D = shapes_from_config(cfg)
    V = cfg["vocab_size"]
    arch = cfg["model_type"]
    check(tok.get_vocab_size() <= V, f"{name}: tokenizer larger than vocab")
    # weights on disk
    files = [f for f in os.listdir(d) if f.endswith(".safetensors") and f != "expected.safetensors"]
    if os.path.exists(os.path.join(d, "model.safetensors.index.json")):
        idx = json.load(open(os.path.join(d, "model.safetensors.index.json")))
        shards = set(idx["weight_map"].values())
        check(shards == set(files), f"{name}: index names {sorted(shards)} vs files {sorted(files)}")
        check(exp["sharded"], f"{name}: sharded but JSON says not")
        for k, f in idx["weight_map"].items():
            with safe_open(os.path.join(d, f), "np") as sf:
                check(k in sf.keys(), f"{name}: {k} not in {f}")
    else:
        check(files == ["model.safetensors"], f"{name}: files {files}")
    dtypes = set()
    for f in files:
        with safe_open(os.path.join(d, f), "np") as sf:
            for k in sf.keys():
                dtypes.add(str(sf.get_slice(k).get_dtype()))
    check(sorted(dtypes) == exp["weights_dtype"], f"{name}: dtypes {dtypes} vs {exp['weights_dtype']}")
    # inputs
    groups = {}
    for r in exp["inputs"]:
        p = r["name"]
        T = r["length"]
        ids = t[p + ".ids"]
        check(ids.dtype == np.int64 and ids.tolist() == r["ids"], f"{name}/{p}: ids differ from JSON")
        check(t[p + ".attention_mask"].tolist() == r["attention_mask"], f"{name}/{p}: mask")
        check(max(r["ids"]) < V, f"{name}/{p}: id out of range")
        enc = tok.encode(r["text"], r.get("text_pair")) if r.get("text_pair") else tok.encode(r["text"])
        n = r["n_real"]
        check(enc.ids == r["ids"][:n], f"{name}/{p}: tokenizer.json gives {enc.ids}, JSON has {r['ids'][:n]}")
        check(enc.tokens == r["tokens"][:n], f"{name}/{p}: tokens")
        if arch == "bert":
            check(t[p + ".token_type_ids"].tolist() == r["token_type_ids"], f"{name}/{p}: token types")
            check(enc.type_ids == r["token_type_ids"][:n], f"{name}/{p}: tokenizer type ids")
        for l in range(L):
            a = t[f"{p}.attention.{l}"]
            check(a.shape == (H, T, T), f"{name}/{p}: attention.{l} shape {a.shape}")
            check_attention(f"{name}/{p}.attention.{l}", a, r["attention_mask"], arch != "bert")
        for i in range(L + 1):
            check(t[f"{p}.hidden.{i}"].shape == (T, D), f"{name}/{p}: hidden.{i} shape")
        check(f"{p}.hidden.{L + 1}" not in t and f"{p}.attention.{L}" not in t, f"{name}/{p}: extra layers")
        if exp["class"] != "BertModel":
            check(t[p + ".logits"].shape == (T, V), f"{name}/{p}: logits shape")
        else:
            check(t[p + ".pooler"].shape == (D,), f"{name}/{p}: pooler shape")
        groups.setdefault(r["batch"], []).append(r)
    if "fill_mask" in exp:
        fm = exp["fill_mask"]
        lg = t[fm["input"] + ".logits"][fm["mask_position"]].astype(np.float64)
        pr = np.exp(lg - lg.max())
        pr /= pr.sum()
        top = np.argsort(-pr)[:5].tolist()
        check(top == [x["id"] for x in fm["top5"]], f"{name}: fill-mask top5 {top}")
        check(np.allclose(pr[top], [x["prob"] for x in fm["top5"]], atol=1e-6), f"{name}: fill-mask probs")
    if "greedy" in exp:
        g = exp["greedy"]
        check(tok.encode(g["prompt"]).ids == g["prompt_ids"], f"{name}: greedy prompt ids")
    if spec:
        spec_hf(d, exp, t)
    if rerun:
        rerun_hf(d, exp, t, arch)
    return sum(v.nbytes for v in t.values())


def spec_hf(d, exp, t):
    """Independent numpy forward (numpy_reference.py, from REAL_MODELS.md) vs the expected tensors."""
    import numpy_reference

    worst = {}
    for r in exp["inputs"]:
        out = numpy_reference.forward(d, r)
        p = r["name"]
        pairs = [(f"attention.{l}", a) for l, a in enumerate(out["attention"])]
        pairs += [(f"hidden.{i}", h) for i, h in enumerate(out["hidden"])]
        pairs += [(k, out[k]) for k in ("logits", "pooler") if k in out]
        for k, v in pairs:
            ref = t[f"{p}.{k}"]
            check(v.shape == ref.shape, f"{os.path.basename(d)}/{p}.{k}: numpy shape {v.shape} vs {ref.shape}")
            kind = k.split(".")[0]
            worst[kind] = max(worst.get(kind, 0.0), float(np.abs(v - ref).max()))
    name = os.path.basename(d)
    check(max(worst.values()) <= 1e-4, f"{name}: numpy reference differs {worst}")
    print(f"  numpy-from-spec {name}: " + " ".join(f"{k}={v:.1e}" for k, v in sorted(worst.items())))


def rerun_hf(d, exp, t, arch):
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    torch.set_num_threads(1)
    cls = getattr(transformers, exp["class"])
    m = cls.from_pretrained(d, attn_implementation="eager", dtype=torch.float32).eval()
    by_batch = {}
    for r in exp["inputs"]:
        by_batch.setdefault(r["batch"], []).append(r)
    worst = 0.0
    for rows in by_batch.values():
        kw = dict(input_ids=torch.tensor([r["ids"] for r in rows]),
                  attention_mask=torch.tensor([r["attention_mask"] for r in rows]),
                  output_attentions=True, output_hidden_states=True)
        if arch == "bert":
            kw["token_type_ids"] = torch.tensor([r["token_type_ids"] for r in rows])
        with torch.no_grad():
            out = m(**kw)
        for b, r in enumerate(rows):
            p = r["name"]
            pairs = [(f"{p}.attention.{l}", a[b]) for l, a in enumerate(out.attentions)]
            pairs += [(f"{p}.hidden.{i}", h[b]) for i, h in enumerate(out.hidden_states)]
            if getattr(out, "logits", None) is not None:
                pairs.append((p + ".logits", out.logits[b]))
            for k, v in pairs:
                worst = max(worst, float(np.abs(v.numpy() - t[k]).max()))
    check(worst <= 1e-5, f"{os.path.basename(d)}: rerun differs by {worst}")
    print(f"  rerun {os.path.basename(d)}: max abs diff {worst:.1e}")


def check_real(rerun):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_real_fixtures as R

    minilm_dir, gguf_path = R.model_paths()
    # MiniLM
    d = os.path.join(REAL, "minilm")
    exp = json.load(open(os.path.join(d, "expected.json")))
    t = load_file(os.path.join(d, "expected.safetensors"))
    tok = None
    if os.path.exists(os.path.join(minilm_dir, "tokenizer.json")):
        tok = R.minilm_tokenizer(minilm_dir)
    for r in exp["inputs"]:
        p, T = r["name"], len(r["ids"])
        check(t[p + ".ids"].tolist() == r["ids"], f"minilm/{p}: ids")
        check(t[p + ".token_type_ids"].tolist() == r["token_type_ids"], f"minilm/{p}: types")
        check(t[p + ".hidden.6"].shape == (T, 384), f"minilm/{p}: hidden.6")
        check(np.allclose(t[p + ".hidden.6"].mean(0), t[p + ".mean"], atol=1e-6), f"minilm/{p}: mean")
        if r["full"]:
            for l in range(6):
                check_attention(f"minilm/{p}.attention.{l}", t[f"{p}.attention.{l}"], [1] * T, False)
            for i in range(7):
                check(t[f"{p}.hidden.{i}"].shape == (T, 384), f"minilm/{p}: hidden.{i}")
        if tok is not None:
            e = tok.encode(r["text"], r["text_pair"]) if r.get("text_pair") else tok.encode(r["text"])
            check(e.ids == r["ids"] and e.tokens == r["tokens"], f"minilm/{p}: tokenizer.json re-encode")
    print(f"  minilm: {len(exp['inputs'])} inputs" + ("" if tok else " (model not fetched: tokenizer not re-run)"))
    # SmolLM2
    d = os.path.join(REAL, "smollm2")
    exp = json.load(open(os.path.join(d, "expected.json")))
    t = load_file(os.path.join(d, "expected.safetensors"))
    for r in exp["inputs"]:
        p, T = r["name"], len(r["ids"])
        check(t[p + ".ids"].tolist() == r["ids"], f"smollm2/{p}: ids")
        for l in (0, 14, 29):
            a = t[f"{p}.attention.{l}"]
            check(a.shape == (9, T, T), f"smollm2/{p}: attention.{l} shape")
            check_attention(f"smollm2/{p}.attention.{l}", a, [1] * T, True)
        for i in (0, 1, 15, 30):
            check(t[f"{p}.hidden.{i}"].shape == (T, 576), f"smollm2/{p}: hidden.{i}")
        ti, tl = t[p + ".top20_ids"], t[p + ".top20_logits"]
        check(np.all(np.diff(tl) <= 0), f"smollm2/{p}: top20 not descending")
        check(r["greedy"]["new_ids"][0] == int(ti[0]), f"smollm2/{p}: greedy[0] != top1")
        if p + ".logits_last" in t:
            full = t[p + ".logits_last"]
            check(full.shape == (49152,), "smollm2 logits_last shape")
            check(np.array_equal(full[ti], tl), f"smollm2/{p}: top20 vs full logits")
    print(f"  smollm2: {len(exp['inputs'])} prompts")
    if rerun and os.path.exists(os.path.join(minilm_dir, "model.safetensors")):
        import torch
        from transformers import BertModel

        m = BertModel.from_pretrained(minilm_dir, attn_implementation="eager", dtype=torch.float32).eval()
        exp = json.load(open(os.path.join(REAL, "minilm", "expected.json")))
        t = load_file(os.path.join(REAL, "minilm", "expected.safetensors"))
        got = R.minilm_run(m, exp["inputs"], torch.float32)
        worst = max(float(np.abs(v.numpy() - t[k]).max()) for k, v in got.items() if v.is_floating_point())
        check(worst <= 1e-6, f"minilm rerun differs by {worst}")
        print(f"  rerun minilm: max abs diff {worst:.1e}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rerun", action="store_true", help="also re-run transformers on the saved folders")
    ap.add_argument("--no-spec", action="store_true", help="skip the independent numpy forward")
    args = ap.parse_args()
    total = 0
    for name in sorted(os.listdir(HF)):
        total += check_hf_case(os.path.join(HF, name), args.rerun, not args.no_spec)
        print(f"  hf/{name}: ok so far" if not failures else f"  hf/{name}: {len(failures)} failures")
    check_real(args.rerun)
    if failures:
        print("FAILED:", *failures, sep="\n  ")
        sys.exit(1)
    print("all fixtures check out")


if __name__ == "__main__":
    main()
