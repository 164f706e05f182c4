#!/usr/bin/env python3
"""The simulated H200 against our CUDA runtime measured on a lent H200
(benchmark/results/gpu-2026-11-27-h200/gpu_bench.log, and SqueezeNet from the first-contact run
beside it; CUDA-graph replays, FP32 data, TF32 on): for each model and configuration the
measured run has, `autograph optimize --device h200` (and `autograph schedule --schedule ios`
for IOS) prints the simulated latency; this prints both, their ratio, and per model the
speedups over sequential, measured and simulated. Nothing here feeds the simulator: the
measured numbers are read only to be compared with.

    python3 benchmark/sim/h200_vs_measured.py [path/to/autograph] [log,log,...]

The logs default to the first GPU session's; the second session's runtime (convolutions through
cuDNN's graph API) is benchmark/results/gpu-2026-11-27-evening/engines.log.
"""
import math
import re
import statistics
import subprocess
import sys

LOGS = ["benchmark/results/gpu-2026-11-27-h200/gpu_bench.log", "benchmark/results/gpu-2026-11-27-h200-first-contact/gpu_bench.log"]
CONFIGS = ["sequential", "nimble", "taso+nimble", "autograph"]


def measured(logs):
    """Per model, the configurations' latencies: from the first log that measured the model."""
    out = {}
    for log in logs:
        runs, model = {}, None
        for line in open(log):
            if m := re.match(r"\[gpu_bench\] (\w+): \d+ operators", line):
                model = m.group(1)
                runs[model] = {}
            elif model and (m := re.match(r"\[gpu_bench\]\s+([\w+]+): ([\d.]+) ms", line)):
                runs[model][m.group(1)] = float(m.group(2))
        for model, r in runs.items():
            out.setdefault(model, r)
    return out


def simulated(tool, model, configs):
    env = {"OMP_WAIT_POLICY": "passive"}
    rows = {}
    wanted = [c for c in configs if c in CONFIGS]
    if wanted:
        text = subprocess.run([tool, "optimize", "--model", model, "--device", "h200", "--no-verify", "--configs", ",".join(wanted)],
                              capture_output=True, text=True, check=True, env=env).stdout
        for line in text.splitlines():
            parts = line.split()
            if len(parts) > 1 and parts[0] in wanted and re.fullmatch(r"[\d.]+", parts[1]):
                rows[parts[0]] = float(parts[1])
    if "ios" in configs:
        text = subprocess.run([tool, "schedule", "--model", model, "--schedule", "ios", "--device", "h200"], capture_output=True, text=True,
                              check=True, env=env).stdout
        if m := re.search(r"^\s*latency\s+([\d.]+) ms", text, re.M):
            rows["ios"] = float(m.group(1))
    return rows


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else "build/tools/autograph"
    sources = sys.argv[2].split(",") if len(sys.argv) > 2 else LOGS
    logs = []
    print("| model | config | measured ms | simulated ms | simulated / measured |")
    print("|---|---|---|---|---|")
    speedups = []
    for model, runs in measured(sources).items():
        sim = simulated(tool, model, list(runs))
        for config, ms in runs.items():
            if config in sim:
                logs.append(abs(math.log(sim[config] / ms)))
                print(f"| {model} | {config} | {ms:.4f} | {sim[config]:.4f} | {sim[config] / ms:.2f} |")
        for config in runs:
            if config != "sequential" and config in sim and "sequential" in sim:
                speedups.append((model, config, runs["sequential"] / runs[config], sim["sequential"] / sim[config]))
    print(f"\nmedian |ln(simulated/measured)|: {statistics.median(logs):.3f} (x{math.exp(statistics.median(logs)):.2f}, n={len(logs)})")
    print("\n| model | config | speedup over sequential, measured | simulated |")
    print("|---|---|---|---|")
    for model, config, m, s in speedups:
        print(f"| {model} | {config} | {m:.2f} | {s:.2f} |")


if __name__ == "__main__":
    main()
