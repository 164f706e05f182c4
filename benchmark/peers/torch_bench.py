#!/usr/bin/python3
"""PyTorch on one model that cpu_bench wrote: one process of benchmark/cpu-peers.sh's rounds.

  /usr/bin/python3 torch_bench.py <dir>/<model>.io.json eager|torchscript <threads> <runs> <warmup> <budget_ms> [--check] [--native]

The module is built FROM THE ONNX FILE our exporter wrote: each ONNX node becomes one call
of torch / torch.nn.functional in a generated forward() (straight-line Python, so
torch.jit.trace records it exactly), and each initializer becomes a buffer. PyTorch therefore
runs the same architecture with the same weights on the same inputs as onnxruntime and us.

  eager        module(*inputs) under torch.inference_mode()
  torchscript  torch.jit.freeze(torch.jit.trace(module.eval(), inputs)), under inference_mode

--native (benchmark/cpu-peers.sh --transformers) runs PyTorch's own module of the architecture
instead: torchvision's vit_b_16 / vit_l_16, and detr_torch.py's DETR for detr_r50_e3/e6/e12, with
PyTorch's random initialization (their weights are not ours, so their outputs are not compared
with onnxruntime's). --check then compares the module's parameter count with the zoo model's
(the manifest's "parameters"), its output shapes with ours, and for DETR its constant position
encoding with our ONNX file's; it prints both counts and exits 2 on a mismatch.

Prints one JSON line: {"samples": [ms, ...], "setup_ms": ..., "version": ...}. Timing stops
after <runs> runs or once they sum to <budget_ms> (after at least 5). --check compares the
outputs with onnxruntime's (<model>.ort.out<i>.bin, written by ort_bench.js --write-outputs),
normwise, and exits 2 when they differ by more than 1e-4.
"""

import json
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def torch_pad(pads):
    """ONNX pads [x1_begin, x2_begin, ..., x1_end, x2_end, ...] as F.pad's (last axis first)."""
    n = len(pads) // 2
    out = []
    for axis in reversed(range(n)):
        out += [int(pads[axis]), int(pads[axis + n])]
    return out


class Codegen:
    """Straight-line Python for an ONNX graph: one statement per node."""

    def __init__(self, model):
        self.g = model.graph
        self.consts = {i.name: numpy_helper.to_array(i) for i in self.g.initializer}
        self.const_names = {}  # ONNX name -> buffer attribute
        self.var = {}          # ONNX value name -> Python expression
        self.lines = []
        self.inputs = [i.name for i in self.g.input if i.name not in self.consts]
        for k, name in enumerate(self.inputs):
            self.var[name] = f"x{k}"
        for node in self.g.node:
            self.emit(node)
        self.outputs = [self.ref(o.name) for o in self.g.output]

    def ref(self, name):
        if name in self.var:
            return self.var[name]
        if name in self.consts:
            attr = self.const_names.setdefault(name, f"c{len(self.const_names)}")
            return f"self.{attr}"
        raise ValueError(f"value '{name}' is used before it is computed")

    def const(self, name):
        """The value of an initializer that parametrises an op (shape, pads, axes)."""
        if name not in self.consts:
            raise ValueError(f"'{name}' must be an initializer (a constant) for this converter")
        return self.consts[name]

    def out(self, node, expr, k=0):
        v = f"v{len(self.lines)}_{k}"
        self.lines.append(f"{v} = {expr}")
        self.var[node.output[k]] = v
        return v

    def emit(self, node):
        op, a = node.op_type, attrs(node)
        x = [self.ref(i) if i else None for i in node.input[:1]]
        ins = lambda k: self.ref(node.input[k])  # noqa: E731
        unary = {"Relu": "torch.relu", "Sigmoid": "torch.sigmoid", "Tanh": "torch.tanh", "Erf": "torch.erf",
                 "Sqrt": "torch.sqrt", "Exp": "torch.exp", "Neg": "torch.neg", "Identity": ""}
        binary = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}
        if op in unary:
            self.out(node, f"{unary[op]}({x[0]})")
        elif op in binary:
            self.out(node, f"{x[0]} {binary[op]} {ins(1)}")
        elif op == "Pow":
            self.out(node, f"torch.pow({x[0]}, {ins(1)})")
        elif op == "MatMul":
            self.out(node, f"torch.matmul({x[0]}, {ins(1)})")
        elif op == "Gemm":
            if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
                raise ValueError("Gemm with transA, alpha or beta is not supported")
            w = ins(1) if a.get("transB", 0) else f"{ins(1)}.t()"
            b = ins(2) if len(node.input) > 2 and node.input[2] else "None"
            self.out(node, f"F.linear({x[0]}, {w}, {b})")
        elif op in ("Conv", "ConvTranspose"):
            rank = len(a.get("kernel_shape", self.const(node.input[1]).shape[2:]))
            pads = list(a.get("pads", [0] * 2 * rank))
            if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
                raise ValueError(f"{op} with auto_pad is not supported")
            src = x[0]
            if pads[:rank] != pads[rank:]:
                if op == "ConvTranspose":
                    raise ValueError("ConvTranspose with asymmetric pads is not supported")
                src = f"F.pad({src}, {torch_pad(pads)})"
                pads = [0] * 2 * rank
            b = ins(2) if len(node.input) > 2 and node.input[2] else "None"
            strides = list(a.get("strides", [1] * rank))
            dil = list(a.get("dilations", [1] * rank))
            if op == "Conv":
                self.out(node, f"F.conv{rank}d({src}, {ins(1)}, {b}, stride={strides}, padding={pads[:rank]}, dilation={dil}, groups={a.get('group', 1)})")
            else:
                outpad = list(a.get("output_padding", [0] * rank))
                self.out(node, f"F.conv_transpose{rank}d({src}, {ins(1)}, {b}, stride={strides}, padding={pads[:rank]}, "
                               f"output_padding={outpad}, groups={a.get('group', 1)}, dilation={dil})")
        elif op in ("MaxPool", "AveragePool"):
            k = list(a["kernel_shape"])
            rank = len(k)
            pads = list(a.get("pads", [0] * 2 * rank))
            strides = list(a.get("strides", [1] * rank))
            ceil = bool(a.get("ceil_mode", 0))
            src = x[0]
            if pads[:rank] != pads[rank:] or any(p > kk // 2 for p, kk in zip(pads, k + k)):
                fill = "float('-inf')" if op == "MaxPool" else "0.0"
                if op == "AveragePool" and not a.get("count_include_pad", 0):
                    # The mean over the window's input cells only: the zero-padded sum over the
                    # pooled count of cells that are not padding (the divisors cancel).
                    p = torch_pad(pads)
                    ones = f"F.pad(torch.ones_like({src}[:, :1]), {p})"
                    self.out(node, f"F.avg_pool{rank}d(F.pad({src}, {p}), {k}, {strides}, 0, ceil_mode={ceil}) / "
                                   f"F.avg_pool{rank}d({ones}, {k}, {strides}, 0, ceil_mode={ceil})")
                    return
                src = f"F.pad({src}, {torch_pad(pads)}, value={fill})"
                pads = [0] * 2 * rank
            if op == "MaxPool":
                dil = list(a.get("dilations", [1] * rank))
                self.out(node, f"F.max_pool{rank}d({src}, {k}, {strides}, {pads[:rank]}, {dil}, ceil_mode={ceil})")
            else:
                cip = bool(a.get("count_include_pad", 0))
                self.out(node, f"F.avg_pool{rank}d({src}, {k}, {strides}, {pads[:rank]}, ceil_mode={ceil}, count_include_pad={cip})")
        elif op == "GlobalAveragePool":
            self.out(node, f"torch.mean({x[0]}, dim=[2, 3], keepdim=True)")
        elif op == "GlobalMaxPool":
            self.out(node, f"torch.amax({x[0]}, dim=[2, 3], keepdim=True)")
        elif op == "Concat":
            self.out(node, f"torch.cat([{', '.join(self.ref(i) for i in node.input)}], {a['axis']})")
        elif op == "Split":
            axis = a.get("axis", 0)
            if len(node.input) < 2 or not node.input[1]:
                raise ValueError("Split without explicit sizes is not supported")
            sizes = [int(s) for s in self.const(node.input[1])]
            v = f"s{len(self.lines)}"
            self.lines.append(f"{v} = torch.split({x[0]}, {sizes}, {axis})")
            for k, o in enumerate(node.output):
                self.var[o] = f"{v}[{k}]"
        elif op == "Slice":
            starts, ends = self.const(node.input[1]), self.const(node.input[2])
            axes = self.const(node.input[3]) if len(node.input) > 3 and node.input[3] else range(len(starts))
            steps = self.const(node.input[4]) if len(node.input) > 4 and node.input[4] else [1] * len(starts)
            if any(s < 0 for s in steps):
                raise ValueError("Slice with negative steps is not supported")
            if any(ax < 0 for ax in axes):
                raise ValueError("Slice with negative axes is not supported")
            index = ["slice(None)"] * (max(axes) + 1)
            for s, e, ax, st in zip(starts, ends, axes, steps):
                index[ax] = f"slice({int(s)}, {min(int(e), 2**62)}, {int(st)})"
            self.out(node, f"{x[0]}[({', '.join(index)},)]")
        elif op == "Reshape":
            shape = [int(s) for s in self.const(node.input[1])]
            if a.get("allowzero", 0) and 0 in shape:
                raise ValueError("Reshape with allowzero is not supported")
            dims = [f"{x[0]}.shape[{i}]" if s == 0 else str(s) for i, s in enumerate(shape)]
            self.out(node, f"{x[0]}.reshape([{', '.join(dims)}])")
        elif op == "Flatten":
            axis = a.get("axis", 1)
            expr = f"{x[0]}.reshape([1, -1])" if axis == 0 else f"torch.flatten(torch.flatten({x[0]}, {axis}), 0, {axis - 1})"
            self.out(node, expr)
        elif op == "Transpose":
            self.out(node, f"{x[0]}.permute({list(a['perm'])})")
        elif op == "Softmax":
            self.out(node, f"torch.softmax({x[0]}, {a.get('axis', -1)})")
        elif op == "LayerNormalization":
            scale = self.const(node.input[1])
            if a.get("axis", -1) not in (-1, -scale.ndim) and scale.ndim != 1:
                raise ValueError("LayerNormalization over other axes than the last ones is not supported")
            b = ins(2) if len(node.input) > 2 and node.input[2] else "None"
            self.out(node, f"F.layer_norm({x[0]}, {list(scale.shape)}, {ins(1)}, {b}, {a.get('epsilon', 1e-5)})")
        elif op == "BatchNormalization":
            self.out(node, f"F.batch_norm({x[0]}, {ins(3)}, {ins(4)}, {ins(1)}, {ins(2)}, False, 0.0, {a.get('epsilon', 1e-5)})")
        elif op in ("ReduceMean", "ReduceSum"):
            axes = a.get("axes")
            if axes is None and len(node.input) > 1 and node.input[1]:
                axes = [int(v) for v in self.const(node.input[1])]
            if axes is None:
                raise ValueError(f"{op} over all axes is not supported")
            fn = "torch.mean" if op == "ReduceMean" else "torch.sum"
            self.out(node, f"{fn}({x[0]}, dim={list(axes)}, keepdim={bool(a.get('keepdims', 1))})")
        elif op == "Clip":
            lo = ins(1) if len(node.input) > 1 and node.input[1] else "None"
            hi = ins(2) if len(node.input) > 2 and node.input[2] else "None"
            self.out(node, f"torch.clamp({x[0]}, {lo}, {hi})")
        elif op == "LeakyRelu":
            self.out(node, f"F.leaky_relu({x[0]}, {a.get('alpha', 0.01)})")
        elif op == "HardSigmoid":
            self.out(node, f"torch.clamp({a.get('alpha', 0.2)} * {x[0]} + {a.get('beta', 0.5)}, 0.0, 1.0)")
        elif op == "Pad":
            mode = a.get("mode", b"constant")
            mode = mode.decode() if isinstance(mode, bytes) else mode
            pads = [int(p) for p in self.const(node.input[1])]
            value = float(self.const(node.input[2])) if len(node.input) > 2 and node.input[2] else 0.0
            extra = f", value={value}" if mode == "constant" else ""
            self.out(node, f"F.pad({x[0]}, {torch_pad(pads)}, mode='{mode}'{extra})")
        else:
            raise ValueError(f"ONNX op {op} (node '{node.name}') has no PyTorch translation here")

    def module(self):
        src = ["class Net(torch.nn.Module):",
               "    def __init__(self, consts):",
               "        super().__init__()",
               "        for name, value in consts.items():",
               "            self.register_buffer(name, value)",
               f"    def forward(self, {', '.join(self.var[n] for n in self.inputs)}):"]
        src += ["        " + line for line in self.lines]
        outs = ", ".join(self.outputs)
        src.append(f"        return {outs}" if len(self.outputs) == 1 else f"        return ({outs},)")
        scope = {"torch": torch, "F": F}
        exec("\n".join(src), scope)  # noqa: S102 - code generated above from the ONNX graph
        consts = {attr: torch.from_numpy(np.array(self.consts[name])) for name, attr in self.const_names.items()}
        return scope["Net"](consts).eval()


def native_module(io, d):
    """PyTorch's own module of the manifest's model (see --native), in eval mode."""
    import torchvision
    model = io["model"]
    if model in ("vit_b_16", "vit_l_16"):
        side = io["inputs"][0]["shape"][-1]
        return getattr(torchvision.models, model)(weights=None, image_size=side).eval()
    if model in ("detr_r50_e3", "detr_r50_e6", "detr_r50_e12"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import detr_torch
        return detr_torch.Detr(tuple(io["inputs"][0]["shape"][2:]), encoder_layers=int(model.rsplit("_e", 1)[1])).eval()
    sys.exit(f"torch_bench: --native: no PyTorch module of {model} here (known: vit_b_16, vit_l_16, detr_r50_e3/e6/e12)")


def native_checks(net, io, d, outs):
    """Parameter counts, output shapes and (DETR) the position encoding against ours; the failures' list."""
    ours, theirs = io.get("parameters"), sum(p.numel() for p in net.parameters())
    result = {"parameters_ours": ours, "parameters_torch": theirs}
    print(f"torch_bench: {io['model']}: parameters: ours {ours:,}, PyTorch's module {theirs:,}", file=sys.stderr)
    failed = [] if ours == theirs else [f"parameter counts differ: ours {ours}, PyTorch's {theirs}"]
    for k, (o, want) in enumerate(zip(outs, io["outputs"])):
        if list(o.shape) != want["shape"]:
            failed.append(f"output {k} has shape {list(o.shape)}, ours {want['shape']}")
    if len(outs) != len(io["outputs"]):
        failed.append(f"{len(outs)} outputs, ours {len(io['outputs'])}")
    if hasattr(net, "pos"):
        model = onnx.load(os.path.join(d, io["onnx"]))
        pos = [numpy_helper.to_array(i) for i in model.graph.initializer if "position_embedding" in i.name]
        if len(pos) != 1:
            failed.append("our ONNX file has no single position_embedding initializer to compare")
        else:
            err = float(np.abs(pos[0].reshape(-1) - net.pos.numpy().reshape(-1)).max())
            result["position_encoding_max_abs_diff"] = err
            if err > 1e-5:
                failed.append(f"position encodings differ by up to {err:.3g}")
    return result, failed


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    manifest, mode, threads, runs, warmup, budget = sys.argv[1:7]
    threads, runs, warmup, budget = int(threads), int(runs), int(warmup), float(budget)
    check = "--check" in sys.argv[7:]
    native = "--native" in sys.argv[7:]
    if mode not in ("eager", "torchscript"):
        sys.exit(f"torch_bench: mode must be eager or torchscript, got '{mode}'")
    torch.set_num_threads(threads)
    d = os.path.dirname(manifest)
    with open(manifest) as f:
        io = json.load(f)
    t0 = time.perf_counter()
    module = native_module(io, d) if native else Codegen(onnx.load(os.path.join(d, io["onnx"]))).module()
    net = module  # the frozen TorchScript below keeps no parameters to count: the checks read `module`
    inputs = [torch.from_numpy(np.fromfile(os.path.join(d, i["file"]), dtype=np.float32).reshape(i["shape"])) for i in io["inputs"]]
    with torch.inference_mode():
        if mode == "torchscript":
            net = torch.jit.freeze(torch.jit.trace(net, tuple(inputs)))
        setup_ms = (time.perf_counter() - t0) * 1e3
        out = None
        for _ in range(warmup):
            out = net(*inputs)
        samples = []
        while len(samples) < runs and not (budget > 0 and len(samples) >= 5 and sum(samples) >= budget):
            t = time.perf_counter()
            out = net(*inputs)
            samples.append((time.perf_counter() - t) * 1e3)
        if out is None:
            out = net(*inputs)
    result = {"samples": samples, "setup_ms": setup_ms, "version": torch.__version__, "native": native}
    if check and native:
        outs = out if isinstance(out, tuple) else (out,)
        checks, failed = native_checks(module, io, d, outs)
        result.update(checks)
        if failed:
            print(json.dumps(result))
            sys.exit("torch_bench: " + "; ".join(failed))
    elif check:
        outs = out if isinstance(out, tuple) else (out,)
        worst = 0.0
        for k, o in enumerate(outs):
            ref = np.fromfile(os.path.join(d, f"{io['model']}.ort.out{k}.bin"), dtype=np.float32)
            got = o.detach().numpy().astype(np.float32).reshape(-1)
            if got.size != ref.size:
                sys.exit(f"torch_bench: output {k} has {got.size} values, onnxruntime's {ref.size}")
            worst = max(worst, float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30)))
        result["normwise_vs_ort"] = worst
        if worst > 1e-4:
            print(json.dumps(result))
            sys.exit(2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
