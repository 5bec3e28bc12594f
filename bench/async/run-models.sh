#!/usr/bin/env bash
# Threads and concurrent requests on compiled models (bench_model.cpp):
# a generated model with two heavy independent branches
# (test/integration/async/make_branches.py) and, when fetched
# (scripts/fetch-models.sh), PP-OCR cls and rec.
#
# usage: bench/async/run-models.sh [MODEL...]   (default: branches cls rec)
# environment: ROUNDS=5 RUNS=30 REQUESTS=64 INFLIGHT=4 BUILD_DIR=build
#              OUT_DIR=build/bench/async
# Each model prints latency at 1 and 2 threads (speedup) and throughput of
# concurrent requests on 1 and 2 workers (ratio), each 2-thread figure with
# the process CPU time / wall time of its window (2.0: both cores ran); for
# the PP-OCR models also ONNX Runtime's throughput with 1 and 2 sessions.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/bench/async}
MODELS_DIR=${MODELS_DIR:-$ROOT/third_party/npm/package/assets}
ORT_DIR=${ORT_DIR:-$ROOT/third_party/npm/ort}
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-30}
REQUESTS=${REQUESTS:-64}
INFLIGHT=${INFLIGHT:-4}
CXX=${CXX:-clang++-22}
mkdir -p "$OUT_DIR"

compile() { # NAME MODEL [tfrt-compile args...]
  local name=$1 model=$2
  shift 2
  "$BUILD_DIR/bin/tfrt-compile" "$model" --name "$name" -o "$OUT_DIR/" "$@"
  "$CXX" -std=c++17 -O2 -DMODEL_DESCRIPTOR="${name}_descriptor" \
    -I "$ROOT/runtime-lib/include" "$ROOT/bench/async/bench_model.cpp" \
    "$OUT_DIR/$name.o" "$BUILD_DIR/lib/libtfrt_runtime.a" -lm -lpthread \
    -o "$OUT_DIR/bench-$name"
}

for m in ${@:-branches cls rec}; do
  case $m in
    branches)
      /usr/bin/python3 "$ROOT/test/integration/async/make_branches.py" \
        "$OUT_DIR/branches.onnx" --rows 256 --width 1024 --depth 4
      compile branches "$OUT_DIR/branches.onnx" ;;
    cls)
      [ -f "$MODELS_DIR/ch_ppocr_mobile_v2.0_cls_infer.onnx" ] || { echo "cls: not fetched"; continue; }
      model_file=$MODELS_DIR/ch_ppocr_mobile_v2.0_cls_infer.onnx shape=1x3x48x192
      compile cls "$model_file" --input-shape x=$shape ;;
    rec)
      [ -f "$MODELS_DIR/ch_PP-OCRv4_rec_infer.onnx" ] || { echo "rec: not fetched"; continue; }
      model_file=$MODELS_DIR/ch_PP-OCRv4_rec_infer.onnx shape=1x3x48x320
      compile rec "$model_file" --input-shape x=$shape ;;
    det)
      [ -f "$MODELS_DIR/ch_PP-OCRv4_det_infer.onnx" ] || { echo "det: not fetched"; continue; }
      model_file=$MODELS_DIR/ch_PP-OCRv4_det_infer.onnx shape=1x3x640x640
      compile det "$model_file" --input-shape x=$shape ;;
    *) echo "unknown model $m" >&2; exit 2 ;;
  esac
  echo "== $m"
  "$OUT_DIR/bench-$m" --rounds "$ROUNDS" --runs "$RUNS" --requests "$REQUESTS" \
    --inflight "$INFLIGHT"
  # ONNX Runtime serving the same requests with 1 and with 2 sessions of one
  # intra-op thread each (the peer of our 1- and 2-worker throughput).
  if [ "$m" != branches ] && [ -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then
    for s in 1 2; do
      node "$ROOT/bench/models/ort_bench.js" --ort-dir "$ORT_DIR" --model "$model_file" \
        --input "x=$shape" --threads 1 --warmup 3 --sessions "$s" --requests "$REQUESTS" |
        sed 's/^/ORT /'
    done
  fi
done
