#!/usr/bin/env python3
"""PyTorch baselines for the GPU benchmark (scripts/gpu-bench.sh runs this before gpu_bench).

The same architectures as autograph's model zoo (include/autograph/models/), batch 1, FP32
weights with TF32 allowed (autograph's runtime default), timed three ways on one GPU:

  eager       model(x) in inference mode
  cuda_graph  the forward pass captured once into a CUDA graph (torch.cuda.CUDAGraph), replayed
  compile     torch.compile(model) (default mode: Inductor, no CUDA graphs)

Each latency is the median over --repeats runs of the median of --replays CUDA-event-timed
calls after a warm-up, like gpu_bench. Models come from torchvision, timm and transformers
where those are installed; a model whose source is missing (or that does not exist in any of
them, as RandWire and NASNet-A Mobile) is reported as skipped with the reason, never with a
number. Prints the JSON, and writes it to --out when given.
"""

import argparse
import json
import math
import statistics
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="write the JSON here too")
    p.add_argument("--models", help="comma-separated model names (default: all)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--replays", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--modes", default="eager,cuda_graph,compile")
    return p.parse_args()


def try_import(name):
    try:
        return __import__(name)
    except Exception:  # ImportError, or a broken install
        return None


# ---- the architectures ----------------------------------------------------------------------

def sru_module(torch, steps=10, hidden=1024, vocab=1024, classes=2):
    """RNNTC-SRU exactly as models/rnntc_sru.hpp builds it: one-hot tokens times an embedding,
    one SRU layer unrolled over the steps (c_0 = 0), a softmax classifier."""
    nn = torch.nn

    class Sru(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Parameter(torch.empty(vocab, hidden).uniform_(-0.1, 0.1))
            self.w = nn.Parameter(torch.randn(hidden, hidden) / math.sqrt(hidden))
            self.w_f = nn.Parameter(torch.randn(hidden, hidden) / math.sqrt(hidden))
            self.w_r = nn.Parameter(torch.randn(hidden, hidden) / math.sqrt(hidden))
            self.b_f = nn.Parameter(torch.empty(hidden).uniform_(-0.1, 0.1))
            self.b_r = nn.Parameter(torch.empty(hidden).uniform_(-0.1, 0.1))
            self.classifier = nn.Linear(hidden, classes)

        def forward(self, tokens):  # [steps, batch, vocab]
            x = tokens @ self.embedding
            cell = h = None
            for t in range(steps):
                xt = x[t : t + 1]
                x_tilde = xt @ self.w
                f = torch.sigmoid(xt @ self.w_f + self.b_f)
                r = torch.sigmoid(xt @ self.w_r + self.b_r)
                carry = (1 - f) * x_tilde
                cell = carry if t == 0 else f * cell + carry
                h = r * torch.tanh(cell) + (1 - r) * xt
            return torch.softmax(self.classifier(h.reshape(h.shape[1], hidden)), dim=-1)

    return Sru(), (steps, 1, vocab)


def taso_bert_module(torch, layers=8, tokens=64, hidden=1024, heads=16):
    """The zoo's `bert` as models/bert.hpp builds it from TASO's examples/bert.py: per layer
    x Wq, x Wk, x Wv, heads split by reshape + transpose, q @ k (k untransposed, no softmax),
    @ v, merged back, and x' = x Wo of the layer's input. The attention results nothing reads
    are returned with x' (the graph's outputs), so that no compiler drops them."""
    nn = torch.nn
    d = hidden // heads

    class TasoBert(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.ParameterList(nn.Parameter(torch.randn(hidden, hidden) / math.sqrt(hidden)) for _ in range(4 * layers))

        def forward(self, x):  # [tokens, hidden]
            attention = []
            for l in range(layers):
                wq, wk, wv, wo = self.w[4 * l : 4 * l + 4]
                q, k, v = ((x @ w).reshape(tokens, heads, d).transpose(0, 1) for w in (wq, wk, wv))
                out = ((q @ k) @ v).transpose(0, 1).reshape(tokens, hidden)
                attention.append(out)
                x = x @ wo
            return (x, *attention)

    return TasoBert(), (tokens, hidden), "torch (models/bert.hpp's graph, TASO's examples/bert.py)"


def bert_encoder_module(torch, layers=8, hidden=1024, heads=16, ffn=4096, tokens=64):
    """The BERT encoder stack of models/bert_encoder.hpp (post-LN, exact GELU, eps 1e-12) on
    embedded inputs: transformers' BertEncoder when installed, else torch.nn's identical layer."""
    transformers = try_import("transformers")
    if transformers is not None:
        from transformers.models.bert.modeling_bert import BertConfig, BertEncoder

        cfg = BertConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads, intermediate_size=ffn,
                         hidden_act="gelu", layer_norm_eps=1e-12, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        encoder = BertEncoder(cfg)

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = encoder

            def forward(self, x):
                return self.encoder(x)[0]

        return Wrapped(), (1, tokens, hidden), "transformers BertEncoder"
    layer = torch.nn.TransformerEncoderLayer(hidden, heads, ffn, dropout=0.0, activation="gelu", layer_norm_eps=1e-12,
                                             batch_first=True, norm_first=False)
    return torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False), (1, tokens, hidden), "torch.nn.TransformerEncoder"


def build(name, torch):
    """(module, input shape, source) or raises LookupError with the reason it is skipped."""
    tv = try_import("torchvision")
    if name in ("inception_v3", "resnet50", "resnext50_32x4d", "squeezenet1_1", "vit_b_16"):
        if tv is None:
            raise LookupError("torchvision is not installed")
        import torchvision.models as m

        if name == "inception_v3":
            return m.inception_v3(weights=None, aux_logits=False, init_weights=False), (1, 3, 299, 299), "torchvision"
        return getattr(m, name)(weights=None), (1, 3, 224, 224), "torchvision"
    if name == "nasnet_a_large":
        timm = try_import("timm")
        if timm is None:
            raise LookupError("timm is not installed")
        return timm.create_model("nasnetalarge", pretrained=False), (1, 3, 224, 224), "timm nasnetalarge"
    if name == "nasnet_a_mobile":
        raise LookupError("NASNet-A Mobile is in neither torchvision nor timm")
    if name == "randwire_ws":
        raise LookupError("RandWire-WS is in neither torchvision nor timm")
    if name == "rnntc_sru":
        module, shape = sru_module(torch)
        return module, shape, "torch (models/rnntc_sru.hpp's equations)"
    if name == "bert":
        return taso_bert_module(torch)
    if name == "bert_encoder_8x1024":
        return bert_encoder_module(torch)
    raise LookupError("no PyTorch equivalent known for " + name)


# ---- timing ---------------------------------------------------------------------------------

def time_callable(torch, fn, warmup, replays, repeats):
    """Median over repeats of the median of `replays` event-timed calls, in ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    medians = []
    for _ in range(repeats):
        samples = []
        for _ in range(replays):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        medians.append(statistics.median(samples))
    return statistics.median(medians)


def run_mode(torch, mode, model, x, args):
    if mode == "eager":
        return time_callable(torch, lambda: model(x), args.warmup, args.replays, args.repeats)
    if mode == "cuda_graph":
        static_x = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm up on a side stream before capture, as the PyTorch docs do
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            model(static_x)
        return time_callable(torch, graph.replay, args.warmup, args.replays, args.repeats)
    if mode == "compile":
        compiled = torch.compile(model)
        return time_callable(torch, lambda: compiled(x), args.warmup, args.replays, args.repeats)
    raise ValueError("unknown mode " + mode)


def main():
    args = parse_args()
    torch = try_import("torch")
    out = {"format": "autograph-pytorch-baselines", "version": 1, "results": {}}
    if torch is None or not torch.cuda.is_available():
        out["error"] = "PyTorch is not installed" if torch is None else "PyTorch sees no CUDA device"
        text = json.dumps(out, indent=2)
        print(text)
        if args.out:
            open(args.out, "w").write(text + "\n")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True  # measured algorithm choice, as autograph's cuDNN lowering
    out.update({
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "cuda": torch.version.cuda,
        "cudnn": str(torch.backends.cudnn.version()),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "batch": 1,
        "tf32": True,
        "replays": args.replays,
        "repeats": args.repeats,
    })
    for pkg in ("torchvision", "timm", "transformers"):
        mod = try_import(pkg)
        out[pkg] = getattr(mod, "__version__", "installed") if mod is not None else None
    names = args.models.split(",") if args.models else [
        "inception_v3", "resnet50", "resnext50_32x4d", "nasnet_a_large", "nasnet_a_mobile", "rnntc_sru", "bert", "bert_encoder_8x1024",
        "squeezenet1_1", "randwire_ws", "vit_b_16"]
    modes = [m for m in args.modes.split(",") if m]
    for name in names:
        entry = {}
        try:
            model, shape, source = build(name, torch)
        except LookupError as e:
            out["results"][name] = {"skipped": str(e)}
            print(f"[pytorch] {name}: skipped ({e})", file=sys.stderr)
            continue
        entry["source"] = source
        entry["input"] = list(shape)
        model = model.cuda().eval()
        x = torch.randn(*shape, device="cuda")
        with torch.inference_mode():
            for mode in modes:
                try:
                    entry[mode] = run_mode(torch, mode, model, x, args)
                    print(f"[pytorch] {name} {mode}: {entry[mode]:.3f} ms", file=sys.stderr)
                except Exception as e:  # one mode failing (e.g. torch.compile without a compiler) does not stop the rest
                    entry[mode + "_error"] = f"{type(e).__name__}: {e}"[:500]
                    print(f"[pytorch] {name} {mode} failed: {entry[mode + '_error']}", file=sys.stderr)
        out["results"][name] = entry
        del model
        torch.cuda.empty_cache()
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
