// onnxruntime (onnxruntime-node, CPU execution provider) on one ONNX model that cpu_bench
// wrote, on the inputs it wrote: one process of benchmark/cpu-peers.sh's rounds.
//
//   node ort_bench.js <dir>/<model>.io.json sequential|parallel <threads> <runs> <warmup> <budget_ms> [--write-outputs]
//
// Prints one JSON line: {"samples": [ms, ...], "session_ms": ...}. Timing stops after <runs>
// runs or once they sum to <budget_ms> (after at least 5). --write-outputs writes the outputs
// as raw float32 next to the manifest (<model>.ort.out<i>.bin) for the correctness check.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const [manifestPath, mode, threadsArg, runsArg, warmupArg, budgetArg, ...flags] = process.argv.slice(2);
  if (!['sequential', 'parallel'].includes(mode)) throw new Error(`mode must be sequential or parallel, got '${mode}'`);
  const threads = Number(threadsArg), runs = Number(runsArg), warmup = Number(warmupArg), budget = Number(budgetArg);
  for (const [name, v] of [['threads', threads], ['runs', runs], ['warmup', warmup], ['budget_ms', budget]])
    if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer, got '${v}'`);
  const dir = path.dirname(manifestPath);
  const io = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const feeds = {};
  for (const input of io.inputs) {
    const buf = fs.readFileSync(path.join(dir, input.file));
    const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const numel = input.shape.reduce((a, b) => a * b, 1);
    if (data.length !== numel) throw new Error(`${input.file}: ${data.length} floats for shape [${input.shape}]`);
    feeds[input.label] = new ort.Tensor('float32', data, input.shape);
  }
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(path.join(dir, io.onnx), {
    executionProviders: ['cpu'],
    executionMode: mode,
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: threads,
  });
  const sessionMs = Number(process.hrtime.bigint() - t0) / 1e6;
  let out;
  for (let i = 0; i < warmup; ++i) out = await session.run(feeds);
  const samples = [];
  let sum = 0;
  for (let i = 0; i < runs && !(budget > 0 && samples.length >= 5 && sum >= budget); ++i) {
    const t = process.hrtime.bigint();
    out = await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    samples.push(ms);
    sum += ms;
  }
  if (flags.includes('--write-outputs')) {
    if (!out) out = await session.run(feeds);
    session.outputNames.forEach((name, i) => {
      const d = out[name].data;
      fs.writeFileSync(path.join(dir, `${io.model}.ort.out${i}.bin`), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    });
  }
  console.log(JSON.stringify({ samples, session_ms: sessionMs, version: require('onnxruntime-node/package.json').version }));
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message || e}`);
  process.exit(1);
});
