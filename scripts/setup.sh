#!/usr/bin/env bash
# One-time set-up of a fresh machine: system packages, the wasm32 target and
# the independent validators the tests use (taplo, check-jsonschema,
# pre-commit), installed from the public registries into ~/.cache/cfg-toolkit.
set -euo pipefail

CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
mkdir -p "$CACHE"

need_apt=()
command -v git >/dev/null || need_apt+=(git)
command -v cc >/dev/null || need_apt+=(build-essential)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

rustup target add wasm32-unknown-unknown
rustup component add rustfmt clippy

VENV="$CACHE/venv"
if [ ! -x "$VENV/bin/pre-commit" ] || [ ! -x "$VENV/bin/taplo" ] || [ ! -x "$VENV/bin/check-jsonschema" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    'taplo==0.9.3' 'check-jsonschema==0.39.0' 'pre-commit==4.7.0'
fi
"$VENV/bin/taplo" --version
"$VENV/bin/check-jsonschema" --version
"$VENV/bin/pre-commit" --version
echo "setup done: tools in $VENV"
