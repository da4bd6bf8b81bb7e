#!/usr/bin/env python3
"""Generate Glimpse gradient fixtures (training loss and dL/dparam) from the PyTorch reference.

The model is the one in make_fixtures.py (imported, not copied), written from docs/FORMAT.md in
plain torch ops.  Weights are drawn as float32 and stored as float32; for the gradients they are
upcast to float64 leaf tensors with requires_grad, the loss of FORMAT.md ("Training loss and
gradient fixtures") is computed in float64 and differentiated by torch autograd.  Everything is
seeded from the case name, so re-running produces byte-identical files.

Output: tests/fixtures/grads/<CASE>/{model.json, model.safetensors, batch.json,
grads.safetensors}.  grads.safetensors holds `loss` ([1]) and, for every parameter tensor NAME,
dL/dNAME under NAME; all F32.  See tests/reference/README.md.

Self-checks per case: the loss equals F.cross_entropy(label_smoothing=eps) over the masked rows,
and autograd agrees with a central finite difference (five-point stencil, float64) on a few
random parameter entries to a relative error below 1e-6.
"""

import os
import shutil
import sys

import torch
import torch.nn.functional as Fn
from safetensors.torch import save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  (the reference model; importing it has no side effects)

ROOT = mf.ROOT
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "grads")

FD_ENTRIES = 8        # finite-difference probes per case
FD_STEP = 1e-4        # five-point central stencil, O(h^4) truncation
FD_MIN_GRAD = 1e-4    # probe only entries whose gradient is at least this large
FD_TOL = 1e-6         # relative error allowed between autograd and finite difference

torch.set_num_threads(1)  # deterministic reductions (make_fixtures sets it too)


# --------------------------------------------------------------------------------------
# Case list
# --------------------------------------------------------------------------------------

def build_cases():
    """List of (case config, label smoothing, dropout rate)."""
    mk = mf.make_case
    cases = []
    # 1. family x positional (18): same grid as the parity fixtures.  Norm alternates pre/post,
    #    kv heads cycle mha/gqa/mqa; gelu on sinusoidal/alibi; tied embeddings on
    #    learned/relative (two per family).
    for fi, (fs, _) in enumerate(mf.FAMILIES):
        for pi, pos in enumerate(mf.POSITIONALS):
            k = pi + fi
            norm = "pre" if k % 2 == 0 else "post"
            kv = mf.KV[k % 3][0]
            # label smoothing 0.1 on one case per family (the `none` column)
            ls = 0.1 if pos == "none" else 0.0
            cases.append((mk(fs, pos, norm, kv,
                             activation="gelu" if pi in (1, 4) else "relu",
                             tie=pi in (2, 5),
                             extra=("ls",) if ls else ()), ls, 0.0))
    # 2. additive and bilinear scoring for every family (6).
    cases += [
        (mk("enc", "learned", "pre", "gqa", scoring="additive"), 0.0, 0.0),
        (mk("enc", "alibi", "post", "mha", scoring="bilinear", activation="gelu"), 0.0, 0.0),
        (mk("dec", "rope", "post", "gqa", scoring="additive"), 0.0, 0.0),
        (mk("dec", "relative", "pre", "mqa", scoring="bilinear", activation="gelu"), 0.0, 0.0),
        (mk("encdec", "sinusoidal", "post", "mqa", scoring="additive", tie=True,
            extra=("ls",)), 0.1, 0.0),
        (mk("encdec", "rope", "pre", "gqa", scoring="bilinear"), 0.0, 0.0),
    ]
    # 3. dropout at rate 0.25 (embeddings, attention weights, sub-layer outputs) for every
    #    family and both norm placements (4).
    cases += [
        (mk("enc", "learned", "post", "mha", extra=("dropout",)), 0.0, 0.25),
        (mk("dec", "rope", "pre", "gqa", activation="gelu", extra=("dropout",)), 0.0, 0.25),
        (mk("encdec", "sinusoidal", "post", "mqa", extra=("dropout",)), 0.1, 0.25),
        (mk("encdec", "relative", "pre", "mha", tie=True, extra=("dropout",)), 0.0, 0.25),
    ]
    names = [c["name"] for c, _, _ in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


# --------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------

def make_batch(cfg, V, gen, index, eps, rate):
    """Source / decoder input / labels / loss mask for one case.

    Decoder families: target tokens y1..yn (n in 4..6, ordinary ids, the last one <eos>); the
    decoder input is <bos> y1..y_{n-1} (teacher forcing) and the labels are y1..yn.
    Encoder-only: labels are the source ids sorted ascending, one per source position.
    Loss mask, by index % 3: all ones; a masked prompt prefix (1 or 2 zeros); scattered zeros.
    """
    def ids(n):  # ordinary ids 4..V-1 (never <pad>, <bos>, <eos>)
        return [int(x) for x in torch.randint(4, V, (n,), generator=gen)]

    def length():
        return int(torch.randint(4, 7, (1,), generator=gen))

    fam = cfg["family"]
    src, tgt = [], []
    if fam in ("encoder", "encoder_decoder"):
        src = ids(length())
        if index % 2 == 0:  # an <unk> in every other source
            src[int(torch.randint(0, len(src), (1,), generator=gen))] = mf.UNK
    if fam == "encoder":
        labels = sorted(src)
    else:
        n = length()
        while fam == "encoder_decoder" and n == len(src):
            n = length()
        y = ids(n - 1) + [mf.EOS]
        if index % 2 == 1:  # an <unk> among the target tokens of the other half
            y[int(torch.randint(0, n - 1, (1,), generator=gen))] = mf.UNK
        tgt = [mf.BOS] + y[:-1]
        labels = y
    T = len(labels)
    mode = index % 3
    mask = [1] * T
    if mode == 1:
        for t in range(1 + int(torch.randint(0, 2, (1,), generator=gen))):
            mask[t] = 0
    elif mode == 2:
        perm = torch.randperm(T, generator=gen).tolist()
        for t in perm[: 1 + int(torch.randint(0, T // 2, (1,), generator=gen))]:
            mask[t] = 0
    assert 0 < sum(mask) <= T
    batch = {"source": src, "target": tgt, "labels": labels, "loss_mask": mask,
             "label_smoothing": float(eps)}
    if rate:
        batch["dropout"] = [float(rate), int(torch.randint(0, 2**31, (1,), generator=gen))]
    return batch


# --------------------------------------------------------------------------------------
# Loss
# --------------------------------------------------------------------------------------

def loss_of(cfg, P, batch, dtype=torch.float64):
    """FORMAT.md: L = (1/N) sum_{t: mask_t=1} [-(1-eps) log p_t(y_t) - (eps/V) sum_v log p_t(v)]."""
    trace, _ = mf.forward(cfg, P, batch, dtype)
    logits = trace["logits"]  # [T, V]
    assert logits.dtype == dtype
    T, V = logits.shape
    assert T == len(batch["labels"]) == len(batch["loss_mask"])
    eps = batch["label_smoothing"]
    logp = torch.log_softmax(logits, dim=-1)
    labels = torch.tensor(batch["labels"], dtype=torch.long)
    mask = torch.tensor(batch["loss_mask"], dtype=dtype)
    nll = -logp.gather(1, labels[:, None]).squeeze(1)   # -log p_t(y_t)
    smooth = -logp.sum(dim=-1) / V                       # -(1/V) sum_v log p_t(v)
    per_tok = (1.0 - eps) * nll + eps * smooth
    return (per_tok * mask).sum() / mask.sum(), logits


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def finite_difference_check(cfg, P, batch, grads, gen):
    """Compare autograd with a five-point central difference on FD_ENTRIES random entries."""
    names = sorted(n for n in P if (grads[n].abs() >= FD_MIN_GRAD).any())
    worst = 0.0
    probes = []
    with torch.no_grad():
        for _ in range(FD_ENTRIES):
            name = names[int(torch.randint(0, len(names), (1,), generator=gen))]
            g = grads[name].reshape(-1)
            cand = torch.nonzero(g.abs() >= FD_MIN_GRAD).reshape(-1)
            flat = int(cand[int(torch.randint(0, len(cand), (1,), generator=gen))])
            w = P[name].reshape(-1)  # a view: perturbing w perturbs P[name]
            orig = float(w[flat])
            vals = []
            for k in (2, 1, -1, -2):
                w[flat] = orig + k * FD_STEP
                vals.append(float(loss_of(cfg, P, batch)[0]))
            w[flat] = orig
            fd = (-vals[0] + 8 * vals[1] - 8 * vals[2] + vals[3]) / (12 * FD_STEP)
            ad = float(g[flat])
            rel = abs(fd - ad) / max(abs(ad), abs(fd))
            assert rel < FD_TOL, f"{cfg['name']}: {name}[{flat}] autograd {ad!r} vs fd {fd!r}"
            worst = max(worst, rel)
            probes.append(name)
    return worst, probes


def main():
    cases = build_cases()
    if os.path.isdir(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    os.makedirs(OUT_DIR)
    worst_all, worst32, total_bytes = 0.0, 0.0, 0
    for index, (case, eps, rate) in enumerate(cases):
        name = case["name"]
        gen = torch.Generator().manual_seed(mf.seed_of("grads/" + name))
        n_letters = 6 + index % 5  # vocabulary of 10..14 tokens
        tokens = mf.SPECIALS + list(mf.LETTERS[:n_letters])
        V = len(tokens)
        cfg = {"format": "glimpse-model", "version": 1, **case,
               "description": "", "tokenizer": {"kind": "char", "tokens": tokens}}
        cfg["description"] = mf.describe(cfg).replace("Parity fixture", "Gradient fixture", 1)
        W = mf.make_weights(cfg, V, gen)
        batch = make_batch(cfg, V, gen, index, eps, rate)

        # float64 leaves; mf.forward's .to(float64) is then the identity, so grads reach them
        P = {k: v.to(torch.float64).requires_grad_(True) for k, v in W.items()}
        loss, logits = loss_of(cfg, P, batch)
        loss_val = float(loss.detach())
        names = sorted(P)
        gl = torch.autograd.grad(loss, [P[k] for k in names])
        grads = {k: g.detach() for k, g in zip(names, gl)}
        for k in names:
            assert grads[k].shape == P[k].shape and torch.isfinite(grads[k]).all(), k

        # the loss against PyTorch's own cross-entropy with label smoothing
        with torch.no_grad():
            sel = torch.tensor(batch["loss_mask"], dtype=torch.bool)
            ref = Fn.cross_entropy(logits[sel], torch.tensor(batch["labels"])[sel],
                                   label_smoothing=eps)
            assert abs(float(ref) - loss_val) < 1e-12, (name, float(ref), loss_val)

        # How far a plain f32 autograd run lands from the reference (headroom for Rust's f32).
        P32 = {k: v.clone().requires_grad_(True) for k, v in W.items()}
        loss32, _ = loss_of(cfg, P32, batch, torch.float32)
        g32 = torch.autograd.grad(loss32, [P32[k] for k in names])
        err32 = max(float((g.double() - grads[k]).abs().max()) for k, g in zip(names, g32))
        err32 = max(err32, abs(float(loss32.detach()) - loss_val))
        worst32 = max(worst32, err32)

        P_fd = {k: v.detach().clone() for k, v in P.items()}
        worst, probes = finite_difference_check(cfg, P_fd, batch, grads, gen)
        worst_all = max(worst_all, worst)

        out = {"loss": loss.detach().reshape(1).to(torch.float32)}
        for k in names:
            out[k] = grads[k].to(torch.float32).contiguous()
        cdir = os.path.join(OUT_DIR, name)
        os.makedirs(cdir)
        mf.write_json(os.path.join(cdir, "model.json"), cfg)
        mf.write_json(os.path.join(cdir, "batch.json"), batch)
        save_file({k: v.contiguous() for k, v in sorted(W.items())},
                  os.path.join(cdir, "model.safetensors"))
        save_file(out, os.path.join(cdir, "grads.safetensors"))
        total_bytes += sum(os.path.getsize(os.path.join(cdir, f)) for f in os.listdir(cdir))
        gmax = max(float(g.abs().max()) for g in grads.values())
        print(f"{name:42s} src={len(batch['source'])} tgt={len(batch['target'])} V={V:2d} "
              f"N={sum(batch['loss_mask'])}/{len(batch['labels'])} eps={eps:.1f} "
              f"loss={loss_val:.6f} params={len(W):3d} |g|max={gmax:.2e} "
              f"fd[{len(probes)}] rel err={worst:.1e} f32err={err32:.1e}")
    print(f"{len(cases)} cases written to {os.path.relpath(OUT_DIR, ROOT)} "
          f"({total_bytes / 1024:.0f} KiB); worst finite-difference relative error "
          f"{worst_all:.2e}; worst plain-f32 gradient deviation {worst32:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
