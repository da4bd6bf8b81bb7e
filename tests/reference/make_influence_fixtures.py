#!/usr/bin/env python3
"""Reference numbers for what attention does (issue 34): logit lens, direct logit attribution,
activation patching and attention rollout, computed by `transformers` with hooks.

    eval "$(scripts/fetch_models.sh)"      # SmolLM2's GGUF, cached outside the clone
    ~/.cache/glimpse/venv-ref/bin/python tests/reference/make_influence_fixtures.py [--only NAME]

Writes tests/fixtures/influence/<NAME>.json for the tiny random models committed under
tests/fixtures/hf/ (GPT-2: LayerNorm and biases; Llama with GQA and biases; BERT with its
masked-LM head) and for SmolLM2-135M from its GGUF. Inputs are token ids (the Rust tests feed
the same ids); every number follows the definitions of issue 34, restated here:

- resid[0] is the input of block 0 (after BERT's embedding LayerNorm), resid[l] the output of
  block l-1, resid[L] the last block's output before the final norm.
- lens[l] = softmax(W_U final_norm(resid[l]) + b_U) at every position (BERT: its MLM head).
- DLA at one position, for target A and contrast B, with the final norm's scale frozen at the
  real run: share(c) = gamma * centre(c) / sigma(resid[L]) . (u_A - u_B) (RMSNorm: no centring,
  sigma = rms). Rows: the embedding, each head's z_h W_O[:, h]^T, each MLP's output without its
  bias, every bias (attention output, MLP output), the norm's beta and the unembedding bias.
- patching: LD = logit(A) - logit(B) at the last position; a patched run is the corrupted run
  with one activation (block l's input row p; or head h's slice of W_O's input at every
  position) taken from the clean run; score = (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt).
- rollout: A^_l = (mean_heads(A_l) + I) / 2, rows renormalised; R = A^_{L-1} ... A^_0.

The tiny models run in float64 (their weights upcast), SmolLM2 in float32 as transformers
dequantizes it. With --time the SmolLM2 patching sweep is also timed (the PyTorch side of the
sweep benchmark in docs/benchmarks.md).
"""

import argparse
import json
import os
import platform
import sys
import time

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, BertForMaskedLM  # noqa: E402

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
torch.use_deterministic_algorithms(True)
torch.set_grad_enabled(False)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HF = os.path.join(ROOT, "tests", "fixtures", "hf")
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "influence")
TOP_K = 5


# ------------------------------------------------------------------------------------------
# The model's parts, named once per architecture
# ------------------------------------------------------------------------------------------

class Parts:
    """Where a causal LM keeps its blocks, W_O, MLPs, final norm and unembedding."""

    def __init__(self, model, arch):
        self.model, self.arch = model, arch
        cfg = model.config
        if arch == "gpt2":
            self.blocks = model.transformer.h
            self.final_norm = model.transformer.ln_f
            self.heads = cfg.n_head
            self.head_dim = cfg.n_embd // cfg.n_head
            self.eps = cfg.layer_norm_epsilon
            self.rms = False
        else:
            self.blocks = model.model.layers
            self.final_norm = model.model.norm
            self.heads = cfg.num_attention_heads
            self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
            self.eps = cfg.rms_norm_eps
            self.rms = True
        self.unembed = model.get_output_embeddings()

    def w_o(self, layer):
        """The attention output map as [H*hd, d] (rows: the head dims it reads) and its bias."""
        b = self.blocks[layer]
        if self.arch == "gpt2":
            return b.attn.c_proj.weight, b.attn.c_proj.bias  # Conv1D: already [in, out]
        return b.self_attn.o_proj.weight.T, b.self_attn.o_proj.bias

    def o_module(self, layer):
        b = self.blocks[layer]
        return b.attn.c_proj if self.arch == "gpt2" else b.self_attn.o_proj

    def mlp(self, layer):
        b = self.blocks[layer]
        if self.arch == "gpt2":
            return b.mlp, b.mlp.c_proj.bias
        return b.mlp, b.mlp.down_proj.bias

    def u(self, token):
        return self.unembed.weight[token]

    def u_bias(self, token):
        b = self.unembed.bias
        return torch.zeros((), dtype=self.unembed.weight.dtype) if b is None else b[token]


def block_output(out):
    return out[0] if isinstance(out, tuple) else out


def traced_run(parts, ids, patch=None):
    """One forward pass recording resid[0..L], each block's W_O input and each MLP's output;
    `patch` = ("resid", l, p, row) or ("head", l, h, values) replaces that activation."""
    rec = {"resid": [], "z": [], "mlp": []}
    hooks = []
    L = len(parts.blocks)

    def pre_block(l):
        def hook(module, args, kwargs):
            x = args[0] if args else kwargs["hidden_states"]
            if patch and patch[0] == "resid" and patch[1] == l:
                x = x.clone()
                x[0, patch[2]] = patch[3]
                if args:
                    args = (x,) + tuple(args[1:])
                else:
                    kwargs = dict(kwargs, hidden_states=x)
            rec["resid"].append(x[0].detach().clone())
            return args, kwargs
        return hook

    def pre_o(l):
        def hook(module, args):
            z = args[0]
            if patch and patch[0] == "head" and patch[1] == l:
                z = z.clone()
                h, hd = patch[2], parts.head_dim
                z[0, :, h * hd:(h + 1) * hd] = patch[3]
                args = (z,) + tuple(args[1:])
            rec["z"].append(z[0].detach().clone())
            return args
        return hook

    def post_mlp(module, args, out):
        rec["mlp"].append(block_output(out)[0].detach().clone())

    for l, b in enumerate(parts.blocks):
        hooks.append(b.register_forward_pre_hook(pre_block(l), with_kwargs=True))
        hooks.append(parts.o_module(l).register_forward_pre_hook(pre_o(l)))
        hooks.append(parts.mlp(l)[0].register_forward_hook(post_mlp))
    last = {}
    hooks.append(parts.blocks[L - 1].register_forward_hook(
        lambda m, a, out: last.__setitem__("x", block_output(out)[0].detach().clone())))
    try:
        with torch.no_grad():
            out = parts.model(torch.tensor([ids]), output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    rec["resid"].append(last["x"])
    rec["logits"] = out.logits[0]
    rec["attentions"] = [a[0] for a in out.attentions]
    return rec


# ------------------------------------------------------------------------------------------
# The four tools
# ------------------------------------------------------------------------------------------

def lens(head, resid, target):
    """Top-k tokens and the target's probability at every layer and position."""
    layers = []
    for l, x in enumerate(resid):
        p = torch.softmax(head(x).double(), dim=-1)
        top = torch.topk(p, TOP_K, dim=-1)
        layers.append({
            "layer": l,
            "top_ids": top.indices.tolist(),
            "top_p": top.values.tolist(),
            "target_p": p[:, target].tolist() if target is not None else None,
        })
    return layers


def causal_lm_head(parts):
    return lambda x: parts.model.lm_head(parts.final_norm(x))


def dla(parts, rec, target, contrast, pos):
    """Each component's share of logit(A) - logit(B) at `pos`, the final norm's scale frozen."""
    xL = rec["resid"][-1][pos].double()
    gamma = parts.final_norm.weight.double()
    if parts.rms:
        scale = torch.sqrt((xL * xL).mean() + parts.eps)
        centre = lambda c: c  # noqa: E731
        beta = None
    else:
        scale = torch.sqrt(xL.var(unbiased=False) + parts.eps)
        centre = lambda c: c - c.mean()  # noqa: E731
        beta = parts.final_norm.bias.double()
    u = (parts.u(target) - parts.u(contrast)).double()
    share = lambda c: float((gamma * centre(c.double()) / scale) @ u)  # noqa: E731

    embed = share(rec["resid"][0][pos])
    heads, mlps, biases = [], [], {}
    hd = parts.head_dim
    for l in range(len(parts.blocks)):
        w, b = parts.w_o(l)
        z = rec["z"][l][pos].double()
        heads.append([share(z[h * hd:(h + 1) * hd] @ w[h * hd:(h + 1) * hd].double())
                      for h in range(parts.heads)])
        if b is not None:
            biases[f"blocks.{l}.attn.out_bias"] = share(b)
        mlp_out = rec["mlp"][l][pos].double()
        _, mb = parts.mlp(l)
        if mb is not None:
            mlp_out = mlp_out - mb.double()
            biases[f"blocks.{l}.mlp.out_bias"] = share(mb)
        mlps.append(share(mlp_out))
    if beta is not None:
        biases["final_norm.beta"] = float(beta @ u)
    ub = parts.unembed.bias
    if ub is not None:
        biases["unembed.bias"] = float(ub[target].double() - ub[contrast].double())
    total = embed + sum(map(sum, heads)) + sum(mlps) + sum(biases.values())
    logits = rec["logits"][pos].double()
    ld = float(logits[target] - logits[contrast])
    assert abs(total - ld) < 1e-3 * max(1.0, abs(ld)), (total, ld)
    return {"target": target, "contrast": contrast, "position": pos, "heads": heads, "mlp": mlps,
            "embed": embed, "biases": biases, "sum": total, "logit_diff": ld}


def logit_diff(rec, target, contrast):
    last = rec["logits"][-1].double()
    return float(last[target] - last[contrast])


def patching(parts, clean_ids, corrupt_ids, target, contrast, timed=False):
    assert len(clean_ids) == len(corrupt_ids)
    clean = traced_run(parts, clean_ids)
    corrupt = traced_run(parts, corrupt_ids)
    ld_c, ld_x = logit_diff(clean, target, contrast), logit_diff(corrupt, target, contrast)
    score = lambda rec: (logit_diff(rec, target, contrast) - ld_x) / (ld_c - ld_x)  # noqa: E731
    L, T, hd = len(parts.blocks), len(clean_ids), parts.head_dim
    t0 = time.perf_counter()
    resid = [[score(traced_run(parts, corrupt_ids, ("resid", l, p, clean["resid"][l][p])))
              for p in range(T)] for l in range(L)]
    heads = [[score(traced_run(parts, corrupt_ids, ("head", l, h, clean["z"][l][:, h * hd:(h + 1) * hd])))
              for h in range(parts.heads)] for l in range(L)]
    seconds = time.perf_counter() - t0
    # Patching every position of block 0 with the clean run's own values is the clean run.
    full = traced_run(parts, corrupt_ids, ("resid", 0, slice(None), clean["resid"][0]))
    assert abs(score(full) - 1.0) < 1e-6, score(full)
    out = {"tokens_clean": clean_ids, "tokens_corrupt": corrupt_ids, "target": target,
           "contrast": contrast, "ld_clean": ld_c, "ld_corrupt": ld_x, "resid": resid, "heads": heads}
    return (out, seconds) if timed else out


def rollout(attentions):
    """A^_l = (mean_heads(A_l) + I) / 2, rows renormalised; R = A^_{L-1} ... A^_0."""
    T = attentions[0].shape[-1]
    R = torch.eye(T, dtype=torch.float64)
    for a in attentions:
        m = 0.5 * a.double().mean(dim=0) + 0.5 * torch.eye(T, dtype=torch.float64)
        m = m / m.sum(dim=-1, keepdim=True)
        R = m @ R
    return R.tolist()


# ------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------

def load_tiny(name, cls):
    model = cls.from_pretrained(os.path.join(HF, name), attn_implementation="eager")
    return model.to(torch.float64).eval()


def causal_case(name, model, arch, text_ids, target, contrast, clean, corrupt, p_target, p_contrast):
    parts = Parts(model, arch)
    rec = traced_run(parts, text_ids)
    return {
        "model": name,
        "ids": text_ids,
        "lens": {"target": target, "top_k": TOP_K, "layers": lens(causal_lm_head(parts), rec["resid"], target)},
        "dla": dla(parts, rec, target, contrast, len(text_ids) - 1),
        "patch": patching(parts, clean, corrupt, p_target, p_contrast),
        "rollout": rollout(rec["attentions"]),
    }


def tiny_causal(name, arch):
    model = load_tiny(name, AutoModelForCausalLM)
    torch.manual_seed(len(name))
    V = model.config.vocab_size
    ids = torch.randint(3, min(V, 280), (9,)).tolist()
    corrupt = list(ids)
    corrupt[2] = (corrupt[2] + 17) % min(V, 280) or 5
    return causal_case(name, model, arch, ids, ids[4], ids[6], ids, corrupt, ids[4], ids[2])


def bert_mlm():
    name = "bert-mlm"
    model = load_tiny(name, BertForMaskedLM)
    torch.manual_seed(7)
    ids = [2] + torch.randint(5, 200, (8,)).tolist() + [3]  # [CLS] … [SEP] in the tiny vocabulary
    rec = {"resid": []}
    hooks = [b.register_forward_pre_hook(lambda m, a, k: rec["resid"].append(
        (a[0] if a else k["hidden_states"])[0].detach().clone()), with_kwargs=True)
        for b in model.bert.encoder.layer]
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    for h in hooks:
        h.remove()
    rec["resid"].append(out.hidden_states[-1][0])
    return {
        "model": name,
        "ids": ids,
        "lens": {"target": ids[3], "top_k": TOP_K, "layers": lens(lambda x: model.cls(x), rec["resid"], ids[3])},
        "rollout": rollout([a[0] for a in out.attentions]),
    }


def smollm2(timed, threads=1):
    d = os.environ.get("GLIMPSE_MODELS", os.path.expanduser("~/.cache/glimpse/models"))
    folder = os.path.join(d, "SmolLM2-135M-Instruct")
    name = "SmolLM2-135M-Instruct.Q4_1.gguf"
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32,
                                                 attn_implementation="eager").eval()
    enc = lambda s: tok(s, add_special_tokens=False)["input_ids"]  # noqa: E731
    one = lambda s: (lambda i: i[0] if len(i) == 1 else sys.exit(f"{s!r} is {i}"))(enc(s))  # noqa: E731
    fact = enc("The Eiffel Tower is in the city of")
    clean = enc("When Mary and John went to the store, John gave a drink to")
    corrupt = enc("When Mary and John went to the store, Mary gave a drink to")
    parts = Parts(model, "llama")
    torch.set_num_threads(threads)
    rec = traced_run(parts, fact)
    case = {
        "model": "SmolLM2-135M-Instruct.Q4_1",
        "text": "The Eiffel Tower is in the city of",
        "ids": fact,
        "lens": {"target": one(" Paris"), "top_k": TOP_K,
                 "layers": lens(causal_lm_head(parts), rec["resid"], one(" Paris"))},
        "dla": dla(parts, rec, one(" Paris"), one(" London"), len(fact) - 1),
        "rollout": rollout(rec["attentions"]),
    }
    patch, seconds = patching(parts, clean, corrupt, one(" Mary"), one(" John"), timed=True)
    patch["text_clean"] = "When Mary and John went to the store, John gave a drink to"
    patch["text_corrupt"] = "When Mary and John went to the store, Mary gave a drink to"
    case["patch"] = patch
    if timed:
        print(f"PyTorch {torch.__version__} sweep on SmolLM2, {len(clean)} tokens, "
              f"{len(parts.blocks) * len(clean)} residual + {len(parts.blocks) * parts.heads} head patches, "
              f"{threads} thread(s), {platform.processor() or platform.machine()}: {seconds:.2f} s", file=sys.stderr)
    return case


def write(case, name):
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"{name}.json")

    def rounded(o):
        if isinstance(o, float):
            return float(f"{o:.9g}")
        if isinstance(o, list):
            return [rounded(x) for x in o]
        if isinstance(o, dict):
            return {k: rounded(v) for k, v in o.items()}
        return o
    case = dict(rounded(case), versions={"torch": torch.__version__, "transformers": transformers.__version__})
    with open(path, "w") as f:
        json.dump(case, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)} ({os.path.getsize(path)} bytes)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--time", action="store_true", help="time the SmolLM2 patching sweep")
    ap.add_argument("--threads", type=int, default=1, help="PyTorch threads for the SmolLM2 case")
    a = ap.parse_args()
    torch.set_num_threads(1)
    cases = {
        "gpt2": lambda: tiny_causal("gpt2", "gpt2"),
        "llama-bias": lambda: tiny_causal("llama-bias", "llama"),
        "llama-gqa": lambda: tiny_causal("llama-gqa", "llama"),
        "bert-mlm": bert_mlm,
        "smollm2": lambda: smollm2(a.time, a.threads),
    }
    for name, make in cases.items():
        if a.only and a.only != name:
            continue
        write(make(), name)


if __name__ == "__main__":
    main()
