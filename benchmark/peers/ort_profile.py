#!/usr/bin/env python3
"""Per-node profile of onnxruntime's CPU execution provider on an ONNX model.

What it is for (issue 14): we benchmark our runtime against onnxruntime, and
the end-to-end numbers alone do not say *where* onnxruntime wins or loses.
This script runs a model under onnxruntime's built-in profiler and reports
how its kernel time splits by op type (Conv/FusedConv, Gemm, pooling, ...)
and by node, so the same breakdown from our side can be compared op type by
op type.

Why ctypes: the peer we benchmark is the Node package onnxruntime-node
(1.20.1, ./node_modules/onnxruntime-node), whose JS binding does not
implement profiling (no enableProfiling / endProfiling), and this machine has
no onnxruntime Python package and no ORT C headers.  So this script loads the
very same native library the Node package ships
(bin/napi-v3/linux/x64/libonnxruntime.so.1.20.1) and drives its C API
directly: OrtGetApiBase() -> GetApi(ORT_API_VERSION) -> a table of function
pointers (struct OrtApi in onnxruntime_c_api.h).  The table is append-only
across ORT releases, so the index of each function we call (see ORT_FN below)
is stable; a cheap status round trip checks the layout at start-up.

How to run (from the repository root; standard library only):

    python3 benchmark/peers/ort_profile.py /tmp/onnx/inception_v3.onnx \
        --input image=1x3x299x299 --threads 2 --runs 20 --warmup 3 \
        --mode sequential --out /tmp/ort_inception_profile.json

stdout: one JSON object (ort_version, threads, mode, runs, e2e_ms{median,
samples}, kernel_ms_per_run, by_op{op: {nodes, ms_per_run}}, nodes[{name, op,
ms}]).  stderr: a table per op type (nodes, ms per run, share of kernel time),
the end-to-end median and the kernel sum.  Inputs are float32, filled with
deterministic pseudo-random values in [-1, 1].

Notes on the numbers:
  * Only the timed runs count: ORT writes one "model_run" event (cat
    "Session") per Run() call; node events are assigned to the run whose
    [ts, ts+dur] interval contains them, and the first --warmup runs are
    dropped.
  * Node time is the "<node>_kernel_time" event's dur (microseconds), i.e.
    the kernel's Compute() only; the gap to the end-to-end time is executor,
    allocation and input/output handling overhead (and some profiler
    overhead: the end-to-end median here is measured with profiling on; the
    same model in a session without the profiler is timed afterwards, its
    median e2e_unprofiled_ms).
  * In --mode parallel, nodes on different branches run concurrently, so the
    kernel sum adds up overlapping times and is not a share of wall time.
  * With the default graph optimizations the CPU EP converts convolutions to
    its blocked NCHWc layout (node names end in "_nchwc", op_name stays
    "Conv", with Relu/BatchNorm folded in), so expect "Conv", not
    "FusedConv", plus Reorder* nodes where the layout changes (for
    inception_v3 a single ReorderOutput).
  * Timings are only meaningful on an otherwise idle machine.
  * ORT errors (wrong input name or shape, bad model, ...) are reported as
    "ort_profile: <call>: <ORT message>" with exit status 1; bad --input
    syntax exits with status 2.
"""

import argparse
import array
import bisect
import ctypes
import json
import os
import random
import statistics
import sys
import tempfile
import time

ORT_API_VERSION = 20  # onnxruntime 1.20.x

DEFAULT_LIB = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "node_modules", "onnxruntime-node", "bin", "napi-v3", "linux", "x64",
    "libonnxruntime.so.1.20.1")

# Position of each function we use in struct OrtApi (onnxruntime_c_api.h),
# counted from the first member (CreateStatus = 0).
ORT_FN = {
    "CreateStatus": 0,
    "GetErrorCode": 1,
    "GetErrorMessage": 2,
    "CreateEnv": 3,
    "CreateSession": 7,
    "Run": 9,
    "CreateSessionOptions": 10,
    "SetSessionExecutionMode": 13,
    "EnableProfiling": 14,
    "SetSessionGraphOptimizationLevel": 23,
    "SetIntraOpNumThreads": 24,
    "SetInterOpNumThreads": 25,
    "SessionGetInputCount": 30,
    "SessionGetOutputCount": 31,
    "SessionGetInputName": 36,
    "SessionGetOutputName": 37,
    "CreateTensorWithDataAsOrtValue": 49,
    "CreateCpuMemoryInfo": 69,
    "AllocatorFree": 76,
    "GetAllocatorWithDefaultOptions": 78,
    "ReleaseEnv": 92,
    "ReleaseStatus": 93,
    "ReleaseMemoryInfo": 94,
    "ReleaseSession": 95,
    "ReleaseValue": 96,
    "ReleaseSessionOptions": 100,
    "SessionEndProfiling": 110,
}

# Enum values from onnxruntime_c_api.h
ORT_LOGGING_LEVEL_ERROR = 3
ORT_INVALID_ARGUMENT = 2
ORT_ENABLE_ALL = 99
EXECUTION_MODES = {"sequential": 0, "parallel": 1}  # ORT_SEQUENTIAL, ORT_PARALLEL
ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1
ORT_ARENA_ALLOCATOR = 1
ORT_MEM_TYPE_DEFAULT = 0

P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)


class OrtError(Exception):
    def __init__(self, call, message):
        super().__init__("%s: %s" % (call, message))
        self.call = call
        self.message = message


class _OrtApiBase(ctypes.Structure):
    _fields_ = [
        ("GetApi", ctypes.CFUNCTYPE(P, ctypes.c_uint32)),
        ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p)),
    ]


class Ort:
    """Thin ctypes view of the OrtApi function table (only what we need)."""

    # name -> (restype, argtypes); OrtStatus* is returned as c_void_p.
    _SIGS = {
        "CreateStatus": (P, [ctypes.c_int, ctypes.c_char_p]),
        "GetErrorCode": (ctypes.c_int, [P]),
        "GetErrorMessage": (ctypes.c_char_p, [P]),
        "CreateEnv": (P, [ctypes.c_int, ctypes.c_char_p, PP]),
        "CreateSession": (P, [P, ctypes.c_char_p, P, PP]),
        "Run": (P, [P, P, ctypes.POINTER(ctypes.c_char_p), PP, ctypes.c_size_t,
                    ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, PP]),
        "CreateSessionOptions": (P, [PP]),
        "SetSessionExecutionMode": (P, [P, ctypes.c_int]),
        "EnableProfiling": (P, [P, ctypes.c_char_p]),
        "SetSessionGraphOptimizationLevel": (P, [P, ctypes.c_int]),
        "SetIntraOpNumThreads": (P, [P, ctypes.c_int]),
        "SetInterOpNumThreads": (P, [P, ctypes.c_int]),
        "SessionGetInputCount": (P, [P, ctypes.POINTER(ctypes.c_size_t)]),
        "SessionGetOutputCount": (P, [P, ctypes.POINTER(ctypes.c_size_t)]),
        "SessionGetInputName": (P, [P, ctypes.c_size_t, P, PP]),
        "SessionGetOutputName": (P, [P, ctypes.c_size_t, P, PP]),
        "CreateTensorWithDataAsOrtValue": (
            P, [P, P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64),
                ctypes.c_size_t, ctypes.c_int, PP]),
        "CreateCpuMemoryInfo": (P, [ctypes.c_int, ctypes.c_int, PP]),
        "AllocatorFree": (P, [P, P]),
        "GetAllocatorWithDefaultOptions": (P, [PP]),
        "ReleaseEnv": (None, [P]),
        "ReleaseStatus": (None, [P]),
        "ReleaseMemoryInfo": (None, [P]),
        "ReleaseSession": (None, [P]),
        "ReleaseValue": (None, [P]),
        "ReleaseSessionOptions": (None, [P]),
        "SessionEndProfiling": (P, [P, P, PP]),
    }

    def __init__(self, lib_path):
        try:
            self.lib = ctypes.CDLL(lib_path)
        except OSError as e:
            raise OrtError("load library", str(e))
        get_base = self.lib.OrtGetApiBase
        get_base.restype = ctypes.POINTER(_OrtApiBase)
        get_base.argtypes = []
        base = get_base().contents
        self.version = base.GetVersionString().decode()
        api = base.GetApi(ORT_API_VERSION)
        if not api:
            raise OrtError("GetApi", "library %s (version %s) does not provide "
                           "API version %d" % (lib_path, self.version,
                                               ORT_API_VERSION))
        table = ctypes.cast(api, PP)
        for name, (restype, argtypes) in self._SIGS.items():
            addr = table[ORT_FN[name]]
            if not addr:
                raise OrtError("GetApi", "OrtApi entry %s is NULL" % name)
            setattr(self, name, ctypes.CFUNCTYPE(restype, *argtypes)(addr))
        self._check_layout()

    def _check_layout(self):
        # CreateStatus / GetErrorCode / GetErrorMessage / ReleaseStatus round
        # trip: if the table indices were off, this would not give back what
        # went in.
        st = self.CreateStatus(ORT_INVALID_ARGUMENT, b"ort_profile probe")
        try:
            ok = (st and self.GetErrorCode(st) == ORT_INVALID_ARGUMENT
                  and self.GetErrorMessage(st) == b"ort_profile probe")
        finally:
            if st:
                self.ReleaseStatus(st)
        if not ok:
            raise OrtError("GetApi", "OrtApi table layout check failed "
                           "(unexpected library version?)")

    def check(self, call, status):
        """Raise OrtError (and release the status) if status is an error."""
        if status:
            msg = self.GetErrorMessage(status)
            msg = msg.decode(errors="replace") if msg else "(no message)"
            self.ReleaseStatus(status)
            raise OrtError(call, msg)

    def call(self, name, *args):
        self.check(name, getattr(self, name)(*args))

    def session_names(self, session, allocator, which):
        count_fn, name_fn = (("SessionGetInputCount", "SessionGetInputName")
                             if which == "input" else
                             ("SessionGetOutputCount", "SessionGetOutputName"))
        n = ctypes.c_size_t()
        self.call(count_fn, session, ctypes.byref(n))
        names = []
        for i in range(n.value):
            p = P()
            self.call(name_fn, session, i, allocator, ctypes.byref(p))
            names.append(ctypes.string_at(p.value).decode())
            self.call("AllocatorFree", allocator, p)
        return names


def parse_input(spec):
    """'NAME=1x3x299x299' -> (name, [1, 3, 299, 299]); ValueError if bad."""
    name, sep, dims = spec.rpartition("=")
    if not sep or not name or not dims:
        raise ValueError("expected NAME=D1xD2x..., e.g. image=1x3x299x299")
    try:
        shape = [int(d) for d in dims.lower().split("x")]
    except ValueError:
        raise ValueError("dimensions must be positive integers separated by "
                         "'x', e.g. 1x3x299x299")
    if not shape or any(d <= 0 for d in shape):
        raise ValueError("dimensions must be positive integers separated by "
                         "'x', e.g. 1x3x299x299")
    return name, shape


def random_input(shape, seed):
    n = 1
    for d in shape:
        n *= d
    rng = random.Random(seed)
    u = rng.random
    return array.array("f", (2.0 * u() - 1.0 for _ in range(n)))


def analyse_trace(events, warmup, runs):
    """Split the Chrome-trace events into runs, drop warm-up, aggregate.

    Returns (per_run_node_us, node_op, n_runs_seen) where per_run_node_us is
    a list (one entry per timed run) of {node name: summed kernel us}.
    """
    model_runs = sorted((e for e in events
                         if e.get("cat") == "Session"
                         and e.get("name") == "model_run"),
                        key=lambda e: e["ts"])
    if len(model_runs) != warmup + runs:
        print("ort_profile: warning: trace has %d model_run events, expected "
              "%d (warmup %d + runs %d); using the last %d"
              % (len(model_runs), warmup + runs, warmup, runs,
                 min(runs, len(model_runs))), file=sys.stderr)
    timed = model_runs[-runs:] if runs <= len(model_runs) else model_runs
    starts = [e["ts"] for e in timed]
    per_run = [dict() for _ in timed]
    node_op = {}
    for e in events:
        if e.get("cat") != "Node":
            continue
        name = e.get("name", "")
        if not name.endswith("_kernel_time"):
            continue
        ts = e.get("ts", 0)
        k = bisect.bisect_right(starts, ts) - 1
        if k < 0 or ts > timed[k]["ts"] + timed[k]["dur"]:
            continue  # belongs to a warm-up run (or outside any run)
        node = name[: -len("_kernel_time")]
        args = e.get("args", {})
        node_op.setdefault(node, args.get("op_name", "?"))
        per_run[k][node] = per_run[k].get(node, 0) + e.get("dur", 0)
    return per_run, node_op, len(model_runs)


def summarise(per_run, node_op):
    def med_ms(values):
        return statistics.median(values) / 1000.0 if values else 0.0

    nodes = []
    for node, op in node_op.items():
        nodes.append({"name": node, "op": op,
                      "ms": round(med_ms([r.get(node, 0) for r in per_run]), 4)})
    nodes.sort(key=lambda x: x["ms"], reverse=True)

    ops = sorted(set(node_op.values()))
    by_op = {}
    for op in ops:
        members = [n for n, o in node_op.items() if o == op]
        sums = [sum(r.get(n, 0) for n in members) for r in per_run]
        by_op[op] = {"nodes": len(members), "ms_per_run": round(med_ms(sums), 4)}
    by_op = dict(sorted(by_op.items(), key=lambda kv: kv[1]["ms_per_run"],
                        reverse=True))
    kernel = med_ms([sum(r.values()) for r in per_run])
    return round(kernel, 4), by_op, nodes


def print_table(result, out=sys.stderr):
    kernel = result["kernel_ms_per_run"]
    print("onnxruntime %s CPU EP, threads %d, %s, %d timed runs"
          % (result["ort_version"], result["threads"], result["mode"],
             result["runs"]), file=out)
    print("%-28s %6s %12s %8s" % ("op type", "nodes", "ms/run", "share"),
          file=out)
    for op, v in result["by_op"].items():
        share = 100.0 * v["ms_per_run"] / kernel if kernel else 0.0
        print("%-28s %6d %12.3f %7.1f%%" % (op, v["nodes"], v["ms_per_run"],
                                            share), file=out)
    e2e = result["e2e_ms"]["median"]
    print("%-28s %6d %12.3f" % ("kernel sum (median/run)",
                                len(result["nodes"]), kernel), file=out)
    print("end-to-end median: %.3f ms; kernel sum %.3f ms = %.1f%% of it"
          % (e2e, kernel, 100.0 * kernel / e2e if e2e else 0.0), file=out)
    print("end-to-end median without the profiler (timed after): %.3f ms"
          % result["e2e_unprofiled_ms"]["median"], file=out)


def profile(args, inputs):
    ort = Ort(args.lib)
    env = P()
    opts = P()
    session = P()
    plain_opts = P()  # the same session without the profiler, timed between the profiled runs
    plain = P()
    meminfo = P()
    in_values = []
    out_values = None
    tmpdir = tempfile.mkdtemp(prefix="ort_profile_")
    trace_path = None
    try:
        ort.call("CreateEnv", ORT_LOGGING_LEVEL_ERROR, b"ort_profile",
                 ctypes.byref(env))
        ort.call("CreateSessionOptions", ctypes.byref(opts))
        ort.call("SetIntraOpNumThreads", opts, args.threads)
        ort.call("SetInterOpNumThreads", opts, args.threads)
        ort.call("SetSessionGraphOptimizationLevel", opts, ORT_ENABLE_ALL)
        ort.call("SetSessionExecutionMode", opts, EXECUTION_MODES[args.mode])
        ort.call("EnableProfiling", opts,
                 os.path.join(tmpdir, "ort").encode())
        ort.call("CreateSession", env, os.fsencode(args.model), opts,
                 ctypes.byref(session))

        allocator = P()
        ort.call("GetAllocatorWithDefaultOptions", ctypes.byref(allocator))
        model_inputs = ort.session_names(session, allocator, "input")
        output_names = ort.session_names(session, allocator, "output")

        ort.call("CreateCpuMemoryInfo", ORT_ARENA_ALLOCATOR,
                 ORT_MEM_TYPE_DEFAULT, ctypes.byref(meminfo))
        buffers = []  # keep the data alive while the OrtValues exist
        for i, (name, shape) in enumerate(inputs):
            data = random_input(shape, seed=1234 + i)
            buffers.append(data)
            addr, n = data.buffer_info()
            dims = (ctypes.c_int64 * len(shape))(*shape)
            value = P()
            ort.call("CreateTensorWithDataAsOrtValue", meminfo, P(addr),
                     n * data.itemsize, dims, len(shape),
                     ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ctypes.byref(value))
            in_values.append(value)

        n_in, n_out = len(inputs), len(output_names)
        c_in_names = (ctypes.c_char_p * n_in)(
            *[name.encode() for name, _ in inputs])
        c_in_values = (P * n_in)(*[v.value for v in in_values])
        c_out_names = (ctypes.c_char_p * n_out)(
            *[n.encode() for n in output_names])

        def run_once(s):
            nonlocal out_values
            out_values = (P * n_out)()
            t0 = time.perf_counter()
            status = ort.Run(s, None, c_in_names, c_in_values, n_in,
                             c_out_names, n_out, out_values)
            t1 = time.perf_counter()
            if status:
                try:
                    ort.check("Run", status)
                except OrtError as e:
                    raise OrtError(e.call, "%s (model inputs: %s)"
                                   % (e.message, ", ".join(model_inputs)))
            for v in out_values:
                if v:
                    ort.ReleaseValue(v)
            out_values = None
            return (t1 - t0) * 1000.0

        # The same model in a session without the profiler, timed after the profiled one
        # (not alternated with it: two sessions' thread pools, each spinning after its runs,
        # took the cores from each other and doubled both latencies on NASNet-A Mobile): the
        # plain runs say what profiling costs.
        samples = [run_once(session) for _ in range(args.warmup + args.runs)][args.warmup:]
        ort.call("CreateSessionOptions", ctypes.byref(plain_opts))
        ort.call("SetIntraOpNumThreads", plain_opts, args.threads)
        ort.call("SetInterOpNumThreads", plain_opts, args.threads)
        ort.call("SetSessionGraphOptimizationLevel", plain_opts, ORT_ENABLE_ALL)
        ort.call("SetSessionExecutionMode", plain_opts, EXECUTION_MODES[args.mode])

        p = P()
        ort.call("SessionEndProfiling", session, allocator, ctypes.byref(p))
        trace_path = ctypes.string_at(p.value).decode()
        ort.call("AllocatorFree", allocator, p)
        with open(trace_path) as f:
            events = json.load(f)
        if args.trace:
            with open(args.trace, "w") as f:
                json.dump(events, f)
        ort.ReleaseSession(session)  # its thread pool goes before the plain session's starts
        session = P()
        ort.call("CreateSession", env, os.fsencode(args.model), plain_opts,
                 ctypes.byref(plain))
        plain_samples = [run_once(plain) for _ in range(args.warmup + args.runs)][args.warmup:]
    finally:
        if out_values is not None:
            for v in out_values:
                if v:
                    ort.ReleaseValue(v)
        for v in in_values:
            if v:
                ort.ReleaseValue(v)
        for release, obj in ((ort.ReleaseMemoryInfo, meminfo), (ort.ReleaseSession, session),
                             (ort.ReleaseSessionOptions, opts), (ort.ReleaseSession, plain),
                             (ort.ReleaseSessionOptions, plain_opts), (ort.ReleaseEnv, env)):
            if obj:
                release(obj)
        for name in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, name))
        os.rmdir(tmpdir)

    per_run, node_op, _ = analyse_trace(events, args.warmup, args.runs)
    kernel, by_op, nodes = summarise(per_run, node_op)
    return {
        "ort_version": ort.version,
        "model": args.model,
        "inputs": {name: shape for name, shape in inputs},
        "threads": args.threads,
        "mode": args.mode,
        "warmup": args.warmup,
        "runs": args.runs,
        "e2e_ms": {"median": round(statistics.median(samples), 4),
                   "samples": [round(s, 4) for s in samples]},
        "e2e_unprofiled_ms": {"median": round(statistics.median(plain_samples), 4),
                              "samples": [round(s, 4) for s in plain_samples]},
        "kernel_ms_per_run": kernel,
        "by_op": by_op,
        "nodes": nodes,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="ort_profile",
        description="Per-node profile of onnxruntime's CPU EP (via ctypes on "
                    "the onnxruntime-node native library).")
    ap.add_argument("model", help="path to the .onnx model")
    ap.add_argument("--input", action="append", required=True,
                    metavar="NAME=D1xD2x...",
                    help="model input name and shape, e.g. image=1x3x299x299 "
                         "(float32, repeat for several inputs)")
    ap.add_argument("--threads", type=int, default=2,
                    help="intra-op and inter-op thread count (default 2)")
    ap.add_argument("--runs", type=int, default=20,
                    help="timed runs (default 20)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="warm-up runs, excluded from everything (default 3)")
    ap.add_argument("--mode", choices=sorted(EXECUTION_MODES),
                    default="sequential", help="execution mode")
    ap.add_argument("--out", help="also write the JSON result to this file")
    ap.add_argument("--trace", help="also save ORT's raw profile trace here")
    ap.add_argument("--lib", default=DEFAULT_LIB,
                    help="libonnxruntime.so to load (default: the one in "
                         "onnxruntime-node next to this script)")
    args = ap.parse_args(argv)

    inputs = []
    for spec in args.input:
        try:
            inputs.append(parse_input(spec))
        except ValueError as e:
            ap.error("bad --input %r: %s" % (spec, e))
    if len({name for name, _ in inputs}) != len(inputs):
        ap.error("the same input name is given twice")
    if args.threads < 1 or args.runs < 1 or args.warmup < 0:
        ap.error("--threads and --runs must be >= 1, --warmup >= 0")

    try:
        result = profile(args, inputs)
    except OrtError as e:
        print("ort_profile: %s: %s" % (e.call, e.message), file=sys.stderr)
        return 1

    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
