#!/usr/bin/env python3
"""The README's simulated H100 tables ("Optimizing: results"): runs `autograph optimize --model
NAME` for each model, one after another, and prints the two markdown tables (latencies and
speedups; search seconds and AutoGraph's rewrites).

    python3 benchmark/sim/readme_tables.py [path/to/autograph] > tables.md
"""
import subprocess
import sys

MODELS = ["inception_v3", "resnet34", "resnet50", "resnext50_32x4d", "nasnet_a_large", "nasnet_a_mobile", "rnntc_sru", "bert",
          "bert_encoder_8x1024", "squeezenet1_1", "randwire_ws", "vit_b_16"]
CONFIGS = ["sequential", "nimble", "taso", "taso+nimble", "metaflow", "autograph"]


def run(tool, model):
    out = subprocess.run([tool, "optimize", "--model", model], capture_output=True, text=True, check=True,
                         env={"OMP_WAIT_POLICY": "passive"}).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in CONFIGS and len(parts) >= 7 and parts[1].replace(".", "", 1).isdigit():
            rows[parts[0]] = {"ms": float(parts[1]), "search": float(parts[3]), "verified": parts[6],
                              "rewrites": " ".join(parts[7:])}
    missing = [c for c in CONFIGS if c not in rows]
    if missing:
        sys.exit(f"{model}: no row for {missing} in:\n{out}")
    return rows


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else "build/tools/autograph"
    results = {m: run(tool, m) for m in MODELS}
    print("| model | " + " | ".join(CONFIGS) + " | autograph vs sequential | vs nimble | vs taso+nimble | autograph search s | all verified |")
    print("|---" * (len(CONFIGS) + 6) + "|")
    for m, r in results.items():
        ag = r["autograph"]["ms"]
        cells = [f"{r[c]['ms']:.4f}" for c in CONFIGS]
        ratios = [f"{r[c]['ms'] / ag:.2f}×" for c in ("sequential", "nimble", "taso+nimble")]
        verified = "yes" if all(r[c]["verified"] == "yes" for c in CONFIGS) else "no"
        print(f"| {m} | " + " | ".join(cells + ratios) + f" | {r['autograph']['search']:.2f} | {verified} |")
    print()
    print("| model | taso search s | metaflow search s | autograph rewrites |")
    print("|---|---|---|---|")
    for m, r in results.items():
        rewrites = r["autograph"]["rewrites"].replace(" x", " ×")
        print(f"| {m} | {r['taso']['search']:.2f} | {r['metaflow']['search']:.2f} | {rewrites if rewrites != '-' else '—'} |")


if __name__ == "__main__":
    main()
