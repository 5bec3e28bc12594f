#!/usr/bin/env bash
# Compiles the bundled example, examples/tiny-cnn/model.json (a small CNN in
# the tfrt-graph JSON format), ahead of time and uses it two ways:
#   1. tfrt-compile --emit=obj, then a C program (examples/tiny-cnn/main.c)
#      that includes the generated tiny_cnn.h, links tiny_cnn.o with
#      libtfrt_runtime.a, runs the model on a fixed input and prints/checks
#      the outputs;
#   2. tfrt-compile --emit=shared, then tfrt-run --print on the same input.
# Runs scripts/setup.sh and scripts/build.sh first (both skip what is done;
# set TFRT_SKIP_SETUP=1 to skip them). Outputs go to build/examples/tiny-cnn.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ "${TFRT_SKIP_SETUP:-0}" != 1 ]]; then
  scripts/setup.sh
  scripts/build.sh
fi

BIN="$ROOT/build/bin"
RUNTIME_LIB="$ROOT/build/lib/libtfrt_runtime.a"
MODEL="$ROOT/examples/tiny-cnn/model.json"
OUT="$ROOT/build/examples/tiny-cnn"
CC="${CC:-clang-22}"

for f in "$BIN/tfrt-compile" "$BIN/tfrt-run" "$RUNTIME_LIB"; do
  [[ -e "$f" ]] || { echo "example: error: $f is missing (run scripts/build.sh)" >&2; exit 1; }
done

step() { echo; echo "== $*"; }
run() { echo "+ $*"; "$@"; }

rm -rf "$OUT"
mkdir -p "$OUT/obj" "$OUT/shared"

step "1. Compile $(basename "$MODEL") to an object file and a C header"
run "$BIN/tfrt-compile" "$MODEL" --format=json --name tiny_cnn -o "$OUT/obj" --emit=obj
ls -l "$OUT/obj"
echo "metadata ($OUT/obj/tiny_cnn.json):"
cat "$OUT/obj/tiny_cnn.json"
echo

step "2. Build examples/tiny-cnn/main.c against the generated header and run it"
run "$CC" -std=c11 -O2 -Wall -Wextra -I runtime-lib/include -I "$OUT/obj" \
  examples/tiny-cnn/main.c "$OUT/obj/tiny_cnn.o" "$RUNTIME_LIB" -lm -lstdc++ \
  -o "$OUT/tiny_cnn"
run "$OUT/tiny_cnn"

step "3. Compile the same model to a shared library and run it with tfrt-run"
run "$BIN/tfrt-compile" "$MODEL" --format=json --name tiny_cnn -o "$OUT/shared" --emit=shared
# The same input as main.c, as .npy.
/usr/bin/python3 - "$OUT/x.npy" <<'PY'
import sys
import numpy as np
x = np.array([((i * 7) % 11) / 10.0 - 0.5 for i in range(64)], np.float32)
np.save(sys.argv[1], x.reshape(1, 1, 8, 8))
PY
run "$BIN/tfrt-run" "$OUT/shared/tiny_cnn.so" --input "x=$OUT/x.npy" \
  --output-dir "$OUT/run" --print

echo
echo "example: done (outputs in build/examples/tiny-cnn)"
