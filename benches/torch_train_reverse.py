"""PyTorch peer for Glimpse's training-throughput benchmark (issue 3, item 7).

Trains the same model as `glimpse train --task reverse` (encoder–decoder, d_model 32, 4 heads,
2 + 2 layers, d_ff 64, pre-norm, ReLU, sinusoidal positions, untied output, no dropout) on the
same task (3–8 letters from a–j, reversed) with the same batch (16 sequences), AdamW and global
norm clipping, and reports target tokens per second — the same count `glimpse train` reports
(one per label, <eos> included).

Run: ~/.cache/glimpse-torch/bin/python benches/torch_train_reverse.py [--steps 300] [--threads 1]
"""
import argparse
import math
import random
import time

import torch
import torch.nn as nn

from cpu_info import describe  # benches/cpu_info.py, beside this file

PAD, BOS, EOS = 0, 1, 2
LETTERS = 10
VOCAB = 4 + LETTERS


def sinusoidal(n, d):
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    k = torch.arange(d // 2, dtype=torch.float32)[None, :]
    angle = pos * torch.pow(10000.0, -2 * k / d)
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


class Seq2Seq(nn.Module):
    def __init__(self, d=32, heads=4, layers=2, ff=64, max_len=20):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.register_buffer("pe", sinusoidal(max_len, d))
        self.core = nn.Transformer(d_model=d, nhead=heads, num_encoder_layers=layers,
                                   num_decoder_layers=layers, dim_feedforward=ff, dropout=0.0,
                                   activation="relu", batch_first=True, norm_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, src, tgt):
        s = self.embed(src) + self.pe[: src.shape[1]]
        t = self.embed(tgt) + self.pe[: tgt.shape[1]]
        causal = self.core.generate_square_subsequent_mask(tgt.shape[1])
        h = self.core(s, t, tgt_mask=causal, src_key_padding_mask=src == PAD,
                      tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD)
        return self.out(h)


def batch(rng, size):
    srcs, tgts, labels = [], [], []
    for _ in range(size):
        s = [4 + rng.randrange(LETTERS) for _ in range(rng.randint(3, 8))]
        y = s[::-1]
        srcs.append(s)
        tgts.append([BOS] + y)
        labels.append(y + [EOS])
    pad = lambda rows: torch.tensor([r + [PAD] * (max(map(len, rows)) - len(r)) for r in rows])
    return pad(srcs), pad(tgts), pad(labels), sum(map(len, labels))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args()
    print(describe())
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    rng = random.Random(1)
    model = Seq2Seq()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    for _ in range(20):  # warm-up
        src, tgt, lab, _ = batch(rng, args.batch)
        loss = loss_fn(model(src, tgt).reshape(-1, VOCAB), lab.reshape(-1))
        opt.zero_grad(); loss.backward(); opt.step()
    tokens, start = 0, time.perf_counter()
    for _ in range(args.steps):
        src, tgt, lab, n = batch(rng, args.batch)
        loss = loss_fn(model(src, tgt).reshape(-1, VOCAB), lab.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += n
    seconds = time.perf_counter() - start
    print(f"pytorch {torch.__version__} threads={args.threads}: {args.steps} steps, "
          f"{tokens / seconds:.0f} tokens/s, {1000 * seconds / args.steps:.2f} ms/step, final loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
