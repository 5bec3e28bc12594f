#!/usr/bin/env bash
# Installs the Debian 12 packages tfrt-compile needs to build and test.
# Idempotent: packages that are already installed are skipped, and
# `apt-get update` runs only when something has to be installed.
# Runs as root, or through sudo otherwise.
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  nlohmann-json3-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libonnx-testdata ninja-build cmake ccache googletest libgtest-dev
  python3-onnx python3-numpy
  g++-aarch64-linux-gnu qemu-user-static
  libclang-rt-22-dev
)

log() { echo "setup: $*"; }

is_installed() {
  local status
  status=$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)
  [[ "$status" == "installed" ]]
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  if is_installed "$pkg"; then
    log "ok: $pkg"
  else
    log "missing: $pkg"
    missing+=("$pkg")
  fi
done

# Node.js and npm may come from another source (e.g. a vendor repository that
# ships npm inside its nodejs package): only install Debian's when absent.
if command -v node >/dev/null 2>&1; then
  log "ok: node ($(command -v node), $(node --version 2>/dev/null || echo '?'))"
elif is_installed nodejs; then
  log "ok: nodejs"
else
  log "missing: nodejs"
  missing+=(nodejs)
fi
if command -v npm >/dev/null 2>&1; then
  log "ok: npm ($(command -v npm), $(npm --version 2>/dev/null || echo '?'))"
elif is_installed npm; then
  log "ok: npm"
else
  log "missing: npm"
  missing+=(npm)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  log "all dependencies are installed; nothing to do"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup: error: not root and sudo is not available; install: ${missing[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
log "running: apt-get update"
"${SUDO[@]}" apt-get update
log "running: apt-get install -y --no-install-recommends ${missing[*]}"
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
log "done"
