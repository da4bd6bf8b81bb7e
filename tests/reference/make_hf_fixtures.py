#!/usr/bin/env python3
"""Tiny random Hugging Face checkpoints + their transformers outputs (issue 18).

For every case this builds a small BERT / GPT-2 / Llama model from a config with fixed seeds,
perturbs every weight (norm weights away from 1, biases away from 0), saves it with
`save_pretrained` (safetensors) together with a `tokenizer.json` trained here with the
`tokenizers` package, reloads it from disk with attn_implementation="eager" in float32 and
records attentions, hidden states and logits for a few inputs:

    tests/fixtures/hf/<name>/{config.json, model.safetensors | model.safetensors.index.json +
                              model-0000k-of-0000n.safetensors, tokenizer.json,
                              expected.safetensors, expected.json}

See tests/reference/README.md for the tensor names and the JSON schema. Run with the reference
venv (tests/reference/requirements-hf.txt):

    ~/.cache/glimpse/venv-ref/bin/python tests/reference/make_hf_fixtures.py [--check]

--check regenerates into a temporary folder and compares with the committed fixtures
(byte-identical files expected) instead of writing.
"""

import argparse
import filecmp
import json
import math
import os
import shutil
import sys
import tempfile
import zlib

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

import transformers  # noqa: E402
from transformers import (  # noqa: E402
    BertConfig,
    BertForMaskedLM,
    BertModel,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
)

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
torch.set_num_threads(1)  # deterministic reductions, and the machine is shared
torch.use_deterministic_algorithms(True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "hf")

# ------------------------------------------------------------------------------------------
# Tokenizers
# ------------------------------------------------------------------------------------------

CORPUS = [
    "The cat sat on the mat.",
    "The dog sat on the log, and the cat ran home.",
    "A quick brown fox jumps over the lazy dog.",
    "Where is the cat? It sat on the mat near the door.",
    "Attention is all you need: queries, keys and values.",
    "Students read the sentence and look at the attention of every head.",
    "Numbers like 42, 2026 and 3.14 appear in text too.",
    "Café, naïve and résumé carry accents.",
    "The model predicts the next token, one token at a time.",
    "Transformers stack layers of attention and feed-forward blocks.",
]

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def train_wordpiece(vocab_size):
    """WordPiece vocabulary learned on CORPUS by BPE-style merges, as WordPieceTrainer does.

    tokenizers' WordPieceTrainer is not deterministic (the ids of "##x" pieces follow a HashMap's
    order, and ties between equally frequent pairs then break differently from run to run), so
    the merges are done here: most frequent adjacent pair first, ties broken by the pair's text.
    """
    normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    pre = pre_tokenizers.BertPreTokenizer()
    counts = {}
    for line in CORPUS:
        for w, _ in pre.pre_tokenize_str(normalizer.normalize_str(line)):
            counts[w] = counts.get(w, 0) + 1
    words = {w: [w[0]] + ["##" + c for c in w[1:]] for w in counts}
    vocab = list(BERT_SPECIALS)
    vocab += sorted({p for syms in words.values() for p in syms}, key=lambda t: (t.startswith("##"), t))
    seen = set(vocab)
    while len(vocab) < vocab_size:
        pairs = {}
        for w, syms in words.items():
            for a, b in zip(syms, syms[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + counts[w]
        if not pairs:
            break
        (a, b), _ = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        merged = a + b[2:]
        if merged not in seen:
            seen.add(merged)
            vocab.append(merged)
        for w, syms in words.items():
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == a and syms[i + 1] == b:
                    out.append(merged)
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = out
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]",
                                     continuing_subword_prefix="##", max_input_chars_per_word=100))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    tok.add_special_tokens(BERT_SPECIALS)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def train_gpt2_bpe(vocab_size):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok


LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


LLAMA3_SPLIT_PATTERN = Regex(LLAMA3_SPLIT)


def train_llama3_bpe(vocab_size):
    """Llama-3 style: Split regex + ByteLevel(use_regex=false), BPE ignore_merges, BOS template."""
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(LLAMA3_SPLIT_PATTERN, behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|begin_of_text|>", "<|end_of_text|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    # The trainer builds a fresh BPE model: put Llama 3's ignore_merges back.
    data = json.loads(tok.to_str())
    data["model"]["ignore_merges"] = True
    tok = Tokenizer.from_str(json.dumps(data))
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1", special_tokens=[("<|begin_of_text|>", bos)]
    )
    return tok

# ------------------------------------------------------------------------------------------
# Weights
# ------------------------------------------------------------------------------------------

CONV1D = (".c_attn.", ".c_proj.", ".c_fc.")  # GPT-2 Conv1D: weight [in, out]


def seed_of(name):
    return zlib.crc32(("hf/" + name).encode())


@torch.no_grad()
def randomize_(model, seed, gain=1.0, embed_std=1.0):
    """Deterministic weights that make every parameter matter.

    Linear: N(0, gain^2/fan_in); embeddings N(0, embed_std^2) (position tables 0.5x);
    norm weights 1 + 0.25 N; every bias (norm biases included) 0.1 N.
    named_parameters() lists tied parameters once, so ties survive.
    """
    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        r = torch.randn(p.shape, generator=g, dtype=torch.float32)
        low = name.lower()
        is_norm = "norm" in low or ".ln_" in low or low.startswith("ln_")
        if is_norm and name.endswith("weight"):
            p.copy_(1.0 + 0.25 * r)
        elif p.dim() == 1:
            p.copy_(0.1 * r)
        elif "embed" in low or ".wte." in name or ".wpe." in name:
            std = embed_std * (0.5 if ("position" in low or ".wpe." in name) else 1.0)
            p.copy_(std * r)
        elif p.dim() == 2:
            fan_in = p.shape[0] if any(c in name for c in CONV1D) and "transformer." in name else p.shape[1]
            p.copy_(r * gain / math.sqrt(fan_in))
        else:
            raise RuntimeError(f"unexpected parameter {name} {tuple(p.shape)}")


# ------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------

BERT_INPUTS = [
    # (batch of rows); a row is (text, text_pair or None)
    [("The cat sat on the [MASK].", None)],
    [("the dog ran home", None), ("A quick brown fox, naïvely!", None)],
    [("Where is the cat?", "It sat on the mat.")],
]
DEC_INPUTS = [
    [("The cat sat on the mat.", None)],
    [("Café: 42 🙂!", None)],
    [("the dog ran home.", None)],
]
LONG_INPUT = [[("Transformers stack layers of attention and feed-forward blocks.", None)]]
GREEDY_PROMPT = "The cat"
GREEDY_STEPS = 8


def case_list():
    cases = []
    # BERT ---------------------------------------------------------------------------
    bert_kw = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                   max_position_embeddings=64, type_vocab_size=2, hidden_act="gelu", layer_norm_eps=1e-12)
    cases.append(dict(name="bert-mlm", arch="bert", cls=BertForMaskedLM, tok="wordpiece", tok_vocab=200,
                      cfg=bert_kw, inputs=BERT_INPUTS, fill_mask=0))
    cases.append(dict(name="bert-base", arch="bert", cls=BertModel, tok="wordpiece", tok_vocab=200,
                      cfg=dict(bert_kw, hidden_act="gelu_new", layer_norm_eps=1e-5), inputs=BERT_INPUTS))
    # GPT-2 --------------------------------------------------------------------------
    gpt2_kw = dict(n_embd=32, n_layer=2, n_head=4, n_positions=64, n_inner=None,
                   activation_function="gelu_new", layer_norm_epsilon=1e-5, tie_word_embeddings=True)
    cases.append(dict(name="gpt2", arch="gpt2", cls=GPT2LMHeadModel, tok="gpt2", tok_vocab=300,
                      cfg=gpt2_kw, init=dict(gain=2.0, embed_std=0.5), inputs=DEC_INPUTS, greedy=True))
    cases.append(dict(name="gpt2-f16", arch="gpt2", copy_of="gpt2", save_dtype=torch.float16, greedy=True))
    # Llama --------------------------------------------------------------------------
    llama_kw = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, rms_norm_eps=1e-6,
                    tie_word_embeddings=False, rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    cases.append(dict(name="llama-gqa", arch="llama", cls=LlamaForCausalLM, tok="llama3", tok_vocab=290,
                      vocab_pad=6, cfg=llama_kw, inputs=DEC_INPUTS, greedy=True))
    cases.append(dict(name="llama-bf16", arch="llama", copy_of="llama-gqa", save_dtype=torch.bfloat16, greedy=True))
    cases.append(dict(name="llama-mha-tied", arch="llama", cls=LlamaForCausalLM, tok="llama3", tok_vocab=290,
                      cfg=dict(llama_kw, num_key_value_heads=4, tie_word_embeddings=True, rms_norm_eps=1e-5),
                      inputs=DEC_INPUTS, shard="40KB"))
    cases.append(dict(name="llama-bias", arch="llama", cls=LlamaForCausalLM, tok="llama3", tok_vocab=290,
                      cfg=dict(llama_kw, num_key_value_heads=1, attention_bias=True, mlp_bias=True),
                      inputs=DEC_INPUTS))
    # Llama 3 RoPE scaling: head_dim 8 -> inv_freq = 100^(-i/4) = 1, .316, .1, .0316, wavelengths
    # 6.3, 19.9, 62.8, 198.7. With original_max 64, low 1, high 4: high_freq_wavelen 16,
    # low_freq_wavelen 64 -> i=0 kept, i=1,2 smoothed, i=3 divided by factor.
    cases.append(dict(name="llama3-rope", arch="llama", cls=LlamaForCausalLM, tok="llama3", tok_vocab=290,
                      cfg=dict(llama_kw, max_position_embeddings=256,
                               rope_parameters={"rope_type": "llama3", "rope_theta": 100.0, "factor": 4.0,
                                                "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                "original_max_position_embeddings": 64}),
                      inputs=DEC_INPUTS[:2] + LONG_INPUT, legacy_config=True))
    cases.append(dict(name="llama-odd", arch="llama", cls=LlamaForCausalLM, tok="llama3", tok_vocab=264,
                      cfg=dict(llama_kw, hidden_size=48, num_attention_heads=3, num_key_value_heads=1, head_dim=12,
                               intermediate_size=80, rms_norm_eps=1e-5, tie_word_embeddings=True,
                               rope_parameters={"rope_type": "default", "rope_theta": 500.0}),
                      inputs=DEC_INPUTS))
    return cases


CONVENTIONS = {
    "bert": "post-norm encoder. hidden.0 = embeddings output (after embeddings.LayerNorm); hidden.i = output of "
            "layer i-1 (i=1..L); hidden.L = last_hidden_state. attention.l = post-softmax weights of layer l, "
            "[H,T,T] (query row, key column), exactly 0 at padded keys. logits (BertForMaskedLM) = MLM head "
            "output. pooler (BertModel) = tanh(dense(hidden.L[0])).",
    "gpt2": "pre-norm decoder. hidden.0 = wte[id]+wpe[pos]; hidden.i (0<i<L) = raw output of block i-1; "
            "hidden.L = ln_f(output of block L-1) (the raw last block output is not exposed). attention.l = "
            "causal post-softmax weights [H,T,T], 0 above the diagonal. logits = hidden.L . wte^T (tied).",
    "llama": "pre-norm decoder. hidden.0 = embed_tokens[id] (unscaled); hidden.i (0<i<L) = raw output of block "
             "i-1; hidden.L = model.norm(output of block L-1). attention.l = causal post-softmax weights "
             "[H,T,T] with H query heads (query head h uses kv head floor(h/(H/KV))). RoPE is HF rotate-half "
             "(dim p paired with p+head_dim/2), positions 0..T-1. logits = lm_head(hidden.L) (embed_tokens if tied).",
}


SPECIALS_OF = {"bert": BERT_SPECIALS, "gpt2": ["<|endoftext|>"], "llama": ["<|begin_of_text|>", "<|end_of_text|>"]}


def versions():
    import numpy
    import safetensors
    import tokenizers
    v = {"torch": torch.__version__, "transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
         "safetensors": safetensors.__version__, "numpy": numpy.__version__, "python": sys.version.split()[0]}
    return v


def build_tokenizer(kind, vocab):
    return {"wordpiece": train_wordpiece, "gpt2": train_gpt2_bpe, "llama3": train_llama3_bpe}[kind](vocab)


def make_config(case, tok):
    n_tok = tok.get_vocab_size(with_added_tokens=True)
    vocab = n_tok + case.get("vocab_pad", 0)
    kw = dict(case["cfg"])
    if case["arch"] == "bert":
        cfg = BertConfig(vocab_size=vocab, pad_token_id=tok.token_to_id("[PAD]"), **kw)
    elif case["arch"] == "gpt2":
        eot = tok.token_to_id("<|endoftext|>")
        cfg = GPT2Config(vocab_size=vocab, bos_token_id=eot, eos_token_id=eot, **kw)
    else:
        cfg = LlamaConfig(vocab_size=vocab, bos_token_id=tok.token_to_id("<|begin_of_text|>"),
                          eos_token_id=tok.token_to_id("<|end_of_text|>"), pad_token_id=None, **kw)
    return cfg


def encode_batch(tok, rows):
    """Encode a batch of (text, pair) rows, right-padded with the pad id (0 for every tokenizer here)."""
    encs = [tok.encode(a, b) if b is not None else tok.encode(a) for a, b in rows]
    T = max(len(e.ids) for e in encs)
    pad_id = tok.token_to_id("[PAD]")
    if pad_id is None:
        pad_id = 0
    out = []
    for (a, b), e in zip(rows, encs):
        n = len(e.ids)
        out.append(dict(text=a, text_pair=b, ids=e.ids + [pad_id] * (T - n), tokens=e.tokens + ["[PAD]"] * (T - n),
                        attention_mask=[1] * n + [0] * (T - n), token_type_ids=e.type_ids + [0] * (T - n),
                        n_real=n))
    return out


def run(model, arch, rows):
    ids = torch.tensor([r["ids"] for r in rows])
    mask = torch.tensor([r["attention_mask"] for r in rows])
    kw = dict(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True, return_dict=True)
    if arch == "bert":
        kw["token_type_ids"] = torch.tensor([r["token_type_ids"] for r in rows])
    with torch.no_grad():
        return model(**kw)


def outputs_to_tensors(out, arch, prefix_of_row, rows):
    t = {}
    for b, r in enumerate(rows):
        p = prefix_of_row[b]
        t[p + ".ids"] = torch.tensor(r["ids"], dtype=torch.int64)
        t[p + ".attention_mask"] = torch.tensor(r["attention_mask"], dtype=torch.int64)
        if arch == "bert":
            t[p + ".token_type_ids"] = torch.tensor(r["token_type_ids"], dtype=torch.int64)
        for l, a in enumerate(out.attentions):
            t[f"{p}.attention.{l}"] = a[b].float()
        for i, h in enumerate(out.hidden_states):
            t[f"{p}.hidden.{i}"] = h[b].float()
        if getattr(out, "logits", None) is not None:
            t[p + ".logits"] = out.logits[b].float()
        if getattr(out, "pooler_output", None) is not None:
            t[p + ".pooler"] = out.pooler_output[b].float()
    return {k: v.contiguous() for k, v in t.items()}


def max_abs_diff(t32, t64):
    worst = {}
    for k, v in t32.items():
        if v.dtype != torch.float32:
            continue
        kind = k.split(".")[1]
        d = (v.double() - t64[k].double()).abs().max().item()
        worst[kind] = max(worst.get(kind, 0.0), d)
    return worst


def greedy(model, tok, prompt, steps):
    ids = tok.encode(prompt).ids
    prompt_ids = list(ids)
    gaps = []
    with torch.no_grad():
        for _ in range(steps):
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
            top = torch.topk(logits, 2)
            gaps.append((top.values[0] - top.values[1]).item())
            ids.append(int(top.indices[0]))
        x = torch.tensor([prompt_ids])
        ref = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=steps, do_sample=False, num_beams=1)
    new = ids[len(prompt_ids):]
    ref_new = ref[0, len(prompt_ids):].tolist()  # generate() stops early at EOS
    assert ref_new == new[:len(ref_new)], "manual greedy differs from generate()"
    return dict(prompt=prompt, prompt_ids=prompt_ids, new_ids=new,
                new_tokens=[tok.id_to_token(i) if i < tok.get_vocab_size() else None for i in new],
                text=tok.decode(prompt_ids + new, skip_special_tokens=False), min_top2_logit_gap=min(gaps))


def fill_mask(out, tok, row, b):
    pos = row["tokens"].index("[MASK]")
    logits = out.logits[b, pos]
    probs = torch.softmax(logits, -1)
    top = torch.topk(probs, 6)
    vals = top.values.tolist()
    lg = logits[top.indices].tolist()
    gap = min(lg[i] - lg[i + 1] for i in range(5))  # includes 5th vs 6th: the top-5 set is unambiguous
    return dict(mask_position=pos, top5=[dict(id=int(i), token=tok.id_to_token(int(i)), prob=v, logit=logits[int(i)].item())
                                         for i, v in zip(top.indices[:5].tolist(), vals[:5])],
                min_top6_logit_gap=gap)


def legacy_config(path):
    """Rewrite config.json in the transformers 4.x spelling: top-level rope_theta + rope_scaling."""
    with open(path) as f:
        cfg = json.load(f)
    rp = cfg.pop("rope_parameters")
    cfg["rope_theta"] = rp.pop("rope_theta")
    if rp.get("rope_type", "default") == "default":
        cfg["rope_scaling"] = None
    else:
        cfg["rope_scaling"] = rp
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")


def st_dtypes(d):
    out = {}
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".safetensors") and fn != "expected.safetensors":
            with safe_open(os.path.join(d, fn), "pt") as f:
                for k in f.keys():
                    out[k] = str(f.get_slice(k).get_dtype())
    return out


def make_case(case, built, out_root):
    name = case["name"]
    d = os.path.join(out_root, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if "copy_of" in case:
        base = built[case["copy_of"]]
        src_case, tok, model32 = base["case"], base["tok"], base["model"]
        arch = src_case["arch"]
        model = type(model32)(model32.config)
        model.load_state_dict(model32.state_dict())
        model = model.to(case["save_dtype"])
        inputs = src_case["inputs"]
        fm = src_case.get("fill_mask")
    else:
        arch = case["arch"]
        tok = build_tokenizer(case["tok"], case["tok_vocab"])
        cfg = make_config(case, tok)
        torch.manual_seed(seed_of(name))
        model = case["cls"](cfg)
        randomize_(model, seed_of(name), **case.get("init", {}))
        inputs = case["inputs"]
        fm = case.get("fill_mask")
    model.eval()
    kw = {}
    if case.get("shard"):
        kw["max_shard_size"] = case["shard"]
    model.save_pretrained(d, **kw)
    # save_pretrained may write generation_config.json: keep only what a loader reads.
    for extra in ("generation_config.json",):
        p = os.path.join(d, extra)
        if os.path.exists(p):
            os.remove(p)
    if case.get("legacy_config"):
        legacy_config(os.path.join(d, "config.json"))
    tok.save(os.path.join(d, "tokenizer.json"))
    assert tok.get_vocab_size(with_added_tokens=True) <= model.config.vocab_size

    # Reload from disk exactly as a user would: eager attention, float32 (F16/BF16 upcast exactly).
    cls = type(model)
    ref = cls.from_pretrained(d, attn_implementation="eager", dtype=torch.float32).eval()
    ref64 = cls.from_pretrained(d, attn_implementation="eager", dtype=torch.float64).eval()
    # The reloaded f32 model must equal the in-memory one (rounded to the saved dtype).
    sd_mem = {k: v.float() for k, v in model.state_dict().items()}
    for k, v in ref.state_dict().items():
        if k in sd_mem and v.is_floating_point():
            assert torch.equal(sd_mem[k], v), f"{name}: {k} changed on reload"

    tensors, tensors64, rows_json, worst = {}, {}, [], {}
    fill = None
    n = 0
    for bi, batch in enumerate(inputs):
        rows = encode_batch(tok, batch)
        prefixes = [f"input{n + b}" for b in range(len(rows))]
        out = run(ref, arch, rows)
        out64 = run(ref64, arch, rows)
        tensors.update(outputs_to_tensors(out, arch, prefixes, rows))
        tensors64.update(outputs_to_tensors(out64, arch, prefixes, rows))
        for b, r in enumerate(rows):
            r = dict(name=prefixes[b], batch=bi, row=b, length=len(r["ids"]), **r)
            if arch != "bert":
                del r["token_type_ids"]
            if r["text_pair"] is None:
                del r["text_pair"]
            rows_json.append(r)
        if fm is not None and fm == bi and arch == "bert" and getattr(out, "logits", None) is not None:
            fill = dict(input=prefixes[0], text=rows[0]["text"], **fill_mask(out, tok, rows[0], 0))
            assert fill["min_top6_logit_gap"] > 1e-2, f"{name}: fill-mask top-5 too close to call"
        n += len(rows)
    worst = max_abs_diff(tensors, tensors64)
    save_file(tensors, os.path.join(d, "expected.safetensors"), metadata={"format": "glimpse-hf-expected-v1"})

    cfgj = json.load(open(os.path.join(d, "config.json")))
    exp = {
        "name": name,
        "class": cls.__name__,
        "model_type": cfgj["model_type"],
        "weights_dtype": sorted(set(st_dtypes(d).values())),
        "sharded": os.path.exists(os.path.join(d, "model.safetensors.index.json")),
        "config_spelling": "transformers-4 (rope_theta, rope_scaling)" if case.get("legacy_config")
        else "transformers-5" + (" (rope_parameters)" if arch == "llama" else ""),
        "tokenizer_vocab": tok.get_vocab_size(with_added_tokens=True),
        "special_tokens": {t: tok.token_to_id(t) for t in SPECIALS_OF[arch]},
        "config_vocab": model.config.vocab_size,
        "reference": "transformers eager, float32, eval(); weights read back from this folder (F16/BF16 upcast "
                     "exactly to f32), so a correct loader should match to 1e-4",
        "conventions": CONVENTIONS[arch],
        "tensors": "expected.safetensors: inputN.ids / inputN.attention_mask / inputN.token_type_ids (BERT) are "
                   "I64 [T] (same as in this JSON); inputN.attention.l F32 [H,T,T] for l=0..L-1; inputN.hidden.i "
                   "F32 [T,d] for i=0..L; inputN.logits F32 [T,V] (models with a head; V = config vocab_size); "
                   "inputN.pooler F32 [d] (BertModel). Rows of one batch share the padded length T; compare rows "
                   "and hidden positions where attention_mask is 1 (padded query rows are defined but not meaningful).",
        "n_layers": model.config.num_hidden_layers,
        "f32_vs_f64_max_abs": worst,
        "inputs": rows_json,
        "versions": versions(),
    }
    if fill is not None:
        exp["fill_mask"] = fill
    if case.get("greedy"):
        exp["greedy"] = greedy(ref, tok, GREEDY_PROMPT, GREEDY_STEPS)
        assert exp["greedy"]["min_top2_logit_gap"] > 1e-3, f"{name}: greedy step too close to call"
    if arch == "llama":
        exp["rope"] = rope_notes(ref)
    write_json(exp, os.path.join(d, "expected.json"))
    return dict(case=case, tok=tok, model=model if "copy_of" not in case else None), exp


def rope_notes(model):
    c = model.config
    rp = dict(c.rope_parameters)
    hd = c.head_dim
    base = rp["rope_theta"]
    inv = [1.0 / (base ** (2 * i / hd)) for i in range(hd // 2)]
    notes = {"rope_parameters": rp, "head_dim": hd, "pairing": "rotate-half: p with p + head_dim/2",
             "inv_freq_effective": model.model.rotary_emb.inv_freq.tolist()}
    if rp.get("rope_type") == "llama3":
        O, lo, hi = rp["original_max_position_embeddings"], rp["low_freq_factor"], rp["high_freq_factor"]
        regimes = []
        for f in inv:
            lam = 2 * math.pi / f
            regimes.append("divided" if lam > O / lo else "kept" if lam < O / hi else "smoothed")
        notes["llama3_regimes"] = regimes
        assert {"divided", "kept", "smoothed"} <= set(regimes), regimes
    return notes


def json_text(o, ind=0):
    """JSON with one item per line but lists of scalars (ids, tokens, masks) kept on one line."""
    pad, pad1 = " " * ind, " " * (ind + 1)
    if isinstance(o, dict) and o:
        return "{\n" + ",\n".join(f"{pad1}{json.dumps(k)}: {json_text(v, ind + 1)}" for k, v in o.items()) + f"\n{pad}}}"
    if isinstance(o, list) and any(isinstance(x, (list, dict)) for x in o):
        return "[\n" + ",\n".join(pad1 + json_text(v, ind + 1) for v in o) + f"\n{pad}]"
    return json.dumps(o, ensure_ascii=False)


def write_json(obj, path):
    text = json_text(obj) + "\n"
    assert json.loads(text) == obj
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def dir_size(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def generate(out_root):
    built = {}
    summary = []
    for case in case_list():
        info, exp = make_case(case, built, out_root)
        built[case["name"]] = info
        d = os.path.join(out_root, case["name"])
        summary.append((case["name"], dir_size(d), exp["weights_dtype"], exp["f32_vs_f64_max_abs"]))
    for nm, sz, dt, w in summary:
        print(f"{nm:16s} {sz / 1024:7.1f} KiB  {','.join(dt):10s}  f32-f64 max " +
              " ".join(f"{k}={v:.1e}" for k, v in sorted(w.items())))
    total = dir_size(out_root)
    print(f"total {total / 1024:.1f} KiB")
    assert total < 3 * 1024 * 1024, "tests/fixtures/hf over 3 MB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare with the committed files")
    args = ap.parse_args()
    if not args.check:
        shutil.rmtree(OUT_DIR, ignore_errors=True)
        os.makedirs(OUT_DIR)
        generate(OUT_DIR)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        cmp = filecmp.dircmp(OUT_DIR, tmp)
        bad = []

        def walk(c, rel):
            bad.extend(os.path.join(rel, x) for x in c.left_only + c.right_only + c.diff_files + c.funny_files)
            for sub, sc in c.subdirs.items():
                walk(sc, os.path.join(rel, sub))

        # dircmp compares shallowly by stat; force content comparison
        for r, _, fs in os.walk(tmp):
            for f in fs:
                p = os.path.join(r, f)
                q = os.path.join(OUT_DIR, os.path.relpath(p, tmp))
                if not os.path.exists(q) or not filecmp.cmp(p, q, shallow=False):
                    bad.append(os.path.relpath(p, tmp))
        walk(cmp, "")
        bad = sorted(set(bad))
        if bad:
            print("differ:", *bad, sep="\n  ")
            sys.exit(1)
        print("all fixtures byte-identical")


if __name__ == "__main__":
    main()
