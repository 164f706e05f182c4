#!/usr/bin/env python3
"""Our convolutions against PyTorch's, shape by shape, on the GPU at hand.

Reads gpu_bench's --profiles JSON (each kernel signature's marginal time inside a CUDA graph on
autograph's CUDA runtime, and how many nodes of the model have it), and times every Conv2D
signature with symmetric padding in PyTorch the same way: `copies` launches of F.conv2d
captured in one CUDA graph against one, (T(copies) - T(1)) / (copies - 1), each T the median
of `repeats` timings of `replays` back-to-back replays between CUDA events. TF32 allowed and
cudnn.benchmark on, as in pytorch_baselines.py; NCHW (PyTorch's default) and channels-last.
Also records, for one NCHW call, the names of the kernels PyTorch launches.
Asymmetric paddings (NASNet's stride-2 cells) are listed as skipped: F.conv2d takes one pad per side pair.

  python3 benchmark/gpu_conv_shapes.py --profiles profiles.json --models resnet50 --out convs.json
"""

import argparse
import json
import re
import statistics
import sys
import time

SIG = re.compile(r"^Conv2D\{s(\d+),(\d+) p(\d+),(\d+),(\d+),(\d+)(?: d(\d+),(\d+))?(?: g(\d+))?([^}]*)\}"
                 r"\(f32\[(\d+),(\d+),(\d+),(\d+)\],f32\[(\d+),(\d+),(\d+),(\d+)\]")


def parse(sig):
    m = SIG.match(sig)
    if not m:
        return None
    g = [int(v) if v and v.isdigit() else v for v in m.groups()]
    sh, sw, pt, pl, pb, pr, dh, dw, groups, rest, n, c, h, w, k, cg, r, s = g
    return {"stride": (sh, sw), "pad": (pt, pl, pb, pr), "dilation": (dh or 1, dw or 1), "groups": groups or 1,
            "extra": rest.strip(), "x": (n, c, h, w), "w": (k, cg, r, s)}


def graph_time_us(torch, fn, copies, replays, repeats):
    def one(count):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(count):
                fn()
        for _ in range(5):
            g.replay()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(repeats):
            start.record()
            for _ in range(replays):
                g.replay()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / replays)
        return statistics.median(samples)

    return max(0.0, (one(copies) - one(1)) / (copies - 1)) * 1000.0


def kernel_names(torch, fn):
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.key[:90] for e in prof.key_averages() if getattr(e, "self_device_time_total", 0) > 0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profiles", required=True)
    p.add_argument("--models", help="comma-separated (default: every model in the profiles)")
    p.add_argument("--copies", type=int, default=11)
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out")
    args = p.parse_args()
    import torch
    import torch.nn.functional as F

    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    profiles = json.load(open(args.profiles))
    names = args.models.split(",") if args.models else list(profiles)
    out = {"format": "autograph-conv-shapes", "version": 1, "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
           "cudnn": str(torch.backends.cudnn.version()), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "method": f"marginal launch in a CUDA graph, {args.copies} copies vs 1", "models": {}}
    for model in names:
        prof = profiles[model]
        table = next(iter(prof["devices"].values()))
        occurrences = prof["measured"]["occurrences"]
        rows = []
        for sig, ours in sorted(table.items(), key=lambda kv: -kv[1] * occurrences.get(kv[0], 0)):
            if not sig.startswith("Conv2D"):
                continue
            c = parse(sig)
            row = {"signature": sig, "ours_us": ours, "occurrences": occurrences.get(sig, 0)}
            if c is None or c["extra"]:
                row["skipped"] = "signature not understood" if c is None else "fused activation: " + c["extra"]
            elif c["pad"][0] != c["pad"][2] or c["pad"][1] != c["pad"][3]:
                row["skipped"] = "asymmetric padding"
            else:
                x = torch.randn(*c["x"], device="cuda")
                w = torch.randn(*c["w"], device="cuda")
                kw = dict(stride=c["stride"], padding=(c["pad"][0], c["pad"][1]), dilation=c["dilation"], groups=c["groups"])
                with torch.inference_mode():
                    row["torch_nchw_us"] = graph_time_us(torch, lambda: F.conv2d(x, w, **kw), args.copies, args.replays, args.repeats)
                    xl, wl = x.to(memory_format=torch.channels_last), w.to(memory_format=torch.channels_last)
                    row["torch_nhwc_us"] = graph_time_us(torch, lambda: F.conv2d(xl, wl, **kw), args.copies, args.replays, args.repeats)
                    row["torch_kernels"] = kernel_names(torch, lambda: F.conv2d(x, w, **kw))
            rows.append(row)
            if "skipped" not in row:
                print(f"[{model}] ours {ours:7.2f} us  torch nchw {row['torch_nchw_us']:7.2f}  nhwc {row['torch_nhwc_us']:7.2f}  "
                      f"x{row['occurrences']}  {sig}", file=sys.stderr)
        out["models"][model] = rows
    text = json.dumps(out, indent=1)
    if args.out:
        open(args.out, "w").write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
