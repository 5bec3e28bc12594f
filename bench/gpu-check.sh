#!/bin/bash
# bench/gpu-check.sh - the GPU checks of --target=cuda, for a session that has
# an NVIDIA GPU (H200: sm_90) for a few minutes. See docs/gpu.md.
#
# Two stages, so that the GPU machine needs only a C compiler and python3:
#
#   bench/gpu-check.sh --prepare      # here, without a GPU (minutes):
#       compiles PP-OCR cls/det/rec with --target=cuda --gpu-arch=sm_90,
#       records ONNX Runtime (CPU) outputs for a seeded input, and copies the
#       runtime library and drivers into build/gpu-check/ (~20 MB; carry it).
#   bench/gpu-check.sh [--build]      # on the GPU machine (< 5 minutes
#                                     # without --build):
#       1. nvidia-smi; 2. if this tree's build/ works there, the GPU lit tests
#       (cuda-gpu feature); 3. links each prepared model (or recompiles it
#       when tfrt-compile and the models are present), runs it on the GPU,
#       compares with ONNX Runtime within 1e-3, times create / first run /
#       median of 50 runs; 4. PyTorch's time when torch + onnx2torch import.
#       Results: build/gpu-check/results.txt (and results.jsonl).
#
# Every step has a timeout; a failing step is recorded and the next one runs.
# Exit status: 0 when every correctness check passed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${GPU_CHECK_DIR:-$ROOT/build/gpu-check}
CC=${CC:-$(command -v clang-22 || command -v clang || command -v gcc || echo cc)}
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
ARCH=${GPU_ARCH:-sm_90}
TOL=1e-3
ASSETS=$ROOT/third_party/npm/package/assets
MODELS="cls:ch_ppocr_mobile_v2.0_cls_infer.onnx:x=1x3x48x192
det:ch_PP-OCRv4_det_infer.onnx:x=1x3x320x320
rec:ch_PP-OCRv4_rec_infer.onnx:x=1x3x48x320"
fails=0
log() { echo "$*" | tee -a "$OUT/results.txt"; }
step() { # step SECONDS NAME CMD... : run with a timeout, log the outcome
  local t=$1 name=$2; shift 2
  local rc=0
  timeout "$t" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then log "ok    $name"; return 0; fi
  [ $rc = 124 ] && rc="timeout ${t}s"
  log "FAIL  $name (exit $rc; $OUT/$name.log)"; tail -5 "$OUT/$name.log" | sed 's/^/      /' | tee -a "$OUT/results.txt"
  return 1
}

if [ "${1:-}" = "--prepare" ]; then
  rm -rf "$OUT"; mkdir -p "$OUT"; : >"$OUT/results.txt"
  TC=$ROOT/build/bin/tfrt-compile
  step 1200 build ninja -C "$ROOT/build" -j2 tfrt-compile tfrt_runtime || exit 1
  cp "$ROOT/build/lib/libtfrt_runtime.a" "$OUT/"
  cp -r "$ROOT/runtime-lib/include" "$OUT/include"
  cp "$ROOT/test/integration/ppocr/main.c" "$ROOT/bench/gpu/time_model.c" "$ROOT/bench/gpu/compare.py" "$OUT/"
  echo "$MODELS" | while IFS=: read -r name file shape; do
    mkdir -p "$OUT/$name"
    step 600 "compile-$name" "$TC" "$ASSETS/$file" --name "$name" --input-shape "$shape" \
      --target=cuda --gpu-arch="$ARCH" -o "$OUT/$name/" || continue
    dims=${shape#*=}
    step 60 "input-$name" $PY -c "
import numpy as np, sys
x = np.random.default_rng(0).random([int(d) for d in '$dims'.split('x')], dtype=np.float32)
np.save('$OUT/$name/input.npy', x); x.tofile('$OUT/$name/input.raw')" || continue
    step 300 "ort-$name" node "$ROOT/test/integration/ppocr/ort_reference.js" \
      --ort-dir "$ROOT/third_party/npm/ort" --model "$ASSETS/$file" \
      --input "x=$OUT/$name/input.npy" --output-dir "$OUT/$name/ort" || continue
    $PY -c "
import json, numpy as np
meta = json.load(open('$OUT/$name/$name.json'))
for k, o in enumerate(meta['outputs']):
    np.load('$OUT/$name/ort/' + o['name'].replace('/', '_') + '.npy').astype(np.float32).tofile('$OUT/$name/ref_%d.raw' % k)
print(len(meta['outputs']))" >"$OUT/$name/num_outputs"
    cp "$ASSETS/$file" "$OUT/$name/model.onnx"
  done
  du -sh "$OUT"; echo "prepared $OUT: run bench/gpu-check.sh on the GPU machine (carry build/gpu-check)"
  exit 0
fi

[ -d "$OUT" ] || { echo "error: $OUT missing: run bench/gpu-check.sh --prepare first"; exit 2; }
: >"$OUT/results.txt"; : >"$OUT/results.jsonl"
log "gpu-check $(date -u +%FT%TZ) arch=$ARCH cc=$CC"
# --build: (re)build this tree's tools first when LLVM 22 and the CUDA
# toolkit are installed here (a fresh build takes several minutes).
if [ "${1:-}" = "--build" ]; then
  if [ ! -f "$ROOT/build/build.ninja" ]; then
    step 300 configure cmake -G Ninja -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release
  fi
  step 900 build ninja -C "$ROOT/build" tfrt-compile tfrt-opt tfrt-run tfrt_runtime
fi
step 30 nvidia-smi nvidia-smi -L && cat "$OUT/nvidia-smi.log" | tee -a "$OUT/results.txt"

# GPU lit tests, when this tree's tools run here (they need LLVM 22's libs).
LIT=$(command -v lit || echo /usr/lib/llvm-22/bin/lit)
if [ -x "$ROOT/build/bin/tfrt-compile" ] && [ -x "$LIT" ] &&
   timeout 20 "$ROOT/build/bin/tfrt-compile" --version >/dev/null 2>&1; then
  step 300 lit-gpu "$LIT" -v --filter 'cuda' "$ROOT/test" || fails=$((fails + 1))
else
  log "skip  lit-gpu (build/bin/tfrt-compile does not run here)"
fi

RT="$OUT/libtfrt_runtime.a"; INC="$OUT/include"
echo "$MODELS" | while IFS=: read -r name file shape; do
  d=$OUT/$name
  [ -f "$d/$name.o" ] || { log "FAIL  $name: not prepared"; continue; }
  step 120 "link-$name" "$CC" -O2 -DTFRT_MODEL="$name" -I "$INC" -I "$d" "$OUT/main.c" "$d/$name.o" "$RT" -lm -o "$d/run" || continue
  n=$(cat "$d/num_outputs" 2>/dev/null || echo 1)
  outs=""; for k in $(seq 0 $((n - 1))); do outs="$outs $d/out_$k.raw"; done
  if step 120 "run-$name" "$d/run" "$d/input.raw" $outs; then
    for k in $(seq 0 $((n - 1))); do
      if r=$(timeout 120 $PY "$OUT/compare.py" "$d/out_$k.raw" "$d/ref_$k.raw" $TOL); then
        log "ok    accuracy-$name[$k] $r (tolerance $TOL)"
      else
        log "FAIL  accuracy-$name[$k] $r (tolerance $TOL)"
      fi
    done
  fi
  step 60 "link-time-$name" "$CC" -O2 -DTFRT_MODEL="$name" -I "$INC" -I "$d" "$OUT/time_model.c" "$d/$name.o" "$RT" -lm -o "$d/time" &&
    step 180 "time-$name" "$d/time" 50 && log "      tfrt $name $(cat "$OUT/time-$name.log")" &&
    echo "{\"model\": \"$name\", \"tfrt\": $(cat "$OUT/time-$name.log")}" >>"$OUT/results.jsonl"
  # PyTorch on the same ONNX model, when torch (CUDA) and onnx2torch import.
  if timeout 60 $PY -c 'import torch, onnx2torch; assert torch.cuda.is_available()' 2>/dev/null; then
    step 300 "torch-$name" $PY -c "
import time, torch, onnx2torch, array
m = onnx2torch.convert('$d/model.onnx').cuda().eval()
a = array.array('f'); a.frombytes(open('$d/input.raw','rb').read())
x = torch.tensor(a).reshape([int(v) for v in '${shape#*=}'.split('x')]).cuda()
ts = []
with torch.no_grad():
    for i in range(51):
        torch.cuda.synchronize(); t = time.perf_counter(); y = m(x); torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
ts = sorted(ts[1:]); print('{\"median_ms\": %.4f, \"min_ms\": %.4f}' % (ts[len(ts)//2], ts[0]))" &&
      log "      torch $name $(tail -1 "$OUT/torch-$name.log")"
  else
    log "skip  torch-$name (torch with CUDA and onnx2torch not importable)"
  fi
done
grep -q '^FAIL' "$OUT/results.txt" && { echo "gpu-check: failures, see $OUT/results.txt"; exit 1; }
echo "gpu-check: all checks passed ($OUT/results.txt)"
