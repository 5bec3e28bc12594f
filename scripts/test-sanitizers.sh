#!/usr/bin/env bash
# Builds runtime-lib and the unit tests under ThreadSanitizer and
# AddressSanitizer (runtime-only builds in build-tsan/ and build-asan/, or
# the sanitizers named as arguments: thread, address, undefined) and runs the
# unit tests with ctest. Exits non-zero when any build or test fails.
# clang needs the sanitizer runtimes (Debian: libclang-rt-22-dev, installed by
# scripts/setup.sh). Environment: TFRT_BUILD_JOBS (default: nproc), CC/CXX
# (default: clang-22/clang++-22).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

JOBS="${TFRT_BUILD_JOBS:-$(nproc)}"
CC="${CC:-clang-22}"
CXX="${CXX:-clang++-22}"
SANITIZERS=("$@")
[[ ${#SANITIZERS[@]} -gt 0 ]] || SANITIZERS=(thread address)

# Reports fail the tests: TSan/UBSan exit with 66, ASan with 1 by default.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1 strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1 halt_on_error=1}"

status=0
summaries=()
for sanitizer in "${SANITIZERS[@]}"; do
  case "$sanitizer" in
    thread) dir=build-tsan ;;
    address) dir=build-asan ;;
    undefined) dir=build-ubsan ;;
    *) echo "test-sanitizers: unknown sanitizer '$sanitizer'" >&2; exit 2 ;;
  esac
  echo "== $sanitizer: configure $dir"
  cmake -G Ninja -S . -B "$dir" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    -DTFRT_BUILD_COMPILER=OFF -DTFRT_BUILD_BENCHMARKS=OFF \
    -DTFRT_SANITIZER="$sanitizer" >/dev/null
  echo "== $sanitizer: build"
  if ! ninja -C "$dir" -j "$JOBS" tfrt-runtime-tests tfrt-async-tests \
       tfrt-run-tests; then
    summaries+=("$sanitizer: BUILD FAILED")
    status=1
    continue
  fi
  echo "== $sanitizer: test"
  log="$dir/ctest-unit.log"
  if (cd "$dir" && ctest -R '^unit\.' -j 2 --output-on-failure) 2>&1 | tee "$log"; then
    :
  else
    status=1
  fi
  summaries+=("$sanitizer: $(grep -E 'tests passed|tests failed' "$log" | tail -1)")
done

echo "== summary"
for line in "${summaries[@]}"; do
  echo "$line"
done
exit $status
