#!/usr/bin/env bash
# PP-OCR models: tfrt-compile's code against ONNX Runtime, same machine, same
# run, alternating A B A B.
#
# usage: bench/models/run.sh [MODEL...]          (default: cls det rec)
# environment:
#   ROUNDS=5        rounds; each round runs ours, then ORT with each thread
#                   count, the thread counts in reverse order every other
#                   round; cls (a 0.3-0.6 ms run) gets 3 x ROUNDS rounds, so
#                   that a slow phase of the machine of a few seconds moves
#                   one tool's median less
#   RUNS=           timed runs per tool and round (default: 200 cls, 30 det/rec)
#   WARMUP=10       untimed runs before each timed batch
#   COMPILES=3      compiles per model; the compile time is their median
#   ORT_THREADS="1 2", OURS_THREADS="1 2"  (ours: tfrt-run --threads=N)
#   JSON_OUT=       also append one JSON object per model to this file
#   XCORE_PROBE_BIN= bench/kernels/xcore_probe.c built: run before each
#                   model's rounds (cross-core write cost, in the JSON)
#   BUILD_DIR=build, MODELS_DIR=third_party/npm/package/assets,
#   ORT_DIR=third_party/npm/ort, OUT_DIR=build/bench/models
#
# Per tool it prints the median of the per-round medians, the range of the
# per-round medians and the fastest single run, then ours/ORT at 1 and at 2
# threads, the process peak RSS of each tool for one round's benchmark
# (/usr/bin/time; MiB, baselines below) and, for the 2-thread rounds, the
# CPU time / wall time of the whole round (2.0: both vCPUs ran throughout),
# and ours at 2 threads over ours at 1 measured in one process, the two
# instances called in turn (bench/ab/interleave.c, THREADS=1,2): the paired
# ratio, which the machine's phases do not move as they move two medians
# taken rounds apart.
# Empty-process baselines: tfrt-run with a 1-element model and `node` with
# onnxruntime-node loaded but no session are printed once. A model that
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
OURS_THREADS=${OURS_THREADS:-"1 2"}
PY=/usr/bin/python3
mkdir -p "$OUT_DIR"
INTERLEAVE="$OUT_DIR/interleave"
CC=${CC:-$(command -v clang-22 || command -v cc)}
"$CC" -O2 -I "$ROOT/runtime-lib/include" "$ROOT/bench/ab/interleave.c" \
  -o "$INTERLEAVE" -ldl || { echo "bench/models/run.sh: cannot build bench/ab/interleave.c" >&2; exit 1; }

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

# Empty-process baselines for the peak RSS figures.
if "$BUILD_DIR/bin/tfrt-compile" "$ROOT/examples/tiny-cnn/model.json" --emit=shared \
     --name tiny -o "$OUT_DIR/tiny.so" >/dev/null 2>&1; then
  "$PY" -c "import numpy as np; np.save('$OUT_DIR/tiny.x.npy', np.zeros((1, 1, 8, 8), np.float32))"
  /usr/bin/time -f '%M' -o "$OUT_DIR/time.txt" "$BUILD_DIR/bin/tfrt-run" "$OUT_DIR/tiny.so" \
    --name tiny --input "x=$OUT_DIR/tiny.x.npy" --benchmark=1 --warmup=0 >/dev/null 2>&1 &&
    printf 'baseline peak RSS: tfrt-run + tiny model %.1f MiB' "$(echo "$(tail -1 "$OUT_DIR/time.txt") / 1024" | bc -l)"
fi
/usr/bin/time -f '%M' -o "$OUT_DIR/time.txt" node -e \
  "require('$ORT_DIR/node_modules/onnxruntime-node')" >/dev/null 2>&1 &&
  printf ', node + onnxruntime-node loaded %.1f MiB\n' "$(echo "$(tail -1 "$OUT_DIR/time.txt") / 1024" | bc -l)"

for name in "${@:-cls det rec}"; do
  for model in $name; do
    file=$MODELS_DIR/$(model_file "$model")
    shape=$(model_shape "$model")
    if [ ! -f "$file" ]; then echo "$model: no model file $file"; continue; fi
    so=$OUT_DIR/$model.so
    # Compile time: the median of COMPILES compiles (one is at the mercy of
    # the VM's slow phases).
    times=""
    for ((c = 0; c < ${COMPILES:-3}; c++)); do
      start=$(date +%s.%N)
      if ! "$BUILD_DIR/bin/tfrt-compile" "$file" --input-shape "x=$shape" --emit=shared \
           --name "$model" -o "$so" >"$OUT_DIR/$model.compile.log" 2>&1; then
        times=""
        break
      fi
      times="$times $(echo "$(date +%s.%N) - $start" | bc)"
    done
    if [ -z "$times" ]; then
      echo "$model: does not compile: $(head -1 "$OUT_DIR/$model.compile.log")"
      continue
    fi
    compile_s=$(echo $times | tr ' ' '\n' | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
    "$PY" -c "import numpy as np, sys; d=[int(x) for x in sys.argv[2].split('x')];
np.save(sys.argv[1], np.random.RandomState(1234).rand(*d).astype(np.float32))" \
      "$OUT_DIR/$model.x.npy" "$shape"
    runs=${RUNS:-$([ "$model" = cls ] && echo 200 || echo 30)}
    # How quiet the machine is: CPUs kept busy by others over 2 s of our idling.
    busy=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat; sleep 2;
           awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat)
    busy=$(echo "$busy" | awk -v n="$(nproc)" 'NR==1{b=$1; i=$2} NR==2{db=$1-b; di=$2-i; printf "%.2f", (db+di) ? n*db/(db+di) : 0}')
    echo "$model: background load before the runs: $busy of $(nproc) CPUs busy"
    # What a core pays to write over lines the other core read (the VM's
    # placement of its vCPUs; bench/kernels/xcore_probe.c): the 2-thread
    # figures move with it.
    xcore=-
    if [ -n "${XCORE_PROBE_BIN:-}" ]; then
      xcore=$("$XCORE_PROBE_BIN" | sed -n 's/.*: \([0-9.]*\)x.*/\1/p')
      [ -n "$xcore" ] || xcore=-
      echo "$model: cross-core writes $xcore x the cost of writes over own lines"
    fi
    for t in $OURS_THREADS; do : >"$OUT_DIR/$model.ours$t"; : >"$OUT_DIR/$model.ours$t.load"; done
    for t in $ORT_THREADS; do : >"$OUT_DIR/$model.ort$t"; : >"$OUT_DIR/$model.ort$t.load"; done
    # /usr/bin/time: peak RSS (KiB), user+system and elapsed seconds.
    timed() { /usr/bin/time -f 'TIME %M %U %S %e' -o "$OUT_DIR/time.txt" "$@"; }
    record() { # FILE.load: "rss_kib cpu/wall"
      awk '/^TIME/ {printf "%d %.2f\n", $2, ($3 + $4) / ($5 > 0 ? $5 : 1)}' "$OUT_DIR/time.txt" >>"$1"
    }
    rounds=$([ "$model" = cls ] && echo $((ROUNDS * 3)) || echo "$ROUNDS")
    reverse() { echo "$@" | tr ' ' '\n' | tac | tr '\n' ' '; }
    for ((r = 0; r < rounds; r++)); do
      ours_order=$OURS_THREADS ort_order=$ORT_THREADS
      if ((r % 2)); then ours_order=$(reverse $OURS_THREADS) ort_order=$(reverse $ORT_THREADS); fi
      for t in $ours_order; do
        timed "$BUILD_DIR/bin/tfrt-run" "$so" --name "$model" --input "x=$OUT_DIR/$model.x.npy" \
          --benchmark="$runs" --warmup="$WARMUP" --threads="$t" | parse >>"$OUT_DIR/$model.ours$t"
        record "$OUT_DIR/$model.ours$t.load"
      done
      for t in $ort_order; do
        timed node "$ROOT/bench/models/ort_bench.js" --ort-dir "$ORT_DIR" --model "$file" \
          --input "x=$shape" --threads "$t" --runs "$runs" --warmup "$WARMUP" |
          parse >>"$OUT_DIR/$model.ort$t"
        record "$OUT_DIR/$model.ort$t.load"
      done
    done
    # Ours at 2 threads against ours at 1 in the same phases of the machine:
    # one process, a 1-thread and a 2-thread instance called in turn
    # (bench/ab/interleave.c); the median over iterations of 2t / 1t.
    paired=-
    if [[ " $OURS_THREADS " == *" 1 "* && " $OURS_THREADS " == *" 2 "* ]]; then
      iters=$([ "$model" = cls ] && echo 600 || { [ "$model" = det ] && echo 30 || echo 100; })
      paired=$(THREADS=1,2 "$INTERLEAVE" "$model" "$iters" "$so" |
        sed -n 's/.*@2t .*paired ratio vs first \([0-9.]*\).*/\1/p')
      [ -n "$paired" ] || paired=-
    fi
    printf '%s (%s, compile %.1f s, %d rounds x %d runs)\n' "$model" "$shape" "$compile_s" "$rounds" "$runs"
    printf '  ours 2t/1t paired in one process: %s\n' "$paired"
    # "peak-RSS-MiB cpu/wall" medians of a tool's rounds
    colmed() { cut -d' ' -f"$2" "$1" | sort -n | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
    loadinfo() { printf 'peak RSS %.1f MiB, cpu/wall %.2f' \
      "$(echo "$(colmed "$1" 1) / 1024" | bc -l)" "$(colmed "$1" 2)"; }
    declare -A med
    for t in $OURS_THREADS; do
      read -r m lo hi best < <(summarise <"$OUT_DIR/$model.ours$t")
      med[ours$t]=$m
      printf '  %-12s median %8s ms  round medians %s..%s  best %s  %s\n' "ours ${t}t" "$m" "$lo" "$hi" "$best" "$(loadinfo "$OUT_DIR/$model.ours$t.load")"
    done
    for t in $ORT_THREADS; do
      read -r m lo hi best < <(summarise <"$OUT_DIR/$model.ort$t")
      med[ort$t]=$m
      printf '  %-12s median %8s ms  round medians %s..%s  best %s  %s\n' "ORT ${t}t" "$m" "$lo" "$hi" "$best" "$(loadinfo "$OUT_DIR/$model.ort$t.load")"
    done
    for t in $OURS_THREADS; do
      if [ -n "${med[ort$t]:-}" ] && [ "${med[ort$t]}" != - ] && [ "${med[ours$t]}" != - ]; then
        printf '  ours/ORT (%s thread%s) = %s\n' "$t" "$([ "$t" = 1 ] || echo s)" \
          "$(echo "scale=3; ${med[ours$t]} / ${med[ort$t]}" | bc)"
      fi
    done
    unset med
    if [ -n "${JSON_OUT:-}" ]; then
      "$PY" - "$OUT_DIR" "$model" "$shape" "$compile_s" "$rounds" "$runs" "$busy" \
        "$OURS_THREADS" "$ORT_THREADS" "$times" "$paired" "$xcore" >>"$JSON_OUT" <<'PYEOF'
import json, statistics, sys
d, model, shape, cs, rounds, runs, busy, ours_t, ort_t, compiles, paired, xcore = sys.argv[1:13]
def tool(prefix, t):
    rows = [l.split() for l in open("%s/%s.%s%s" % (d, model, prefix, t)) if l.strip()]
    load = [l.split() for l in open("%s/%s.%s%s.load" % (d, model, prefix, t)) if l.strip()]
    if not rows:
        return None
    meds = sorted(float(r[0]) for r in rows)
    return {"median_ms": statistics.median(meds), "round_medians_ms": meds,
            "best_ms": min(float(r[1]) for r in rows),
            "peak_rss_mib": round(statistics.median(int(l[0]) for l in load) / 1024, 1) if load else None,
            "cpu_per_wall": statistics.median(float(l[1]) for l in load) if load else None}
r = {"model": model, "shape": shape, "compile_s": round(float(cs), 2),
     "compile_runs_s": [round(float(c), 2) for c in compiles.split()], "rounds": int(rounds),
     "runs": int(runs), "background_busy_cpus": float(busy),
     "ours": {t: tool("ours", t) for t in ours_t.split()},
     "ort": {t: tool("ort", t) for t in ort_t.split()}}
r["ratio"] = {t: round(r["ours"][t]["median_ms"] / r["ort"][t]["median_ms"], 3)
              for t in r["ours"] if r["ours"].get(t) and r["ort"].get(t)}
r["ours_2t_over_1t_paired"] = None if paired == "-" else float(paired)
r["cross_core_write_ratio"] = None if xcore == "-" else float(xcore)
print(json.dumps(r))
PYEOF
    fi
  done
done
