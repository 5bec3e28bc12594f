#!/usr/bin/env bash
# Builds the compiler and its tools with AddressSanitizer (build-asan-compiler/,
# -DTFRT_COMPILER_SANITIZER=address) and runs the compiler's lit tests with
# them: dialects, frontends, passes, the pipeline and the tools (not
# test/integration, whose compiled models would only measure the unsanitized
# runtime and libMLIR). A pass that reads an op another rewrite erased, or an
# importer that reads past a buffer, fails its test with ASan's report.
# Exits non-zero when the build or any test fails; the last line is lit's
# summary. Environment: TFRT_BUILD_JOBS (default: nproc), CC/CXX (default:
# clang-22/clang++-22), TFRT_ASAN_LIT_FILTER (a lit --filter regex, default:
# every test outside test/integration).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DIR=build-asan-compiler
JOBS="${TFRT_BUILD_JOBS:-$(nproc)}"
CC="${CC:-clang-22}"
CXX="${CXX:-clang++-22}"
FILTER="${TFRT_ASAN_LIT_FILTER:-^tfrt-compile :: (dialects|frontend|passes|pipeline|tools)/}"

# libMLIR and libLLVM keep some allocations until exit on purpose, and are
# not instrumented: no leak checks, no ODR checks against them.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0 detect_odr_violation=0 abort_on_error=0}"

echo "== compiler-asan: configure $DIR"
cmake -G Ninja -S . -B "$DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DTFRT_BUILD_BENCHMARKS=OFF \
  -DTFRT_COMPILER_SANITIZER=address >/dev/null
echo "== compiler-asan: build"
ninja -C "$DIR" -j "$JOBS" tfrt-opt tfrt-compile tfrt-run
echo "== compiler-asan: lit ($FILTER)"
/usr/lib/llvm-22/bin/lit "$DIR/test" -s --filter "$FILTER"
