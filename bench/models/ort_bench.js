#!/usr/bin/env node
// Times ONNX Runtime (onnxruntime-node) on one model with a seeded random
// f32 input, in the same output format as `tfrt-run --benchmark`:
//   benchmark: runs=N median_ms=... min_ms=... max_ms=... mean_ms=...
//
// usage: node ort_bench.js --ort-dir DIR --model M.onnx --input NAME=D0xD1x...
//            [--threads T] [--runs N] [--warmup K] [--sessions S --requests R]
// --ort-dir holds node_modules/onnxruntime-node. The session uses
// graphOptimizationLevel 'all', T intra-op threads, sequential execution.
// With --sessions S, S sessions (T threads each) serve R requests, one in
// flight per session (session.run executes off the JavaScript thread), and
// the line is `throughput: sessions=S requests=R requests_per_s=...`.
'use strict';
const path = require('path');

function fail(msg) {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(1);
}

const args = {threads: 1, runs: 100, warmup: 10, inputs: [], sessions: 0, requests: 64};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const next = () => (i + 1 < argv.length ? argv[++i] : fail(`missing value after ${a}`));
  if (a === '--ort-dir') args.ortDir = next();
  else if (a === '--model') args.model = next();
  else if (a === '--threads') args.threads = Number(next());
  else if (a === '--runs') args.runs = Number(next());
  else if (a === '--warmup') args.warmup = Number(next());
  else if (a === '--sessions') args.sessions = Number(next());
  else if (a === '--requests') args.requests = Number(next());
  else if (a === '--input') {
    const v = next();
    const eq = v.indexOf('=');
    if (eq <= 0) fail(`--input expects NAME=D0xD1x..., got '${v}'`);
    args.inputs.push({name: v.slice(0, eq), dims: v.slice(eq + 1).split('x').map(Number)});
  } else fail(`unknown argument '${a}'`);
}
if (!args.ortDir || !args.model || args.inputs.length === 0)
  fail('--ort-dir, --model and --input are required');

// Deterministic uniform [0, 1) input (xorshift32).
function randomInput(count, seed) {
  const data = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    data[i] = s / 4294967296;
  }
  return data;
}

async function main() {
  const ort = require(path.resolve(args.ortDir, 'node_modules', 'onnxruntime-node'));
  const options = {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  };
  const session = await ort.InferenceSession.create(args.model, options);
  const feeds = {};
  args.inputs.forEach((inp, k) => {
    const count = inp.dims.reduce((a, b) => a * b, 1);
    feeds[inp.name] = new ort.Tensor('float32', randomInput(count, 1234 + k), inp.dims);
  });
  if (args.sessions > 0) {
    const sessions = [session];
    while (sessions.length < args.sessions)
      sessions.push(await ort.InferenceSession.create(args.model, options));
    for (const s of sessions)
      for (let i = 0; i < args.warmup; i++) await s.run(feeds);
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(sessions.map(async (s) => {
      while (next < args.requests) {
        next++;
        await s.run(feeds);
      }
    }));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    process.stdout.write(`throughput: sessions=${args.sessions} requests=${args.requests} ` +
                         `requests_per_s=${(args.requests / seconds).toFixed(1)}\n`);
    return;
  }
  for (let i = 0; i < args.warmup; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.runs; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = times.slice().sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const mean = times.reduce((a, b) => a + b, 0) / n;
  const f = (x) => x.toFixed(4);
  process.stdout.write(`benchmark: runs=${n} median_ms=${f(median)} min_ms=${f(sorted[0])} ` +
                       `max_ms=${f(sorted[n - 1])} mean_ms=${f(mean)}\n`);
}
main().catch((e) => fail(e && e.message ? e.message : String(e)));
