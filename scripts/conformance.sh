#!/usr/bin/env bash
# Runs the ONNX backend test suite (libonnx-testdata: node, pytorch-converted,
# pytorch-operator, simple) through tfrt-compile -> tfrt-run and regenerates
# docs/conformance.md and docs/conformance.json; see docs/conformance.md.
#
#   scripts/conformance.sh                  whole suite, rewrites the docs
#   scripts/conformance.sh --update-floor   also adds new passes to
#                                           test/integration/conformance/passing.txt
#   scripts/conformance.sh --filter REGEX   only FOLDER/TEST matching REGEX;
#                                           the docs are left alone
# Other arguments go to run_conformance.py. Uses the tools of build/
# (TFRT_BUILD_DIR), copied first so that a rebuild during the run cannot mix
# two compilers. TFRT_CONFORMANCE_JOBS: parallel tests (default: nproc).
# Exit status: 1 if a test of the floor list does not pass, else 0. The last
# line is `N passed, N failed`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${TFRT_BUILD_DIR:-build}"
JOBS="${TFRT_CONFORMANCE_JOBS:-$(nproc)}"
FLOOR=test/integration/conformance/passing.txt

subset=0
for a in "$@"; do
  case "$a" in
    --filter|--filter=*|--folders|--folders=*|--no-specialise) subset=1 ;;
  esac
done

for f in "$BUILD_DIR/bin/tfrt-compile" "$BUILD_DIR/bin/tfrt-run" "$BUILD_DIR/lib/libtfrt_runtime.a"; do
  if [[ ! -e "$f" ]]; then
    echo "conformance: error: $f is missing: build first (scripts/build.sh)" >&2
    exit 2
  fi
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tfrt-conformance.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# tfrt-compile finds libtfrt_runtime.a at ../lib from its own directory.
mkdir -p "$tmp/bin" "$tmp/lib"
cp "$BUILD_DIR/bin/tfrt-compile" "$BUILD_DIR/bin/tfrt-run" "$tmp/bin/"
cp "$BUILD_DIR/lib/libtfrt_runtime.a" "$tmp/lib/"

report=()
if [[ $subset == 0 ]]; then
  report=(--json docs/conformance.json --markdown docs/conformance.md)
fi
rc=0
/usr/bin/python3 test/integration/conformance/run_conformance.py \
  --bin-dir "$tmp/bin" --work-dir "$tmp/work" --jobs "$JOBS" --quiet \
  --floor "$FLOOR" "${report[@]}" "$@" || rc=$?
exit "$rc"
