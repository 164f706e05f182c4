#!/usr/bin/env python3
"""Where PyTorch's GPU time goes, kernel by kernel, for the models of pytorch_baselines.py.

gpu_bench's --profiles gives the same for autograph's CUDA runtime (every kernel signature's
marginal time inside a CUDA graph, and how many nodes have it); set side by side per operator
type, the two say which of our kernels are slower than PyTorch's and by how much.

Each model runs in eager mode under the settings pytorch_baselines.py uses (TF32 allowed,
cudnn.benchmark on, so cuDNN's algorithm choice is measured as ours is), warms up, then
torch.profiler records the GPU kernels of --iters forward passes. A kernel's time is its device
time summed over those passes and divided by --iters; kernels are also summed by a coarse class
read off their names (convolution, GEMM, layout transform, elementwise, reduction, pooling,
copy/concat, other), which is a reading of names, not of what the kernel computes.

  python3 benchmark/gpu_kernel_breakdown.py --models inception_v3,resnet50 --out kernels.json
"""

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_baselines  # noqa: E402  (the same architectures and settings)

CLASSES = [  # first match wins; names are CUDA kernel symbols as the profiler reports them
    ("layout", r"nchwToNhwc|nhwcToNchw|transpose|permute|convertTensor|convert_tensor"),
    ("conv", r"conv|xmma_fprop|implicit_gemm|winograd|fft|precomputed|dgrad|wgrad|cudnn"),
    ("gemm", r"gemm|cutlass|sm90_xmma|sm80_xmma|ampere_sgemm|Kernel2|splitK|gemv|matmul|cublas"),
    ("pool", r"pool"),
    ("reduction", r"reduce|softmax|norm|batch_norm|bn_fw"),
    ("copy/concat", r"cat|copy|Memcpy|memcpy|CatArray"),
    ("elementwise", r"elementwise|vectorized|unrolled|add|mul|relu|activation|clamp|sigmoid|tanh|gelu"),
]


def kernel_class(name):
    for cls, pattern in CLASSES:
        if re.search(pattern, name, re.IGNORECASE):
            return cls
    return "other"


def profile_model(torch, name, iters, warmup):
    model, shape, source = pytorch_baselines.build(name, torch)
    model = model.cuda().eval()
    x = torch.randn(*shape, device="cuda")
    from torch.profiler import ProfilerActivity, profile

    with torch.inference_mode():
        for _ in range(warmup):
            model(x)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                model(x)
            torch.cuda.synchronize()
    kernels = {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0.0)
        if us <= 0:
            continue
        kernels[e.key] = {"us": us / iters, "launches": e.count / iters, "class": kernel_class(e.key)}
    classes = {}
    for k in kernels.values():
        c = classes.setdefault(k["class"], {"us": 0.0, "launches": 0.0})
        c["us"] += k["us"]
        c["launches"] += k["launches"]
    del model
    torch.cuda.empty_cache()
    return {
        "source": source,
        "input": list(shape),
        "total_us": sum(k["us"] for k in kernels.values()),
        "launches": sum(k["launches"] for k in kernels.values()),
        "classes": classes,
        "kernels": dict(sorted(kernels.items(), key=lambda kv: -kv[1]["us"])),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="inception_v3,resnet50,squeezenet1_1")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--out")
    args = p.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("gpu_kernel_breakdown: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    out = {"format": "autograph-pytorch-kernels", "version": 1, "torch": torch.__version__,
           "device": torch.cuda.get_device_name(0), "cudnn": str(torch.backends.cudnn.version()),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "iters": args.iters, "models": {}}
    for name in args.models.split(","):
        try:
            r = profile_model(torch, name, args.iters, args.warmup)
        except LookupError as e:
            out["models"][name] = {"skipped": str(e)}
            continue
        out["models"][name] = r
        print(f"== {name}: {r['total_us']:.1f} us of kernels, {r['launches']:.0f} launches per pass", file=sys.stderr)
        for c, v in sorted(r["classes"].items(), key=lambda kv: -kv[1]["us"]):
            print(f"   {c:12s} {v['us']:9.1f} us  {v['launches']:5.0f} launches", file=sys.stderr)
        for k, v in list(r["kernels"].items())[:12]:
            print(f"   {v['us']:8.1f} us x{v['launches']:4.0f}  {k[:110]}", file=sys.stderr)
    text = json.dumps(out, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
