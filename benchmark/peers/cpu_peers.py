#!/usr/bin/python3
"""Drives the CPU benchmark's rounds (benchmark/cpu-peers.sh runs it; see benchmark/README-cpu.md).

Per model: cpu_bench --serve searches and prepares our configurations and writes the
model's ONNX, inputs and our outputs; the peers are checked against them (onnxruntime against
our outputs, PyTorch against onnxruntime's, normwise <= 1e-4); then --rounds rounds, the
systems' order rotating each round: our process times one round of its configurations, and
each peer (ort-seq, ort-par, torch-eager, torch-script) runs in a fresh process that loads the
model, warms up and times. A system's latency is the median of all its samples over the
rounds. Writes <out>.json and <out>.md.

--configs chooses our configurations (cpu_bench --configs); the last one other than
autograph+placement is the headline the ratios compare against. AutoGraph + placement (AutoGraph's
search with the backend placement of issue 17, its cost database --placement-db kept in the work
folder and reused) gets ratio columns of its own: against AutoGraph and against the peers. --torch-native runs PyTorch's own modules of the architecture
(torch_bench.py --native: torchvision's ViTs, detr_torch.py's DETR) instead of the module
translated from our ONNX file; they are checked by parameter count and output shapes, not
values (their random weights are not ours). benchmark/cpu-peers.sh --transformers sets both.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OURS = ["sequential", "nimble", "ios", "taso+nimble", "autograph", "autograph+placement"]  # the default --configs
# Configurations with ratio columns of their own, not the headline's: against these of the others.
SIDE = {"autograph+placement": ["autograph", "ort-seq", "ort-par", "torch-script"]}
PEERS = ["ort-seq", "ort-par", "torch-eager", "torch-script"]
TITLES = {"sequential": "ours sequential", "nimble": "Nimble", "ios": "IOS", "taso+nimble": "TASO+Nimble", "autograph": "AutoGraph", "autograph+dpof": "AutoGraph + DPOF + tuned",
          "autograph+placement": "AutoGraph + placement",
          "ort-seq": "ort sequential", "ort-par": "ort parallel", "torch-eager": "torch eager", "torch-script": "TorchScript"}


def log(msg):
    print(f"[cpu-peers {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def peer_command(system, manifest, a, check=False):
    budget = str(int(a.budget_ms))
    if system.startswith("ort-"):
        mode = "sequential" if system == "ort-seq" else "parallel"
        cmd = ["node", os.path.join(HERE, "ort_bench.js"), manifest, mode, str(a.cores), str(a.runs), str(a.warmup), budget]
        return cmd + (["--write-outputs"] if check else [])
    mode = "eager" if system == "torch-eager" else "torchscript"
    cmd = ["/usr/bin/python3", os.path.join(HERE, "torch_bench.py"), manifest, mode, str(a.cores), str(a.runs), str(a.warmup), budget]
    return cmd + (["--check"] if check else []) + (["--native"] if a.torch_native else [])


def run_peer(system, manifest, a, check=False):
    """The peer's JSON line, or an error string naming why it did not run."""
    try:
        p = subprocess.run(peer_command(system, manifest, a, check), capture_output=True, text=True, timeout=a.peer_timeout)
    except subprocess.TimeoutExpired:
        return None, f"no result within {a.peer_timeout:.0f} s"
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        return None, f"exit {p.returncode}: {tail}" + (f" ({lines[-1]})" if lines else "")
    return json.loads(lines[-1]), None


def normwise(a_path, b_path):
    import numpy as np  # the check only; python3-numpy comes with python3-torch
    a, b = np.fromfile(a_path, dtype=np.float32), np.fromfile(b_path, dtype=np.float32)
    if a.size != b.size:
        return float("inf")
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def bench_model(model, a):
    t0 = time.time()
    res = {"model": model, "ours": {}, "peers": {}, "checks": {}, "errors": {}}
    cmd = [a.cpu_bench, "--models", model, "--serve", "--onnx-dir", a.work, "--out", os.path.join(a.work, f"{model}.ours.json"),
           "--runs", str(a.runs), "--warmup", str(a.warmup), "--search-s", str(a.search_s), "--ios-budget-ms", str(a.ios_budget_ms),
           "--ios-max-states", str(a.ios_max_states), "--ios-max-group-kernels", str(a.ios_max_group_kernels),
           "--round-budget-ms", str(int(a.budget_ms)), "--configs", ",".join(a.configs), "--group-budget-ms", str(a.group_budget_ms),
           "--placement-db", a.placement_db]
    if a.tuning_logs:
        log_path = a.tuning_logs.replace("{model}", model)
        if os.path.exists(log_path):
            cmd += ["--tuning-log", log_path]
            res["tuning_log"] = log_path
        else:
            log(f"{model}: no tuning log {log_path}: the fused attention runs its untuned default")
    if a.taso:
        cmd += ["--taso", a.taso]
    # Our runtime gives each stream its own OpenMP team; libgomp's default wait policy keeps an
    # idle team spinning, which on few cores takes them from the streams that run (squeezenet1_1
    # on 2 cores: Nimble 32.5 ms spinning vs 8.7 ms passive).
    # PyTorch (Debian's build uses libgomp too) runs under the same policy: main() sets it for every process.
    ours = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = ours.stdout.readline()
    if not line.startswith("{"):
        ours.wait()
        raise SystemExit(f"cpu_bench failed on {model} (exit {ours.returncode})")
    res["prepare_s"] = time.time() - t0
    manifest = os.path.join(a.work, f"{model}.io.json")
    with open(manifest) as f:
        io = json.load(f)

    # Correctness before timing: onnxruntime against our outputs, PyTorch against onnxruntime.
    systems = ["ours"]
    out, err = run_peer("ort-seq", manifest, a, check=True)
    if err:
        res["errors"]["ort"] = err
    else:
        worst = max(normwise(os.path.join(a.work, f"{model}.ort.out{k}.bin"), os.path.join(a.work, o["file"])) for k, o in enumerate(io["outputs"]))
        res["checks"]["ort_vs_ours"] = worst
        if worst > a.tolerance:
            res["errors"]["ort"] = f"outputs differ from ours by {worst:.3g} (normwise)"
        else:
            systems += ["ort-seq", "ort-par"]
    if a.torch_native:  # PyTorch's own module: its checks do not need onnxruntime's outputs
        out, err = run_peer("torch-eager", manifest, a, check=True)
        if err:
            res["errors"]["torch"] = err
        else:
            res["checks"]["torch_parameters"] = [out["parameters_ours"], out["parameters_torch"]]
            if "position_encoding_max_abs_diff" in out:
                res["checks"]["torch_position_encoding"] = out["position_encoding_max_abs_diff"]
            log(f"{model}: parameters: ours {out['parameters_ours']:,}, PyTorch's module {out['parameters_torch']:,}")
            systems += ["torch-eager", "torch-script"]
    elif "ort" not in res["errors"]:
        out, err = run_peer("torch-eager", manifest, a, check=True)
        if err:
            res["errors"]["torch"] = err
        else:
            res["checks"]["torch_vs_ort"] = out["normwise_vs_ort"]
            systems += ["torch-eager", "torch-script"]
    for k, v in res["errors"].items():
        log(f"{model}: {k} left out: {v}")

    samples = {s: [] for s in systems if s != "ours"}
    for r in range(a.rounds):
        order = systems[r % len(systems):] + systems[:r % len(systems)]
        for s in order:
            if s == "ours":
                ours.stdin.write("round\n")
                ours.stdin.flush()
                got = json.loads(ours.stdout.readline())
                res["ours_rounds"] = res.get("ours_rounds", []) + [{c: statistics.median(v) for c, v in got["samples"].items()}]
            elif s in samples:
                out, err = run_peer(s, manifest, a)
                if err:
                    res["errors"][s] = err
                    log(f"{model}: {s} failed in round {r + 1}: {err}")
                    del samples[s]
                else:
                    samples[s] += out["samples"]
                    res.setdefault("versions", {})[s.split("-")[0]] = out["version"]
        res["load"] = res.get("load", []) + [float(open("/proc/loadavg").read().split()[0])]
        log(f"{model}: round {r + 1}/{a.rounds} done (load {res['load'][-1]})")
    ours.stdin.write("next\n")
    ours.stdin.close()
    if ours.wait() != 0:
        raise SystemExit(f"cpu_bench failed on {model} (exit {ours.returncode})")
    with open(os.path.join(a.work, f"{model}.ours.json")) as f:
        o = json.load(f)
    res["meta"] = o["meta"]
    for x in o["results"]:
        res["ours"][x["config"]] = x
    for s, v in samples.items():
        res["peers"][s] = {"median_ms": statistics.median(v), "samples": len(v)}
    res["seconds"] = time.time() - t0
    return res


def cpu_identity():
    """Family, model and stepping from /proc/cpuinfo, and the widest vector unit: a model name
    such as "AMD EPYC" alone names several generations (this project's machines have been more
    than one of them, and they differ by 1.6x here)."""
    info = {}
    for line in open("/proc/cpuinfo"):
        k, _, v = line.partition(":")
        k = k.strip()
        if k in ("cpu family", "model", "stepping", "cpu MHz", "flags") and k not in info:
            info[k] = v.strip()
    flags = set(info.get("flags", "").split())
    vec = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return f"family {info.get('cpu family', '?')} model {info.get('model', '?')} stepping {info.get('stepping', '?')}, {vec}"


def ratio(a, b):
    return f"{b / a:.2f}x" if a and b else "—"


def headline(ours):
    """The configuration the main ratios compare the others with: the last one without ratio columns of its own."""
    return [c for c in ours if c not in SIDE][-1]


def markdown(results, env):
    ours = env["configs"]
    head = headline(ours)
    others = [c for c in ours if c != head and c not in SIDE]  # the side configurations' ratios are in their own columns
    side = [(c, [o for o in SIDE[c] if o in ours + PEERS]) for c in ours if c in SIDE]
    lines = [f"# CPU benchmark, {env['date']}", "",
             f"- CPU: {env['cpu']} ({env.get('cpu_identity', '?')}), {env['cores']} cores (`/proc/cpuinfo`, `nproc`)",
             f"- oneDNN {env['onednn']} (ours), onnxruntime-node {env.get('ort', '?')}, PyTorch {env.get('torch', '?')} (Debian), {env['compiler']}",
             f"- Load: `uptime` before: {env['load_before']}; after: {env['load_after']}; highest 1-minute load after a round: {env['load_peak']:.1f}. {env['load_note']}",
             f"- Batch 1, the zoo's published resolution, random weights. {env['rounds']} interleaved rounds; per round each system "
             f"{env['runs']} timed runs (or {env['budget_ms']:.0f} ms, at least 5) after {env['warmup']} warm-up runs. Median of all samples, ms.",
             f"- Searches: {'TASO and ' if 'taso+nimble' in ours else ''}AutoGraph{' and AutoGraph + placement' if 'autograph+placement' in ours else ''} "
             f"a time limit of {env['search_s']:.0f} s each "
             "(checked between steps: they run over it); "
             + (f"IOS capped to fit the run: at most {env['ios_r']} kernels per group (r), the cores' count of groups per stage (s), "
                f"{env['ios_max_states']} DP states per block, each stage measured for ≤ {env['ios_budget_ms']:.0f} ms (at least 5 runs); "
                if "ios" in ours else "")
             + f"TASO rules: {env['taso']}.",
             f"- Every process ran with `{env['omp_wait'].strip()}` (libgomp, ours and PyTorch's: idle threads spin briefly, then sleep; "
             "libgomp's default 3 ms spin starves concurrent streams, no spin costs a wake-up per kernel; onnxruntime has its own pool).",
             f"- Code: autograph {env['commit']}. Whole run: {env['seconds'] / 60:.1f} min.",
             *([f"- {env['note']}"] if env.get("note") else []),
             *([f"- AutoGraph + DPOF + tuned: DPOF's group costs measured with {env['group_budget_ms']:.0f} ms of runs each; "
                f"tuning logs: {env['tuning_logs'] or 'none (the untuned defaults)'}."] if "autograph+dpof" in ours else []),
             *([f"- AutoGraph + placement: AutoGraph's search on `cpu::PlacingCpuRuntime<Backends<OneDnn, Blas, OwnKernels>>` "
                "(the code path of `autograph optimize --runtime cpu --backends onednn,blas,own`, issue 17): every graph the search "
                "measures is first placed on oneDNN, OpenBLAS's im2col path and our own kernels by Collage's op-level DP over group "
                f"costs (each group timed for {env['group_budget_ms']:.0f} ms of runs once per machine, kept in the cost database "
                f"`{os.path.basename(env.get('placement_db', '?'))}` of the work folder and reused), then measured placed; it runs "
                "placed with the schedule its runtime chose by measuring, and its outputs are checked like every configuration's. "
                "Its ratio columns compare the others with it, as the AutoGraph ones do; its notes give the nodes each backend runs."]
              if "autograph+placement" in ours else []),
             *(["- PyTorch runs its own modules of each architecture (torchvision's vit_b_16/vit_l_16, benchmark/peers/detr_torch.py), "
                "with PyTorch's random weights: checked by parameter count and output shapes, not values."] if env.get("torch_native") else []),
             "",
             "| model | " + " | ".join(TITLES[c] for c in ours + PEERS) + f" | {TITLES[head]} vs " + " | vs ".join(TITLES[c] for c in others + PEERS)
             + "".join(f" | {TITLES[c]} vs " + " | vs ".join(TITLES[o] for o in vs) for c, vs in side if vs) + " |",
             "|---" * (1 + len(ours) + len(PEERS) + len(others) + len(PEERS) + sum(len(vs) for _, vs in side)) + "|"]
    for r in results:
        lat = {c: r["ours"][c]["median_ms"] for c in ours if c in r["ours"]}
        lat.update({s: v["median_ms"] for s, v in r["peers"].items()})
        ag = lat.get(head)
        cells = [f"{lat[c]:.2f}" if c in lat else "—" for c in ours + PEERS]
        ratios = [ratio(ag, lat.get(c)) for c in others + PEERS]
        ratios += [ratio(lat.get(c), lat.get(o)) for c, vs in side for o in vs]
        lines.append(f"| {r['model']} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    searched = [c for c in ("ios", "taso+nimble", "autograph", "autograph+dpof", "autograph+placement") if c in ours]
    torch_check = "torch parameters (ours / PyTorch's)" if env.get("torch_native") else "torch vs ort"
    lines += ["", f"Ratios are the other system's latency over {TITLES[head]}'s (> 1: {TITLES[head]} is faster)"
              + "".join(f"; in the {TITLES[c]} vs columns, over {TITLES[c]}'s" for c, vs in side if vs) + ".", "",
              f"| model | search s ({' / '.join(TITLES[c] for c in searched)}) | model s (all) | ort vs ours | {torch_check} | left out |",
              "|---|---|---|---|---|---|"]
    for r in results:
        s = " / ".join(f"{r['ours'][c]['search_seconds']:.0f}" for c in searched if c in r["ours"])
        ch = r["checks"]
        fmt = lambda k: f"{ch[k]:.1e}" if k in ch else "—"  # noqa: E731
        tc = (f"{ch['torch_parameters'][0]:,} / {ch['torch_parameters'][1]:,}" if "torch_parameters" in ch else "—") if env.get("torch_native") else fmt("torch_vs_ort")
        errs = "; ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        lines.append(f"| {r['model']} | {s} | {r['seconds']:.0f} | {fmt('ort_vs_ours')} | {tc} | {errs} |")
    lines += ["", "Our configurations' notes (search stop reasons, IOS statistics, DPOF's fusions and the fused graph's check, "
              "the placement's backends and cost database):", ""]
    for r in results:
        for c in ours:
            if c in r["ours"] and r["ours"][c].get("reference_kernels"):
                lines.append(f"- {r['model']} {c}: ops on their reference kernels: {', '.join(r['ours'][c]['reference_kernels'])}")
            if c in r["ours"] and r["ours"][c].get("note"):
                lines.append(f"- {r['model']} {c}: {r['ours'][c]['note']} ({r['ours'][c]['operators']} operators, {r['ours'][c]['streams']} streams)")
            if c in r["ours"] and r["ours"][c].get("runtime_vs_first_normwise_error") is not None:
                lines.append(f"- {r['model']} {c}: its outputs on the CPU runtime against {ours[0]}'s: normwise error "
                             f"{r['ours'][c]['runtime_vs_first_normwise_error']:.1e}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpu-bench", required=True)
    p.add_argument("--work", required=True, help="where the ONNX files and per-model results go")
    p.add_argument("--out", required=True, help="results path without extension (.md and .json are written)")
    p.add_argument("--models", default="inception_v3,nasnet_a_mobile,randwire_ws,resnet50,bert_encoder_8x1024,squeezenet1_1,resnext50_32x4d,vit_b_16")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--budget-ms", type=float, default=1000, help="per system per round")
    p.add_argument("--search-s", type=float, default=90)
    p.add_argument("--ios-budget-ms", type=float, default=5)
    p.add_argument("--ios-max-states", type=int, default=300)
    p.add_argument("--ios-max-group-kernels", type=int, default=2)
    p.add_argument("--taso", default="")
    p.add_argument("--configs", default=",".join(OURS), help="our configurations (cpu_bench --configs); the last is the headline")
    p.add_argument("--tuning-logs", default="", help="autograph+dpof: the tuning log per model, {model} replaced by its name; missing: defaults")
    p.add_argument("--group-budget-ms", type=float, default=20, help="autograph+dpof, autograph+placement: timed runs per group measurement")
    p.add_argument("--placement-db", default="", help="autograph+placement: the placement's cost database (default: <work>/placement-costs.json, reused)")
    p.add_argument("--torch-native", action="store_true", help="PyTorch's own modules (torchvision ViTs, detr_torch.py) instead of our ONNX's translation")
    p.add_argument("--note", default="", help="a line for the results' header (e.g. why the run was reduced)")
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--peer-timeout", type=float, default=300)
    a = p.parse_args()
    a.configs = [c for c in a.configs.split(",") if c]
    if not [c for c in a.configs if c not in SIDE]:
        p.error(f"--configs {','.join(a.configs)}: needs a configuration other than {', '.join(SIDE)} (the headline)")
    a.placement_db = a.placement_db or os.path.join(a.work, "placement-costs.json")
    a.cores = len(os.sched_getaffinity(0))
    # Every libgomp process (ours, PyTorch; onnxruntime has its own thread pool) spins briefly
    # before its idle threads sleep, as the autograph tool does (include/autograph/cpu/openmp_wait.hpp):
    # libgomp's default 3 ms spin starves concurrent teams (under load PyTorch's SqueezeNet went
    # from 27 ms to 46-65 ms), and no spin at all costs a futex wake-up per kernel.
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "2000")
    os.makedirs(a.work, exist_ok=True)
    t0 = time.time()
    load_before = open("/proc/loadavg").read().split()[:3]
    results = []
    for m in a.models.split(","):
        log(f"{m}: searching and preparing")
        results.append(bench_model(m, a))
        with open(a.out + ".partial.json", "w") as f:
            json.dump(results, f, indent=1)
    load_after = open("/proc/loadavg").read().split()[:3]
    peak = max([float(x) for x in load_before + load_after] + [l for r in results for l in r.get("load", [])])
    high = peak > a.cores
    env = dict(results[0]["meta"])
    env.update({"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "load_before": " ".join(load_before), "load_after": " ".join(load_after), "load_peak": peak,
                "load_note": (f"The load average exceeded the {a.cores} cores. It counts the benchmark's own threads (our streams' "
                              "OpenMP teams, onnxruntime's pool) as well as other processes; the rounds interleave the systems so "
                              "that any outside load falls on all of them alike.") if high else "The machine was otherwise quiet.",
                "rounds": a.rounds, "runs": a.runs, "warmup": a.warmup, "budget_ms": a.budget_ms, "search_s": a.search_s,
                "configs": a.configs, "tuning_logs": a.tuning_logs, "group_budget_ms": a.group_budget_ms, "placement_db": a.placement_db, "torch_native": a.torch_native,
                "note": a.note, "ios_budget_ms": a.ios_budget_ms, "ios_max_states": a.ios_max_states, "ios_r": a.ios_max_group_kernels, "taso": a.taso or "built-in only",
                "seconds": time.time() - t0, "python": platform.python_version(), "cpu_identity": cpu_identity(),
                "omp_wait": (f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}" if "OMP_WAIT_POLICY" in os.environ else "")
                + (f" GOMP_SPINCOUNT={os.environ['GOMP_SPINCOUNT']}" if "GOMP_SPINCOUNT" in os.environ else ""),
                "commit": subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()})
    for r in results:
        for k, v in r.get("versions", {}).items():
            env["ort" if k == "ort" else "torch"] = v
    with open(a.out + ".json", "w") as f:
        json.dump({"env": env, "results": results}, f, indent=1)
    md = markdown(results, env)
    with open(a.out + ".md", "w") as f:
        f.write(md)
    os.remove(a.out + ".partial.json")
    print(md)


if __name__ == "__main__":
    main()
