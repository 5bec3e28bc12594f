#!/usr/bin/env bash
# Configures (once) and builds tfrt-compile into build/ at the repository root.
# Works from any directory. Extra arguments are passed to ninja.
# Environment: TFRT_BUILD_JOBS (default: nproc), TFRT_BUILD_DIR (default: build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR="${TFRT_BUILD_DIR:-build}"
JOBS="${TFRT_BUILD_JOBS:-$(nproc)}"

if [[ -f "$BUILD_DIR/build.ninja" && -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  echo "build: $BUILD_DIR is already configured"
else
  echo "build: configuring $BUILD_DIR"
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi

echo "build: ninja -C $BUILD_DIR -j $JOBS $*"
ninja -C "$BUILD_DIR" -j "$JOBS" "$@"
