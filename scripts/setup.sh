#!/usr/bin/env bash
# One-time set-up of a fresh machine: system packages, the wasm32 target and
# the independent validators the tests use (taplo, check-jsonschema,
# pre-commit), installed from the public registries into ~/.cache/cfg-toolkit.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
mkdir -p "$CACHE"

need_apt=()
command -v git >/dev/null || need_apt+=(git)
# Browser tests: Debian's Chromium and its driver (never a downloaded browser).
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
# The editor test: Debian's Neovim, headless, with its built-in LSP client.
command -v nvim >/dev/null || need_apt+=(neovim)
command -v node >/dev/null || need_apt+=(nodejs npm)
command -v cc >/dev/null || need_apt+=(build-essential)
# The TLS fault test serves a self-signed certificate with openssl s_server.
command -v openssl >/dev/null || need_apt+=(openssl)
# The hostile-file benchmark reads each run's peak memory from GNU time.
[ -x /usr/bin/time ] || need_apt+=(time)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

rustup target add wasm32-unknown-unknown
rustup component add rustfmt clippy

VENV="$CACHE/venv"
# PyYAML for scripts/check_k8s.py (named here: it must not depend on arriving with pre-commit).
if [ ! -x "$VENV/bin/pre-commit" ] || [ ! -x "$VENV/bin/taplo" ] || [ ! -x "$VENV/bin/check-jsonschema" ] ||
  ! "$VENV/bin/python" -c 'import yaml' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    'taplo==0.9.3' 'check-jsonschema==0.39.0' 'pre-commit==4.7.0' 'PyYAML==6.0.3'
fi
"$VENV/bin/taplo" --version
"$VENV/bin/check-jsonschema" --version
"$VENV/bin/pre-commit" --version
# The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock exactly;
# built from crates.io (its --locked lockfile pins crates the registry no longer serves).
WB_VERSION="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')"
TOOLS="$CACHE/tools"
if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep -q " $WB_VERSION\$"; then
  CARGO_TARGET_DIR="$CACHE/tools-target" cargo install wasm-bindgen-cli --version "$WB_VERSION" --root "$TOOLS"
fi
"$TOOLS/bin/wasm-bindgen" --version

# cargo-fuzz for the fuzz smoke pass (run with RUSTC_BOOTSTRAP=1: these machines have
# one stable toolchain and cannot fetch a nightly).
if ! "$TOOLS/bin/cargo-fuzz" --version 2>/dev/null | grep -q " 0.13.2\$"; then
  CARGO_TARGET_DIR="$CACHE/tools-target" cargo install cargo-fuzz --version 0.13.2 --root "$TOOLS"
fi
"$TOOLS/bin/cargo-fuzz" --version

# Playwright's driver library only; it uses /usr/bin/chromium, never its own browser.
NODE_DIR="$CACHE/node"
# binaryen from npm gives a wasm-opt new enough for wasm-bindgen's output
# (Debian's binaryen 108 cannot parse it).
# axe-core checks the page's accessibility in the browser test.
if [ ! -d "$NODE_DIR/node_modules/playwright-core" ] || [ ! -x "$NODE_DIR/node_modules/.bin/wasm-opt" ] \
  || [ ! -f "$NODE_DIR/node_modules/axe-core/axe.min.js" ]; then
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund playwright-core@1 binaryen@132 axe-core@4.14.1)
fi
echo "setup done: tools in $VENV, $TOOLS and $NODE_DIR"
