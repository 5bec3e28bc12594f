#!/usr/bin/env bash
# Per-layer efficiency inside a compiled model: builds a profiling object of
# the model (tfrt-compile --profile), runs it at 1 thread for ROUNDS rounds
# (each round: this machine's FP32 peak of one core measured first with
# bench/kernels/peak_fma.c, then tfrt-run --profile --profile-json), and
# prints every dense convolution layer's median time, GFLOP/s and % of the
# median peak (bench/layers/layers.py).
#
# usage: bench/layers/run.sh [MODEL]            (default: det; also rec, cls)
# environment:
#   ROUNDS=3 RUNS=30 WARMUP=5   rounds, timed runs per round, untimed runs
#   MIN_PCT=85                  the figure layers are counted against
#   JSON_OUT=, MD_OUT=          also write the result as JSON / Markdown
#   BUILD_DIR=build, MODELS_DIR=third_party/npm/package/assets,
#   OUT_DIR=build/bench/layers
# Timing never decides a test: this only measures and reports.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
MODELS_DIR=${MODELS_DIR:-$ROOT/third_party/npm/package/assets}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/bench/layers}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-5}
MIN_PCT=${MIN_PCT:-85}
PY=/usr/bin/python3
model=${1:-det}
case $model in
  cls) file=ch_ppocr_mobile_v2.0_cls_infer.onnx shape=1x3x48x192 ;;
  det) file=ch_PP-OCRv4_det_infer.onnx shape=1x3x640x640 ;;
  rec) file=ch_PP-OCRv4_rec_infer.onnx shape=1x3x48x320 ;;
  *) echo "bench/layers/run.sh: unknown model '$model' (cls, det, rec)" >&2; exit 2 ;;
esac
[ -f "$MODELS_DIR/$file" ] || { echo "bench/layers/run.sh: $MODELS_DIR/$file missing (scripts/fetch-models.sh)" >&2; exit 1; }
mkdir -p "$OUT_DIR"
CC=${CC:-$(command -v clang-22 || command -v cc)}
"$CC" -O2 -march=native "$ROOT/bench/kernels/peak_fma.c" -o "$OUT_DIR/peak_fma"
"$BUILD_DIR/bin/tfrt-compile" "$MODELS_DIR/$file" --input-shape "x=$shape" --emit=shared \
  --name "$model" --profile -o "$OUT_DIR/$model.so"
"$PY" -c "import numpy as np, sys
np.save(sys.argv[1], np.random.RandomState(0).rand(*[int(d) for d in sys.argv[2].split('x')]).astype(np.float32))" \
  "$OUT_DIR/$model.x.npy" "$shape"
peaks=""
profiles=()
for ((r = 0; r < ROUNDS; r++)); do
  p=$("$OUT_DIR/peak_fma" | sed -n 's/.* \([0-9.]*\) GFLOP\/s.*/\1/p')
  peaks="$peaks${peaks:+,}$p"
  "$BUILD_DIR/bin/tfrt-run" "$OUT_DIR/$model.so" --name "$model" --input "x=$OUT_DIR/$model.x.npy" \
    --threads=1 --benchmark="$RUNS" --warmup="$WARMUP" --profile --peak-gflops="$p" \
    --profile-json="$OUT_DIR/$model.round$r.json" >"$OUT_DIR/$model.round$r.txt"
  echo "round $((r + 1)) of $ROUNDS: peak $p GFLOP/s, $(grep -o 'median_ms=[0-9.]*' "$OUT_DIR/$model.round$r.txt")"
  profiles+=("$OUT_DIR/$model.round$r.json")
done
"$PY" "$ROOT/bench/layers/layers.py" "$MODELS_DIR/$file" "x=$shape" --peaks "$peaks" \
  --min-pct "$MIN_PCT" ${JSON_OUT:+--json "$JSON_OUT"} ${MD_OUT:+--markdown "$MD_OUT"} \
  "${profiles[@]}"
