#!/usr/bin/env python3
"""Our kernels and onnxruntime's, per operator class, on the same models: benchmark/op-gap.sh's table.

  python3 op_gap.py ours.json MODEL.ort.json [MODEL.ort.json ...]

ours.json is benchmark/cpu_op_profile's --out (each kernel alone, medians of its runs, with every
core and with one); each MODEL.ort.json is benchmark/peers/ort_profile.py's --out
(onnxruntime's per-node kernel times inside whole runs, medians over the runs). The two measure
differently (a kernel alone against a kernel inside a model run), so each side's sum is set
beside its own end-to-end latency; what a class costs is compared, not how it was timed.

onnxruntime folds BatchNorm into convolutions and fuses activations into them at session
creation (FusedConv); our model as built runs them as kernels of their own. The classes keep
that visible: "conv" is every convolution kernel (with whatever it fused), "elementwise" the
passes of their own (BatchNorm, activations, Add, ...).
"""
import json
import sys

# Operator type -> class, for both sides' names (ours: the op's name in a cost-table signature;
# onnxruntime's: the ONNX or contrib op its profiler names).
CLASSES = {
    "conv": {"Conv2D", "ConvTranspose2D", "Conv", "FusedConv", "NhwcFusedConv", "ConvTranspose", "QLinearConv"},
    "matmul": {"MatMul", "Gemm", "FusedMatMul", "FusedGemm", "MatMulNBits"},
    "pool": {"Pool2D", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"},
    "concat/split": {"Concat", "Split", "Slice", "Pad"},
    "elementwise": {"BatchNorm", "BatchNormalization", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Relu", "Sigmoid",
                    "Tanh", "Gelu", "Exp", "Log", "Sqrt", "Erf", "Neg", "Abs", "Reciprocal", "LeakyRelu", "Clip",
                    "HardSigmoid", "HardSwish", "Scale", "Identity", "BiasGelu", "Sum"},
    "norm/softmax": {"LayerNorm", "LayerNormalization", "SkipLayerNormalization", "AddLayerNorm", "Softmax",
                     "FusedAttention", "Attention", "ReduceMean", "Reduce"},
    "layout": {"Reshape", "Transpose", "Resize", "Enlarge", "ReorderInput", "ReorderOutput", "Flatten", "Squeeze",
               "Unsqueeze", "Gather", "Shape", "Cast"},
}
CLASS_OF = {op.lower(): c for c, ops in CLASSES.items() for op in ops}


def op_class(op):
    return CLASS_OF.get(op.lower(), "other")


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: op_gap.py ours.json MODEL.ort.json [MODEL.ort.json ...]")
    with open(argv[1]) as f:
        ours = json.load(f)
    ort_by_model = {}
    for path in argv[2:]:
        with open(path) as f:
            ort_by_model[path.rsplit("/", 1)[-1].removesuffix(".ort.json")] = json.load(f)
    cores = ours["cores"]
    print(f"Ours: {ours['cpu']}, {ours['date']}.\n")
    for m in ours["models"]:
        name = m["model"]
        ort = ort_by_model.get(name)
        if ort is None:
            print(f"{name}: no onnxruntime profile\n")
            continue
        rows = {}
        for op, s in m["by_type"].items():
            r = rows.setdefault(op_class(op), {"ours": 0.0, "ours1": 0.0, "ort": 0.0, "ours_ops": set(), "ort_ops": set()})
            r["ours"] += s["ms_all_cores"]
            r["ours1"] += s["ms_one_core"]
            r["ours_ops"].add(f"{op} {s['kernels']}")
        for op, s in ort["by_op"].items():
            r = rows.setdefault(op_class(op), {"ours": 0.0, "ours1": 0.0, "ort": 0.0, "ours_ops": set(), "ort_ops": set()})
            r["ort"] += s["ms_per_run"]
            r["ort_ops"].add(f"{op} {s['nodes']}")
        ours_sum = sum(r["ours"] for r in rows.values())
        ort_sum = sum(r["ort"] for r in rows.values())
        print(f"### {name}\n")
        print(f"| class | ours, ms ({cores} cores) | onnxruntime, ms | ours / onnxruntime | ours, 1 core | our kernels | onnxruntime's kernels |")
        print("|---|---|---|---|---|---|---|")
        for c, r in sorted(rows.items(), key=lambda kv: -max(kv[1]["ours"], kv[1]["ort"])):
            ratio = f"{r['ours'] / r['ort']:.2f}x" if r["ort"] > 0 else "(none)"
            print(f"| {c} | {r['ours']:.2f} | {r['ort']:.2f} | {ratio} | {r['ours1']:.2f} | {', '.join(sorted(r['ours_ops']))} | "
                  f"{', '.join(sorted(r['ort_ops']))} |")
        print(f"| **kernels' sum** | {ours_sum:.2f} | {ort_sum:.2f} | {ours_sum / ort_sum:.2f}x | {m['sum_ms_one_core']:.2f} | | |")
        print(f"| **whole model, one stream** (onnxruntime: profiled) | {m['one_stream_ms']:.2f} | {ort['e2e_ms']['median']:.2f} | "
              f"{m['one_stream_ms'] / ort['e2e_ms']['median']:.2f}x | {m['one_core_ms']:.2f} | | |")
        plain = ort["e2e_unprofiled_ms"]["median"]
        print(f"| **whole model, one stream** (onnxruntime: not profiled) | {m['one_stream_ms']:.2f} | {plain:.2f} | "
              f"{m['one_stream_ms'] / plain:.2f}x | | | |\n")
        print(f"Onnxruntime {ort.get('ort_version', '?')}, {ort.get('mode', '?')} mode, {ort.get('threads', '?')} threads, "
              f"{ort.get('runs', '?')} runs. The most any stream schedule of our kernels can gain over one stream on {cores} "
              f"cores: {m['stream_gain_bound']:.2f}x if the cores did not slow each other (cpu_op_profile's bound), "
              f"{m['measured_stream_gain_bound']:.2f}x as measured ({cores} copies of the model on {cores} streams, a core each, "
              f"{m['copies_on_streams_ms']:.2f} ms against {m['one_core_ms']:.2f} ms for one copy on one core).\n")


if __name__ == "__main__":
    main(sys.argv)
