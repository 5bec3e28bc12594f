#!/bin/bash
# bench/gpu-check.sh - the GPU checks of --target=cuda, for a session that has
# an NVIDIA GPU (H200: sm_90) for a few minutes. See docs/gpu.md.
#
# Two stages, so that the GPU machine needs only a C compiler, python3 with
# numpy + onnx (+ torch for the peer timings) and the NVIDIA driver: nothing
# of LLVM/MLIR runs there.
#
#   bench/gpu-check.sh --prepare      # here, without a GPU (~30 minutes on
#                                     # 2 cores, most of it the ONNX suite):
#       compiles PP-OCR cls/det/rec and a two-output test model with
#       --target=cuda --gpu-arch=sm_90, records ONNX Runtime (CPU) outputs
#       for a seeded input, compiles every ONNX backend test for the GPU into
#       a stage (test/integration/conformance/run_conformance.py --stage-out,
#       packed as conformance.tar.xz), and copies tfrt-run with its two
#       protobuf libraries and the runtime library into build/gpu-check/.
#       Set GPU_CHECK_SKIP_SUITE=1 to leave the suite out, GPU_CHECK_BUILD_DIR
#       to take the tools from another build, GPU_CHECK_NO_BUILD=1 to use
#       them as they are.
#   bench/gpu-check.sh                # on the GPU machine (< 5 minutes):
#       1. nvidia-smi; 2. the two-output model through tests' cuda_driver.c
#       (the cuda-run lit test's program and expected lines); 3. links each
#       PP-OCR model, runs it on the GPU, compares with ONNX Runtime within
#       1e-3, times create / first run / median of 50 runs (wall clock with
#       copies, and device time from CUDA events); 4. PyTorch eager (cuDNN,
#       exact f32) on the same ONNX models (bench/gpu/torch_onnx.py), with
#       its own accuracy against ONNX Runtime; 5. the ONNX backend suite on
#       the GPU (run_conformance.py --stage-in).
#       Results: build/gpu-check/results.txt, results.jsonl and
#       conformance-gpu.json; also copied to $RESULTS_DIR when set.
#
# Every step has a timeout; a failing step is recorded and the next one runs.
# Exit status: 0 when every correctness check passed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GC=${GPU_CHECK_DIR:-$ROOT/build/gpu-check}
BUILD=${GPU_CHECK_BUILD_DIR:-$ROOT/build}   # --prepare: the tools to use
CC=${CC:-$(command -v clang-22 || command -v clang || command -v gcc || echo cc)}
PY=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy, onnx' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || PY=python3
ARCH=${GPU_ARCH:-sm_90}
TOL=1e-3
ASSETS=$ROOT/third_party/npm/package/assets
MODELS="cls:ch_ppocr_mobile_v2.0_cls_infer.onnx:x=1x3x48x192
det:ch_PP-OCRv4_det_infer.onnx:x=1x3x640x640
rec:ch_PP-OCRv4_rec_infer.onnx:x=1x3x48x320"
log() { echo "$*" | tee -a "$GC/results.txt"; }
step() { # step SECONDS NAME CMD... : run with a timeout, log the outcome
  local t=$1 name=$2; shift 2
  local rc=0 s=$SECONDS
  timeout "$t" "$@" >"$GC/$name.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then log "ok    $name ($((SECONDS - s)) s)"; return 0; fi
  [ $rc = 124 ] && rc="timeout ${t}s"
  log "FAIL  $name (exit $rc; $GC/$name.log)"; tail -5 "$GC/$name.log" | sed 's/^/      /' | tee -a "$GC/results.txt"
  return 1
}

if [ "${1:-}" = "--prepare" ]; then
  rm -rf "$GC"; mkdir -p "$GC/bin" "$GC/lib"; : >"$GC/results.txt"
  if [ -z "${GPU_CHECK_NO_BUILD:-}" ]; then
    step 1200 build ninja -C "$BUILD" -j2 tfrt-compile tfrt-run tfrt_runtime || exit 1
  fi
  # Private copies of the tools, so that a rebuild meanwhile cannot mix two.
  cp "$BUILD/bin/tfrt-compile" "$BUILD/bin/tfrt-run" "$GC/bin/"
  cp "$BUILD/lib/libtfrt_runtime.a" "$GC/lib/"
  TC=$GC/bin/tfrt-compile
  # tfrt-run's libraries beyond glibc/libstdc++ (reading .pb files).
  for l in libonnx_proto.so.1 libprotobuf.so.32; do
    f=$(ldd "$GC/bin/tfrt-run" | awk -v l=$l '$1 == l {print $3}')
    [ -n "$f" ] && cp -L "$f" "$GC/lib/"
  done
  cp -r "$ROOT/runtime-lib/include" "$GC/include"
  cp "$ROOT/test/integration/ppocr/main.c" "$ROOT/bench/gpu/time_model.c" "$ROOT/bench/gpu/compare.py" "$GC/"
  mkdir -p "$GC/add_relu"
  step 120 compile-add_relu "$TC" "$ROOT/test/tools/Inputs/add_relu.mlir" --name m --input-shape a=2x4 \
    --target=cuda --gpu-arch=sm_80,sm_89,sm_90 -o "$GC/add_relu/"
  cp "$ROOT/test/tools/Inputs/cuda_driver.c" "$GC/add_relu/"
  grep -E '^CHECK(-NEXT)?: ' "$ROOT/test/tools/tfrt-compile-cuda-run.test" | sed -E 's/^CHECK(-NEXT)?: //' >"$GC/add_relu/expected.txt"
  echo "$MODELS" | while IFS=: read -r name file shape; do
    mkdir -p "$GC/$name"
    step 600 "compile-$name" "$TC" "$ASSETS/$file" --name "$name" --input-shape "$shape" \
      --target=cuda --gpu-arch="$ARCH" -o "$GC/$name/" || continue
    dims=${shape#*=}
    step 60 "input-$name" $PY -c "
import numpy as np
x = np.random.default_rng(0).random([int(d) for d in '$dims'.split('x')], dtype=np.float32)
np.save('$GC/$name/input.npy', x); x.tofile('$GC/$name/input.raw')" || continue
    step 300 "ort-$name" node "$ROOT/test/integration/ppocr/ort_reference.js" \
      --ort-dir "$ROOT/third_party/npm/ort" --model "$ASSETS/$file" \
      --input "x=$GC/$name/input.npy" --output-dir "$GC/$name/ort" || continue
    $PY -c "
import json, numpy as np
meta = json.load(open('$GC/$name/$name.json'))
for k, o in enumerate(meta['outputs']):
    np.load('$GC/$name/ort/' + o['name'].replace('/', '_') + '.npy').astype(np.float32).tofile('$GC/$name/ref_%d.raw' % k)
print(len(meta['outputs']))" >"$GC/$name/num_outputs"
    rm -rf "$GC/$name/ort" "$GC/$name/input.npy"
    cp "$ASSETS/$file" "$GC/$name/model.onnx"
  done
  if [ -z "${GPU_CHECK_SKIP_SUITE:-}" ]; then
    stage=$(mktemp -d "${TMPDIR:-/tmp}/tfrt-gpu-stage.XXXXXX")
    step 3600 stage-conformance $PY "$ROOT/test/integration/conformance/run_conformance.py" \
      --bin-dir "$GC/bin" --stage-out "$stage/conformance" --quiet \
      --compile-arg=--target=cuda --compile-arg=--gpu-arch="$ARCH" &&
      tail -1 "$GC/stage-conformance.log" | tee -a "$GC/results.txt" &&
      tar -C "$stage" -cJf "$GC/conformance.tar.xz" conformance
    rm -rf "$stage"
  fi
  rm -f "$GC/bin/tfrt-compile"   # does not run without LLVM 22 anyway
  du -sh "$GC"; echo "prepared $GC: run bench/gpu-check.sh on the GPU machine (carry build/gpu-check)"
  exit 0
fi

[ -d "$GC" ] || { echo "error: $GC missing: run bench/gpu-check.sh --prepare first"; exit 2; }
: >"$GC/results.txt"; : >"$GC/results.jsonl"
log "gpu-check $(date -u +%FT%TZ) arch=$ARCH cc=$CC python=$PY"
export LD_LIBRARY_PATH="$GC/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
step 30 nvidia-smi nvidia-smi && head -20 "$GC/nvidia-smi.log" | tee -a "$GC/results.txt"
RT="$GC/lib/libtfrt_runtime.a"; INC="$GC/include"

# 2. The cuda-run lit test's program: two outputs, a validation error, two
# instances; its expected lines in order.
d=$GC/add_relu
if step 60 link-add_relu "$CC" -std=c11 -I "$INC" -I "$d" "$d/cuda_driver.c" "$d/m.o" "$RT" -lm -o "$d/driver" &&
   step 60 run-add_relu "$d/driver"; then
  if diff <(grep -F -x -f "$d/expected.txt" "$GC/run-add_relu.log" | grep -v '^shape mismatch') \
          <(grep -v '^shape mismatch' "$d/expected.txt") >"$GC/diff-add_relu.log" &&
     grep -q "^shape mismatch: error 1: input 'a'" "$GC/run-add_relu.log"; then
    log "ok    add_relu output lines as the cuda-run lit test expects"
  else
    log "FAIL  add_relu output differs from the cuda-run lit test:"; sed 's/^/      /' "$GC/run-add_relu.log" | tee -a "$GC/results.txt"
  fi
fi

# 3./4. PP-OCR models, ours and PyTorch.
echo "$MODELS" | while IFS=: read -r name file shape; do
  d=$GC/$name
  [ -f "$d/$name.o" ] || { log "FAIL  $name: not prepared"; continue; }
  n=$(cat "$d/num_outputs" 2>/dev/null || echo 1)
  refs=""; outs=""
  for k in $(seq 0 $((n - 1))); do outs="$outs $d/out_$k.raw"; refs="$refs $d/ref_$k.raw"; done
  if step 120 "link-$name" "$CC" -O2 -DTFRT_MODEL="$name" -I "$INC" -I "$d" "$GC/main.c" "$d/$name.o" "$RT" -lm -o "$d/run" &&
     step 120 "run-$name" "$d/run" "$d/input.raw" $outs; then
    for k in $(seq 0 $((n - 1))); do
      if r=$(timeout 120 $PY "$GC/compare.py" "$d/out_$k.raw" "$d/ref_$k.raw" $TOL); then
        log "ok    accuracy-$name[$k] $r (tolerance $TOL)"
      else
        log "FAIL  accuracy-$name[$k] $r (tolerance $TOL)"
      fi
    done
  fi
  step 60 "link-time-$name" "$CC" -O2 -DTFRT_MODEL="$name" -I "$INC" -I "$d" "$GC/time_model.c" "$d/$name.o" "$RT" -lm -o "$d/time" &&
    step 180 "time-$name" "$d/time" 50 && log "      tfrt $name $(cat "$GC/time-$name.log")" &&
    echo "{\"model\": \"$name\", \"tfrt\": $(cat "$GC/time-$name.log")}" >>"$GC/results.jsonl"
  if timeout 60 $PY -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    for prec in "" --tf32; do
      step 300 "torch$prec-$name" $PY "$ROOT/bench/gpu/torch_onnx.py" "$d/model.onnx" "$d/input.raw" \
        "${shape#*=}" --runs 50 $prec --check $refs &&
        log "      torch$prec $name $(tail -1 "$GC/torch$prec-$name.log")" &&
        echo "{\"model\": \"$name\", \"torch$prec\": $(tail -1 "$GC/torch$prec-$name.log")}" >>"$GC/results.jsonl"
    done
  else
    log "skip  torch-$name (torch with CUDA not importable)"
  fi
done

# 5. The ONNX backend suite, compiled for the GPU by --prepare.
if [ -f "$GC/conformance.tar.xz" ]; then
  stage=$(mktemp -d "${TMPDIR:-/tmp}/tfrt-gpu-stage.XXXXXX")
  $PY -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
    "$GC/conformance.tar.xz" "$stage"
  step 300 conformance-gpu $PY "$ROOT/test/integration/conformance/run_conformance.py" \
    --stage-in "$stage/conformance" --tfrt-run "$GC/bin/tfrt-run" --jobs "$(nproc)" \
    --quiet --json "$GC/conformance-gpu.json"
  grep -A30 '^Staged run' "$GC/conformance-gpu.log" | tee -a "$GC/results.txt"
  rm -rf "$stage"
else
  log "skip  conformance-gpu (not prepared: GPU_CHECK_SKIP_SUITE was set)"
fi

if [ -n "${RESULTS_DIR:-}" ]; then
  mkdir -p "$RESULTS_DIR"
  cp "$GC/results.txt" "$GC/results.jsonl" "$RESULTS_DIR/" 2>/dev/null
  cp "$GC/conformance-gpu.json" "$RESULTS_DIR/" 2>/dev/null
  tar -C "$GC" -czf "$RESULTS_DIR/logs.tar.gz" $(cd "$GC" && ls *.log) 2>/dev/null
fi
grep -q '^FAIL' "$GC/results.txt" && { echo "gpu-check: failures, see $GC/results.txt"; exit 1; }
echo "gpu-check: all checks passed ($GC/results.txt)"
