#!/usr/bin/env bash
# Idempotent installer for everything gpu-advisor needs to build and test.
# Follows ../shared/toolchain.md: pinned versions, nothing downloaded outside the
# crates.io / npm / Debian registries. Tools live outside the repo so CI clones reuse them.
set -euo pipefail

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
CARGO_FUZZ_VERSION=0.13.2
TWIGGY_VERSION="0.8.0"
TOOLS_ROOT="${GPU_ADVISOR_TOOLS:-$HOME/.cache/gpu-advisor/tools}"
mkdir -p "$TOOLS_ROOT/bin"
export PATH="$TOOLS_ROOT/bin:$PATH"
here="$(cd "$(dirname "$0")/.." && pwd)"

what="${1:-all}"

need_rust() {
  if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
    echo "[install] rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
}

# cargo install with fat LTO off: the tools build in about half the time (toolchain.md).
cargo_install() {
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --root "$TOOLS_ROOT" "$@"
}

need_trunk() {
  if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
    echo "[install] trunk $TRUNK_VERSION"
    cargo_install --locked trunk --version "$TRUNK_VERSION"
  fi
}

need_wasm_bindgen() {
  if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
    echo "[install] wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    # its lockfile pins a webpki-roots the registry lacks: try --locked, then fall back
    cargo_install --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" \
      || cargo_install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
}

# `make fuzz` only (not in `all`): cargo-fuzz, run with RUSTC_BOOTSTRAP=1 on the stable toolchain.
need_cargo_fuzz() {
  if ! cargo-fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
    echo "[install] cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo_install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
  fi
}

need_twiggy() {
  if ! twiggy --version 2>/dev/null | grep -q "$TWIGGY_VERSION"; then
    echo "[install] twiggy $TWIGGY_VERSION"
    cargo_install --locked twiggy --version "$TWIGGY_VERSION"
  fi
}

need_chromium() {
  if ! { command -v chromium >/dev/null && command -v chromedriver >/dev/null; }; then
    echo "[install] chromium chromium-driver (apt)"
    export DEBIAN_FRONTEND=noninteractive
    dpkg --configure -a || true
    apt-get -o DPkg::Lock::Timeout=600 update
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium chromium-driver \
      || { apt-get -o DPkg::Lock::Timeout=600 -f install -y; \
           apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium chromium-driver; }
  fi
}

need_npm() {
  # binaryen@132 (wasm-opt), playwright-core, axe-core, terser: pinned in package-lock.json
  if [ ! -x "$here/node_modules/.bin/wasm-opt" ] || [ ! -d "$here/node_modules/playwright-core" ] \
     || [ ! -d "$here/node_modules/terser" ] \
     || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
    echo "[install] npm ci"
    (cd "$here" && npm ci --no-audit --no-fund)
  fi
}

need_cargo_fetch() {
  (cd "$here" && cargo fetch --locked >/dev/null)
}

case "$what" in
  all) need_rust; need_npm; need_chromium; need_wasm_bindgen; need_trunk; need_cargo_fetch ;;
  build) need_rust; need_npm; need_wasm_bindgen; need_trunk; need_cargo_fetch ;;
  rust) need_rust ;;
  trunk) need_trunk ;;
  wasm-bindgen) need_wasm_bindgen ;;
  chromium) need_chromium ;;
  npm) need_npm ;;
  fuzz) need_cargo_fuzz ;;
  twiggy) need_twiggy ;;
  *) echo "usage: tools/install.sh [all|build|rust|trunk|wasm-bindgen|chromium|npm|fuzz|twiggy]" >&2; exit 2 ;;
esac
