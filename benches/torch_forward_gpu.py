# PyTorch on a CUDA GPU (f32, TF32 off), on the same weights as `glimpse bench-gpu --model`: the median ms
# of one forward pass of T tokens, with the attention weights returned (eager) and without (SDPA).
# usage: python3 benches/torch_forward_gpu.py minilm|smollm2 FOLDER 128,512 [FILE.gguf]  (JSON on stdout)
import json, statistics, sys, time
import torch
from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer

kind, path, lengths = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3].split(",")]
gguf = sys.argv[4] if len(sys.argv) > 4 else None
text = ("The committee met in the spring to weigh the budget, the roads and the schools. "
        "Each member spoke in turn, and the chair wrote down what they agreed to do next. ") * 60
dev = "cuda" if torch.cuda.is_available() else "cpu"
sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
extra = {"gguf_file": gguf} if gguf else {}
tok = AutoTokenizer.from_pretrained(path, **extra)
cls = AutoModel if kind == "minilm" else AutoModelForCausalLM
out = {"gpu": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu", "torch": torch.__version__, "tf32": torch.backends.cuda.matmul.allow_tf32, "runs": []}
for impl in ("eager", "sdpa"):
    model = cls.from_pretrained(path, dtype=torch.float32, attn_implementation=impl, **extra).to(dev).eval()
    ids = tok(text, return_tensors="pt").input_ids
    for T in lengths:
        x = ids[:, :T].to(dev)
        attn = impl == "eager"
        times = []
        with torch.inference_mode():
            for i in range(25):
                sync(); t0 = time.perf_counter()
                model(x, output_attentions=attn)
                sync(); dt = (time.perf_counter() - t0) * 1e3
                if i >= 5: times.append(dt)
        out["runs"].append({"impl": impl, "attentions": attn, "tokens": T, "median_ms": statistics.median(times)})
        print(impl, T, statistics.median(times), file=sys.stderr)
print(json.dumps(out, indent=1))
