"""Export all-MiniLM-L6-v2 (the BertModel, no pooling head: the same work Glimpse's forward
pass does) to ONNX, for the browser benchmark against onnxruntime-web (`web/bench_ort.mjs`).

    ~/.cache/glimpse/venv-ref/bin/pip install onnx==1.23.2 onnxscript==0.7.2
    ~/.cache/glimpse/venv-ref/bin/python benches/export_onnx.py [MODEL_DIR] [OUT.onnx]

Defaults: ~/.cache/glimpse/models/all-MiniLM-L6-v2 and ~/.cache/glimpse/onnx/all-MiniLM-L6-v2.onnx
(outside the model's folder, which the build serves beside the app; never committed).
Inputs input_ids, attention_mask, token_type_ids (int64, [1, T], T free); output
last_hidden_state. The export is checked against PyTorch on a 128-token input before it is kept.
"""

import os
import sys

import numpy as np
import torch
from transformers import AutoModel

HOME = os.path.expanduser("~/.cache/glimpse/models/all-MiniLM-L6-v2")
OUT = os.path.expanduser("~/.cache/glimpse/onnx/all-MiniLM-L6-v2.onnx")


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else HOME
    out = sys.argv[2] if len(sys.argv) > 2 else OUT
    os.makedirs(os.path.dirname(out), exist_ok=True)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()

    class Hidden(torch.nn.Module):
        """Only the last hidden state, so the graph has one output."""

        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state

    wrapped = Hidden(model).eval()
    t = 16
    example = (
        torch.randint(1000, 2000, (1, t)),
        torch.ones(1, t, dtype=torch.long),
        torch.zeros(1, t, dtype=torch.long),
    )
    seq = {0: "batch", 1: "tokens"}
    tmp = out + ".part"
    torch.onnx.export(
        wrapped,
        example,
        tmp,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": seq,
            "attention_mask": seq,
            "token_type_ids": seq,
            "last_hidden_state": seq,
        },
        opset_version=17,
        dynamo=False,
    )
    check(wrapped, tmp)
    os.replace(tmp, out)
    print(f"wrote {out} ({os.path.getsize(out) / 1e6:.1f} MB)")


def check(wrapped, path):
    """The ONNX graph gives PyTorch's hidden states (onnx's reference evaluator, 128 tokens)."""
    import onnx
    from onnx.reference import ReferenceEvaluator

    t = 128
    ids = torch.randint(1000, 20000, (1, t))
    mask = torch.ones(1, t, dtype=torch.long)
    types = torch.zeros(1, t, dtype=torch.long)
    with torch.no_grad():
        want = wrapped(ids, mask, types).numpy()
    session = ReferenceEvaluator(onnx.load(path))
    (got,) = session.run(
        None,
        {"input_ids": ids.numpy(), "attention_mask": mask.numpy(), "token_type_ids": types.numpy()},
    )
    err = float(np.max(np.abs(got - want)))
    if err > 1e-4:
        raise SystemExit(f"the ONNX graph differs from PyTorch by {err}")
    print(f"ONNX graph matches PyTorch within {err:.2e} on {t} tokens")


if __name__ == "__main__":
    main()
