#!/usr/bin/env bash
# Single kernels compiled by tfrt-compile, in GFLOP/s and % of this machine's
# FP32 peak: GEMM 1024^3 and PP-OCRv4 det convolution layers (weights passed
# as run-time inputs so that the object stays small).
#
# usage: bench/kernels/run.sh [KERNEL...]     (default: all, see KERNELS below)
# environment:
#   PEAK_BIN=      a built bench/kernels/peak_fma: measures the 1-core FP32
#                  peak before every round; "% of peak" is the median over
#                  rounds of the round's GFLOP/s over that round's peak
#   PEAK_GFLOPS=   otherwise, one peak for every round; with neither, no
#                  "% of peak" column
#   MEM_PROBE_BIN= a built bench/kernels/mem_probe: the L2 and L3 read
#                  bandwidth of one core before every round (how loaded the
#                  VM's memory side was; the FMA peak does not show it)
#   PAIRED_BIN=    a built bench/kernels/paired_peak: after the rounds,
#                  PAIRED_ITERS (default 30) calls each paired with a slice
#                  of the FMA loop just before it; "paired % of peak" is the
#                  median over the calls of the call's GFLOP/s over its
#                  slice's (the peak of the same moments)
#   MCPU=          tfrt-compile --mcpu (default: the host), e.g. x86-64-v3
#                  for the AVX2 register tiles; measure the peak with a
#                  peak_fma built for the same (cc -O2 -march=x86-64-v3)
#   RUNS=30 WARMUP=5 ROUNDS=3   timed runs per round, median of round medians
#   JSON_OUT=      also append one JSON object per kernel to this file
#   BUILD_DIR=build, OUT_DIR=build/bench/kernels
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/bench/kernels}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-5}
ROUNDS=${ROUNDS:-3}
PEAK_GFLOPS=${PEAK_GFLOPS:-}
PEAK_BIN=${PEAK_BIN:-}
MEM_PROBE_BIN=${MEM_PROBE_BIN:-}
PAIRED_BIN=${PAIRED_BIN:-}
PAIRED_ITERS=${PAIRED_ITERS:-30}
PY=/usr/bin/python3
mkdir -p "$OUT_DIR"

# name | input shape | weight shape | output shape | conv attributes (empty: matmul)
KERNELS="
gemm1024|1024x1024|1024x1024|1024x1024|
det_conv3x3_96to24_160|1x96x160x160|24x96x3x3|1x24x160x160|strides=1,1 pads=1,1,1,1 group=1
det_conv1x1_192_40|1x192x40x40|192x192x1x1|1x192x40x40|strides=1,1 pads=0,0,0,0 group=1
det_conv3x3_96to24_80|1x96x80x80|24x96x3x3|1x24x80x80|strides=1,1 pads=1,1,1,1 group=1
det_conv3x3_96to24_40|1x96x40x40|24x96x3x3|1x24x40x40|strides=1,1 pads=1,1,1,1 group=1
det_conv1x1_16to32_320|1x16x320x320|32x16x1x1|1x32x320x320|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_48_160|1x48x160x160|48x48x1x1|1x48x160x160|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_96_80|1x96x80x80|96x96x1x1|1x96x80x80|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_384_20|1x384x20x20|384x384x1x1|1x384x20x20|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_384to360_20|1x384x20x20|360x384x1x1|1x360x20x20|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_12to96_160|1x12x160x160|96x12x1x1|1x96x160x160|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_48to12_160|1x48x160x160|12x48x1x1|1x12x160x160|strides=1,1 pads=0,0,0,0 group=1
det_conv1x1_192to42_40|1x192x40x40|42x192x1x1|1x42x40x40|strides=1,1 pads=0,0,0,0 group=1
det_dw3x3_48_160|1x48x160x160|48x1x3x3|1x48x160x160|strides=1,1 pads=1,1,1,1 group=48
det_dw3x3s2_48_160|1x48x160x160|48x1x3x3|1x48x80x80|strides=2,2 pads=1,1,1,1 group=48
det_dw5x5_192_40|1x192x40x40|192x1x5x5|1x192x40x40|strides=1,1 pads=2,2,2,2 group=192
rec_dw5x5_240_12x80|1x240x12x80|240x1x5x5|1x240x12x80|strides=1,1 pads=2,2,2,2 group=240
det_conv3x3s2_3to16_640|1x3x640x640|16x3x3x3|1x16x320x320|strides=2,2 pads=1,1,1,1 group=1
"

tensor() { echo "tensor<${1}xf32>"; }
flops() {  # 2 * output elements * weight elements per output channel
  "$PY" -c "import sys, math
o=[int(x) for x in sys.argv[1].split('x')]; w=[int(x) for x in sys.argv[2].split('x')]
print(2*1024**3 if sys.argv[3]=='mm' else 2*math.prod(o)*math.prod(w[1:]))" "$1" "$2" "$3"
}

want="${*:-}"
echo "$KERNELS" | while IFS='|' read -r name xs ws ys attrs; do
  [ -z "$name" ] && continue
  if [ -n "$want" ] && ! [[ " $want " == *" $name "* ]]; then continue; fi
  mlir=$OUT_DIR/$name.mlir
  if [ -z "$attrs" ]; then
    op="graph.matmul %x, %w : ($(tensor "$xs"), $(tensor "$ws")) -> $(tensor "$ys")"
    kind=mm
  else
    s=$(echo "$attrs" | sed -n 's/.*strides=\([0-9,]*\).*/\1/p' | tr ',' ' ' | sed 's/ /, /g')
    p=$(echo "$attrs" | sed -n 's/.*pads=\([0-9,]*\).*/\1/p' | sed 's/,/, /g')
    g=$(echo "$attrs" | sed -n 's/.*group=\([0-9]*\).*/\1/p')
    op="graph.conv %x, %w {dilations = array<i64: 1, 1>, group = $g : i64, pads = array<i64: $p>, strides = array<i64: $s>} : ($(tensor "$xs"), $(tensor "$ws")) -> $(tensor "$ys")"
    kind=conv
  fi
  cat >"$mlir" <<MLIR
func.func @main(%x: $(tensor "$xs") {graph.name = "x"}, %w: $(tensor "$ws") {graph.name = "w"}) -> ($(tensor "$ys") {graph.name = "y"}) {
  %y = $op
  return %y : $(tensor "$ys")
}
MLIR
  start=$(date +%s.%N)
  if ! "$BUILD_DIR/bin/tfrt-compile" "$mlir" --emit=shared --name "$name" -o "$OUT_DIR/$name.so" \
       ${MCPU:+--mcpu="$MCPU"} >"$OUT_DIR/$name.log" 2>&1; then
    echo "$name: does not compile: $(head -1 "$OUT_DIR/$name.log")"; continue
  fi
  compile_s=$(echo "$(date +%s.%N) - $start" | bc)
  "$PY" -c "import numpy as np, sys
r=np.random.RandomState(7)
for f, s in zip(sys.argv[1::2], sys.argv[2::2]):
    np.save(f, (r.rand(*[int(x) for x in s.split('x')]) - 0.5).astype(np.float32))" \
    "$OUT_DIR/$name.x.npy" "$xs" "$OUT_DIR/$name.w.npy" "$ws"
  # Each round: the peak first when PEAK_BIN is set (the clock and the
  # neighbours of this VM change within minutes), then the kernel.
  rounds=$(for ((r = 0; r < ROUNDS; r++)); do
    p=${PEAK_GFLOPS:-0}
    [ -n "$PEAK_BIN" ] && p=$("$PEAK_BIN" 0.3 | sed -n 's/.* \([0-9.]*\) GFLOP\/s.*/\1/p')
    bw=0:0
    [ -n "$MEM_PROBE_BIN" ] &&
      bw=$("$MEM_PROBE_BIN" 0.2 | sed -n 's/.*L2 \([0-9.]*\) GB\/s, L3 \([0-9.]*\) GB\/s.*/\1:\2/p')
    m=$("$BUILD_DIR/bin/tfrt-run" "$OUT_DIR/$name.so" --name "$name" --input "x=$OUT_DIR/$name.x.npy" \
      --input "w=$OUT_DIR/$name.w.npy" --benchmark="$RUNS" --warmup="$WARMUP" |
      sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    echo "$m:$p:${bw:-0:0}"
  done | tr '\n' ' ')
  fl=$(flops "$ys" "$ws" "$kind")
  paired=
  if [ -n "$PAIRED_BIN" ]; then
    paired=$("$PAIRED_BIN" "$name" "$fl" "$PAIRED_ITERS" "$OUT_DIR/$name.so" |
      sed -n 's/.*paired median \([0-9.]*\)% (q1 \([0-9.]*\)%, q3 \([0-9.]*\)%).*/\1:\2:\3/p')
  fi
  PAIRED="$paired" "$PY" - "$name" "$fl" "$compile_s" $rounds <<'PYEOF'
import sys, statistics, os
name, fl, cs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rounds = [[float(v) for v in r.split(":")] for r in sys.argv[4:] if r.split(":")[0]]
paired = [float(v) for v in os.environ.get("PAIRED", "").split(":") if v]
pairs = [(r[0], r[1]) for r in rounds]
l2 = [r[2] for r in rounds if len(r) > 2 and r[2] > 0]
l3 = [r[3] for r in rounds if len(r) > 3 and r[3] > 0]
ms = [m for m, _ in pairs]  # in round order, like the peaks
med = statistics.median(ms)
gf = fl / (med * 1e-3) / 1e9
peaks = [p for _, p in pairs if p > 0]
# % of peak: the median over rounds of (the round's GFLOP/s / the peak
# measured just before it).
pct = (statistics.median(100 * fl / (m * 1e-3) / 1e9 / p for m, p in pairs if p > 0)
       if peaks else None)
text = " %5.1f%% of peak" % pct if pct is not None else ""
if len(paired) == 3:
    text += " (paired %.1f%%, q1-q3 %.1f-%.1f%%)" % tuple(paired)
if l2:
    text += "  L2 %.0f-%.0f GB/s" % (min(l2), max(l2))
print("%-26s %9.3f ms (round medians %.3f..%.3f) %8.1f GFLOP/s%s  compile %.1f s"
      % (name, med, min(ms), max(ms), gf, text, cs))
import json, os
if os.environ.get("JSON_OUT"):
    with open(os.environ["JSON_OUT"], "a") as fh:
        fh.write(json.dumps({"kernel": name, "flop": fl, "median_ms": med,
                             "round_medians_ms": ms, "gflops": round(gf, 2),
                             "round_pct_of_peak": [round(100 * fl / (m * 1e-3) / 1e9 / p, 1)
                                                   for m, p in pairs if p > 0],
                             "peak_gflops": round(statistics.median(peaks), 1) if peaks else None,
                             "round_peaks_gflops": peaks,
                             "round_l2_gbs": l2, "round_l3_gbs": l3,
                             "pct_of_peak": round(pct, 1) if pct is not None else None,
                             "paired_pct_of_peak": paired[0] if len(paired) == 3 else None,
                             "paired_pct_q1_q3": paired[1:] if len(paired) == 3 else None,
                             "compile_s": round(float(cs), 2)}) + "\n")
PYEOF
done
