#!/usr/bin/env bash
# PP-OCR models: tfrt-compile's code against ONNX Runtime, same machine, same
# run, alternating A B A B.
#
# usage: bench/models/run.sh [MODEL...]          (default: cls det rec)
# environment:
#   ROUNDS=5        rounds; each round runs ours, then ORT with each thread count
#   RUNS=           timed runs per tool and round (default: 200 cls, 30 det/rec)
#   WARMUP=10       untimed runs before each timed batch
#   ORT_THREADS="1 2"
#   BUILD_DIR=build, MODELS_DIR=third_party/npm/package/assets,
#   ORT_DIR=third_party/npm/ort, OUT_DIR=build/bench/models
#
# Per tool it prints the median of the per-round medians, the range of the
# per-round medians and the fastest single run, then ours/ORT(1 thread).
# Ours runs one thread (the compiled code is single-threaded). A model that
# does not compile is reported and skipped.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
MODELS_DIR=${MODELS_DIR:-$ROOT/third_party/npm/package/assets}
ORT_DIR=${ORT_DIR:-$ROOT/third_party/npm/ort}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/bench/models}
ROUNDS=${ROUNDS:-5}
WARMUP=${WARMUP:-10}
ORT_THREADS=${ORT_THREADS:-"1 2"}
PY=/usr/bin/python3
mkdir -p "$OUT_DIR"

model_file() {
  case $1 in
    cls) echo ch_ppocr_mobile_v2.0_cls_infer.onnx ;;
    det) echo ch_PP-OCRv4_det_infer.onnx ;;
    rec) echo ch_PP-OCRv4_rec_infer.onnx ;;
  esac
}
model_shape() {
  case $1 in
    cls) echo 1x3x48x192 ;;
    det) echo 1x3x640x640 ;;
    rec) echo 1x3x48x320 ;;
  esac
}
# "benchmark: runs=N median_ms=M min_ms=..." -> "M MIN"
parse() { sed -n 's/.*median_ms=\([0-9.]*\) min_ms=\([0-9.]*\).*/\1 \2/p'; }
# stdin: lines "median min" -> "median-of-medians lo hi best"
summarise() {
  sort -n | awk '{m[NR]=$1; if (NR==1 || $2<b) b=$2}
    END {n=NR; if (n==0) {print "- - - -"; exit}
         med=(n%2)? m[(n+1)/2] : (m[n/2]+m[n/2+1])/2;
         printf "%.4f %.4f %.4f %.4f\n", med, m[1], m[n], b}'
}

for name in "${@:-cls det rec}"; do
  for model in $name; do
    file=$MODELS_DIR/$(model_file "$model")
    shape=$(model_shape "$model")
    if [ ! -f "$file" ]; then echo "$model: no model file $file"; continue; fi
    so=$OUT_DIR/$model.so
    start=$(date +%s.%N)
    if ! "$BUILD_DIR/bin/tfrt-compile" "$file" --input-shape "x=$shape" --emit=shared \
         --name "$model" -o "$so" >"$OUT_DIR/$model.compile.log" 2>&1; then
      echo "$model: does not compile: $(head -1 "$OUT_DIR/$model.compile.log")"
      continue
    fi
    compile_s=$(echo "$(date +%s.%N) - $start" | bc)
    "$PY" -c "import numpy as np, sys; d=[int(x) for x in sys.argv[2].split('x')];
np.save(sys.argv[1], np.random.RandomState(1234).rand(*d).astype(np.float32))" \
      "$OUT_DIR/$model.x.npy" "$shape"
    runs=${RUNS:-$([ "$model" = cls ] && echo 200 || echo 30)}
    : >"$OUT_DIR/$model.ours"
    for t in $ORT_THREADS; do : >"$OUT_DIR/$model.ort$t"; done
    for ((r = 0; r < ROUNDS; r++)); do
      "$BUILD_DIR/bin/tfrt-run" "$so" --name "$model" --input "x=$OUT_DIR/$model.x.npy" \
        --benchmark="$runs" --warmup="$WARMUP" | parse >>"$OUT_DIR/$model.ours"
      for t in $ORT_THREADS; do
        node "$ROOT/bench/models/ort_bench.js" --ort-dir "$ORT_DIR" --model "$file" \
          --input "x=$shape" --threads "$t" --runs "$runs" --warmup "$WARMUP" |
          parse >>"$OUT_DIR/$model.ort$t"
      done
    done
    read -r om olo ohi obest < <(summarise <"$OUT_DIR/$model.ours")
    printf '%s (%s, compile %.1f s, %d rounds x %d runs)\n' "$model" "$shape" "$compile_s" "$ROUNDS" "$runs"
    printf '  %-12s median %8s ms  round medians %s..%s  best %s\n' ours "$om" "$olo" "$ohi" "$obest"
    for t in $ORT_THREADS; do
      read -r m lo hi best < <(summarise <"$OUT_DIR/$model.ort$t")
      printf '  %-12s median %8s ms  round medians %s..%s  best %s\n' "ORT ${t}t" "$m" "$lo" "$hi" "$best"
      [ "$t" = 1 ] && ratio=$(echo "scale=3; $om / $m" | bc)
    done
    printf '  ours/ORT(1 thread) = %s\n' "${ratio:-?}"
  done
done
