#!/usr/bin/env bash
# A real editor against `cfg-lint server`: Debian's Neovim, headless, set up
# exactly as the README says (editors/neovim/cfg-lint.lua, which the README
# quotes), opens the SPEC's settings.json beside its config.toml.
# Usage: tests/editor/neovim.sh DIR_WITH_CFG_LINT
set -euo pipefail
bin="$(cd "$1" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
command -v nvim >/dev/null || { echo "nvim is not installed (scripts/setup.sh installs Debian's neovim)"; exit 1; }
# The README must show the set-up this test uses, word for word.
python3 - "$repo" <<'PY'
import pathlib, sys, textwrap
repo = pathlib.Path(sys.argv[1])
snippet = (repo / "editors/neovim/cfg-lint.lua").read_text()
readme = (repo / "README.md").read_text()
# Quoted inside a list item: indented by two spaces, otherwise the same.
assert textwrap.indent(snippet, "  ") in readme, "README.md does not quote editors/neovim/cfg-lint.lua as it is"
PY
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$repo/examples/spec/config.toml" "$repo/examples/spec/settings.json" "$work/"
cd "$work"
nvim --version | head -1
PATH="$bin:$PATH" timeout 90 nvim --headless -n -i NONE -u "$repo/editors/neovim/cfg-lint.lua" \
  -c "luafile $repo/tests/editor/neovim-session.lua" settings.json 2>&1 | tr '\r' '\n' | grep -v '^$'
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || { echo "neovim session failed (exit $status)"; exit 1; }
