#!/usr/bin/env bash
# The real-vLLM end-to-end suite: installs vLLM's CPU build into the cache (reused
# when intact), builds the tiny model, runs suite.py's five parts against real vLLM
# servers and writes artifacts/e2e-vllm/summary.md.
#
# Exit 0 with "not run: <reason>" when vLLM cannot be installed (registry
# unreachable, install failure); any disagreement or error after that exits 1.
# Expects cfg-lint and cfg-bench in $BIN (default: the debug build).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
BIN="${BIN:-$CARGO_TARGET_DIR/debug}"
WORK="${E2E_VLLM_WORK:-$ROOT/artifacts/e2e-vllm}"

for tool in cfg-lint cfg-bench; do
  [ -x "$BIN/$tool" ] || { echo "e2e-vllm: $BIN/$tool missing; build the workspace first (cargo build --workspace)" >&2; exit 1; }
done

start=$(date +%s)
LOG="$CACHE/vllm-install.log"
mkdir -p "$CACHE"
if ! PY="$(bash "$ROOT/tests/e2e-vllm/install.sh" 2>"$LOG" | tail -1)"; then
  tail -n 20 "$LOG" >&2
  reason="$(grep '^install failed' "$LOG" | tail -1 || true)"
  echo "################################################################"
  echo "e2e-vllm: NOT RUN: vLLM could not be installed: ${reason:-see the install output above}"
  echo "################################################################"
  mkdir -p "$WORK" && echo "not run: vLLM could not be installed: ${reason}" >"$WORK/summary.md"
  exit 0
fi
echo "e2e-vllm: vLLM ready ($PY) after $(( $(date +%s) - start )) s"

MODEL_DIR="$CACHE/vllm-models/tiny-llama"
"$PY" "$ROOT/tests/e2e-vllm/build_model.py" "$MODEL_DIR"

rm -rf "$WORK" && mkdir -p "$WORK"
CJ="$CACHE/venv/bin/check-jsonschema"
[ -x "$CJ" ] || CJ=""
"$PY" "$ROOT/tests/e2e-vllm/suite.py" --model "$MODEL_DIR" --bin "$BIN" --work "$WORK" \
  ${CJ:+--check-jsonschema "$CJ"} --rounds "${E2E_VLLM_ROUNDS:-3}"
echo "e2e-vllm: passed in $(( $(date +%s) - start )) s; summary in $WORK/summary.md"
