#!/usr/bin/env bash
# Builds the web app into web/dist/ offline: cargo for wasm32, then the
# wasm-bindgen CLI at exactly the version in Cargo.lock (installed from
# crates.io by scripts/setup.sh). No tool downloads anything.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
WASM_BINDGEN="${WASM_BINDGEN:-$CACHE/tools/bin/wasm-bindgen}"
cargo build --profile web --locked -p cfg-web --target wasm32-unknown-unknown
rm -rf web/dist
mkdir -p web/dist
"$WASM_BINDGEN" --target web --no-typescript --out-dir web/dist/pkg "$CARGO_TARGET_DIR/wasm32-unknown-unknown/web/cfg_web.wasm"
cp web/static/index.html web/static/style.css web/dist/
wasm="web/dist/pkg/cfg_web_bg.wasm"
WASM_OPT="${WASM_OPT:-$CACHE/node/node_modules/.bin/wasm-opt}"
if [ -x "$WASM_OPT" ]; then
  before="$(stat -c %s "$wasm")"
  "$WASM_OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-reference-types --enable-sign-ext --enable-mutable-globals -o "$wasm.opt" "$wasm"
  mv "$wasm.opt" "$wasm"
  echo "wasm-opt -Oz: $before -> $(stat -c %s "$wasm") bytes"
fi
printf 'built web/dist: %s bytes of wasm, %s gzipped\n' "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"
