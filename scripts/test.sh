#!/usr/bin/env bash
# The whole test suite, from a fresh machine: it runs scripts/setup.sh first
# (idempotent: seconds when everything is there), then every stage below.
#
#   bash scripts/test.sh              every stage, in order
#   bash scripts/test.sh fuzz web     only these stages (setup still runs)
#   bash scripts/test.sh --list       the stages and what each checks
#
# CFG_SKIP_SETUP=1 skips setup.sh; CFG_SKIP_VLLM=1 skips the real-vLLM stage.
# Randomised tests run with fixed seeds (printed); CFG_PROPTEST_FRESH=1 and
# CFG_FUZZ_SEED=<n> explore with other seeds locally.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CACHE="${CFG_TOOLKIT_CACHE:-$HOME/.cache/cfg-toolkit}"
VENV="$CACHE/venv"
# Builds are kept outside the clone so repeated runs on one machine reuse them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
export CARGO_TERM_COLOR=never
BIN="$CARGO_TARGET_DIR/debug"

STAGES=(fmt clippy wasm-core tests schema main-job bench web editor validators k8s pre-commit fuzz accuracy soak vllm)
describe() {
  case "$1" in
    fmt) echo "rustfmt" ;;
    clippy) echo "clippy, warnings denied" ;;
    wasm-core) echo "cfg-core builds for wasm32-unknown-unknown" ;;
    tests) echo "unit, snapshot, property and integration tests (fixed seeds)" ;;
    schema) echo "the committed schemas match the code" ;;
    main-job) echo "the main job: the demo and the SPEC's example pair" ;;
    bench) echo "hostile files linear in size; cfg-bench: a short load test, runs, compare, sweep" ;;
    web) echo "the web app, built offline and driven in headless Chromium" ;;
    editor) echo "the language server in headless Neovim as the README sets it up; its latency and memory" ;;
    validators) echo "independent validators (check-jsonschema, taplo) accept the examples and reject broken files" ;;
    k8s) echo "the sharded-run Kubernetes manifest's shape" ;;
    pre-commit) echo "the pre-commit hook, installed by pre-commit itself" ;;
    fuzz) echo "every fuzz target over the committed corpus, fixed seed and run count" ;;
    accuracy) echo "the runner's percentiles within 1 ms of the simulator's trace" ;;
    soak) echo "the runner at 512 streams for a minute; memory flat" ;;
    vllm) echo "real vLLM (CPU build): rendered launches, predicted refusals, measured numbers" ;;
  esac
}

selected=()
for arg in "$@"; do
  case "$arg" in
    --list)
      for s in "${STAGES[@]}"; do printf '%-11s %s\n' "$s" "$(describe "$s")"; done
      exit 0
      ;;
    -h | --help)
      sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      [ -n "$(describe "$arg")" ] || { echo "unknown stage '$arg'; the stages are: ${STAGES[*]}" >&2; exit 2; }
      selected+=("$arg")
      ;;
  esac
done
((${#selected[@]})) || selected=("${STAGES[@]}")

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

timings=()
clock() { date +%s; }
# Stages that run the tools build them first (a no-op after the tests stage).
need_bins() { cargo build --locked -p cfg-lint -p cfg-bench --bins; }

expect_fail() {
  if "$@" >"$scratch/expect-fail.log" 2>&1; then
    echo "expected failure, but it passed: $*"; cat "$scratch/expect-fail.log"; exit 1
  fi
  echo "rejected as expected: ${*: -1}"
}

stage_fmt() { cargo fmt --all --check; }

stage_clippy() { cargo clippy --workspace --all-targets --locked -- -D warnings; }

stage_wasm-core() { cargo build -p cfg-core --target wasm32-unknown-unknown --locked; }

stage_tests() {
  cargo test --workspace --all-targets --locked
  cargo test --workspace --doc --locked
  # The memory model against the real start-up logs: the figures the README quotes.
  cargo test -p cfg-core --test memory_logs --locked -q -- --nocapture | grep -E '^(fit|held out|start/fail)'
}

stage_schema() {
  need_bins
  "$BIN/cfg-lint" schema --check schemas
}

stage_main-job() {
  need_bins
  # The README's main job, as a new user runs it (debug build, shorter).
  (cd "$scratch" && "$BIN/cfg-bench" demo --duration 3) | tee "$scratch/demo.log"
  grep -q "^verdict: " "$scratch/demo.log"
  [ -s "$scratch/cfg-bench-demo/result.json" ] && grep -q "<svg" "$scratch/cfg-bench-demo/report.html"
  "$BIN/cfg-lint" check "$scratch/cfg-bench-demo/result.json"

  # The SPEC's example pair must fail on the tail class.
  set +e
  out="$("$BIN/cfg-lint" check examples/spec/config.toml examples/spec/settings.json --format json)"
  code=$?
  set -e
  [ "$code" = 1 ] || { echo "expected exit 1, got $code"; exit 1; }
  echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
tail = [d for d in r["diagnostics"] if d["code"] == "CFG501" and d["pointer"] == "/request_distribution/tail"]
assert tail and tail[0]["file"].endswith("settings.json") and "max_model_len" in tail[0]["message"], r
print("tail class flagged at %s:%d:%d" % (tail[0]["file"], tail[0]["line"], tail[0]["column"]))'
  "$BIN/cfg-lint" check examples/config.toml examples/settings.json --deny-warnings
}

stage_bench() {
  need_bins
  # Hostile files: time linear in size, memory bounded (debug build here; the
  # README's figures are the release build's).
  python3 scripts/bench-hostile.py "$BIN/cfg-lint" --max-seconds 5
  local dir="$scratch/bench"
  mkdir -p "$dir"
  "$BIN/cfg-bench" run --settings tests/bench/quick-settings.json --server-config examples/config.toml --sim \
    --output "$dir/result.json" --html "$dir/report.html" --runs-dir "$dir/runs"
  "$BIN/cfg-lint" check "$dir/result.json"
  "$VENV/bin/check-jsonschema" --schemafile schemas/result.schema.json "$dir/result.json"
  grep -q "<svg" "$dir/report.html"
  "$BIN/cfg-bench" runs --runs-dir "$dir/runs"
  local run_id
  run_id="$(ls "$dir/runs" | head -n1)"
  "$BIN/cfg-bench" compare "$dir/result.json" "$run_id" --runs-dir "$dir/runs" --fail-over 1
  "$BIN/cfg-bench" sim --server-config examples/config.toml --sweep max_num_seqs=4,16,64 --settings tests/bench/quick-settings.json
}

stage_web() {
  need_bins
  bash scripts/build-web.sh
  cargo clippy -p cfg-web --target wasm32-unknown-unknown --all-targets --locked -- -D warnings
  PATH="$CACHE/tools/bin:$PATH" CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/web/webdriver.json" \
    cargo test -p cfg-web --target wasm32-unknown-unknown --locked
  CFG_BENCH="$BIN/cfg-bench" CFG_LINT="$BIN/cfg-lint" PLAYWRIGHT_CORE_DIR="$CACHE/node/node_modules" \
    node --test tests/e2e/
}

stage_validators() {
  "$VENV/bin/check-jsonschema" --check-metaschema schemas/*.schema.json
  "$VENV/bin/check-jsonschema" --schemafile schemas/settings.schema.json examples/settings.json examples/spec/settings.json
  "$VENV/bin/check-jsonschema" --schemafile schemas/config.schema.json examples/config.toml examples/spec/config.toml
  "$VENV/bin/taplo" check --no-auto-config --schema "file://$ROOT/schemas/config.schema.json" examples/config.toml examples/spec/config.toml
  # The `#:schema` header alone must be enough for taplo.
  "$VENV/bin/taplo" check --no-auto-config examples/config.toml
  expect_fail "$VENV/bin/check-jsonschema" --schemafile schemas/settings.schema.json tests/schema-cases/bad-settings.json
  expect_fail "$VENV/bin/check-jsonschema" --schemafile schemas/config.schema.json tests/schema-cases/bad-config.toml
  expect_fail "$VENV/bin/taplo" check --no-auto-config --schema "file://$ROOT/schemas/config.schema.json" tests/schema-cases/bad-config.toml
}

stage_k8s() {
  "$VENV/bin/python" scripts/check_k8s.py deploy/k8s/cfg-bench-shards.yaml
  sed 's/parallelism: 4/parallelism: 2/' deploy/k8s/cfg-bench-shards.yaml >"$scratch/k8s-serial.yaml"
  expect_fail "$VENV/bin/python" scripts/check_k8s.py "$scratch/k8s-serial.yaml"
}

stage_pre-commit() {
  export PRE_COMMIT_HOME="$CACHE/pre-commit"
  local case repo code
  for case in good bad; do
    repo="$scratch/pre-commit/$case"
    mkdir -p "$repo"
    if [ "$case" = good ]; then
      cp examples/config.toml examples/settings.json "$repo/"
    else
      cp examples/spec/config.toml examples/spec/settings.json "$repo/"
    fi
    git -C "$repo" init -q
    git -C "$repo" add -A
    set +e
    (cd "$repo" && "$VENV/bin/pre-commit" try-repo "$ROOT" cfg-lint --all-files) >"$repo.log" 2>&1
    code=$?
    set -e
    tail -n 25 "$repo.log"
    if [ "$case" = good ] && [ "$code" != 0 ]; then echo "pre-commit failed on the good pair"; exit 1; fi
    if [ "$case" = bad ] && [ "$code" = 0 ]; then echo "pre-commit passed the bad pair"; exit 1; fi
    if [ "$case" = bad ] && ! grep -q CFG501 "$repo.log"; then echo "pre-commit output lacks CFG501"; exit 1; fi
  done
  # Half a pair in a commit: only config.toml is staged, lowering max_model_len so
  # that settings.json's tail class (on disk, not staged) no longer fits.
  repo="$scratch/pre-commit/half"
  mkdir -p "$repo"
  cp examples/config.toml examples/settings.json "$repo/"
  git -C "$repo" init -q
  git -C "$repo" -c user.email=ci@example.invalid -c user.name=ci commit -qm base --allow-empty
  git -C "$repo" add settings.json
  git -C "$repo" -c user.email=ci@example.invalid -c user.name=ci commit -qm settings
  sed -i 's/^max_model_len = 12288/max_model_len = 8192/; s/^max_num_batched_tokens = 12288/max_num_batched_tokens = 8192/' "$repo/config.toml"
  git -C "$repo" add config.toml
  set +e
  (cd "$repo" && "$VENV/bin/pre-commit" try-repo "$ROOT" cfg-lint) >"$repo.log" 2>&1
  code=$?
  set -e
  tail -n 25 "$repo.log"
  if [ "$code" = 0 ] || ! grep -q CFG501 "$repo.log"; then echo "pre-commit passed half a broken pair"; exit 1; fi
  echo "pre-commit: good pair passed, bad pair failed, half a broken pair failed"
}

stage_fuzz() {
  # A fixed seed and a fixed number of runs make each pass the same on every
  # machine (time limits would make it depend on the machine's speed). A crash
  # prints the seed, the command that replays it and the input itself, so it is
  # reproducible from the CI log alone. New inputs go to a scratch folder, so the
  # committed corpus only changes on purpose.
  # Runs per target: about 15 s each on a 2-core machine (see fuzz/README.md).
  local seed="${CFG_FUZZ_SEED:-1}" target runs fresh
  local fuzz_target_dir="$CACHE/fuzz-target"
  for target_runs in parse_toml:45000 parse_json:300000 lint_pair:25000 render:25000 memory:60000 model_config:20000; do
    target="${target_runs%%:*}"
    runs="${CFG_FUZZ_RUNS:-${target_runs#*:}}"
    fresh="$scratch/fuzz-$target"
    mkdir -p "$fresh/new" "$fresh/crash"
    if ! (cd fuzz && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$fuzz_target_dir" "$CACHE/tools/bin/cargo-fuzz" run -O "$target" \
      "$fresh/new" "corpus/$target" -- -seed="$seed" -runs="$runs" -max_total_time=600 -rss_limit_mb=1024 -timeout=10 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix="$fresh/crash/") >"$fresh/log" 2>&1; then
      tail -n 40 "$fresh/log"
      echo "fuzz $target FAILED with -seed=$seed -runs=$runs; replay the input below with:"
      echo "  cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -O $target INPUT_FILE"
      for f in "$fresh"/crash/*; do
        [ -f "$f" ] || continue
        echo "input $(basename "$f"), base64 (decode with base64 -d > INPUT_FILE):"
        base64 -w 0 "$f"
        echo
      done
      exit 1
    fi
    echo "fuzz $target (-seed=$seed -runs=$runs): $(grep -E '^Done' "$fresh/log")"
  done
}

stage_editor() {
  need_bins
  bash tests/editor/neovim.sh "$BIN"
  # A debug build, as the README's figures are: a release build is faster still.
  python3 scripts/bench_lsp.py "$BIN/cfg-lint" --edits 10000 --p99-ms 10
}

stage_accuracy() {
  need_bins
  # Kernel receive stamps on both sides keep this true even for a debug build on a
  # busy machine; it fails (exit 1) past 1 ms.
  python3 scripts/bench_runner.py --bin "$BIN" --quick
}

stage_soak() {
  need_bins
  python3 scripts/bench_runner.py --bin "$BIN" --soak "${CFG_SOAK_SECONDS:-60}" --soak-only --window 10
}

stage_vllm() {
  # Installs vLLM into the cache on first use (~10 min, 6.7 GB); says "NOT RUN: <reason>"
  # and goes on if the registry or the install fails.
  if [ "${CFG_SKIP_VLLM:-0}" = 1 ]; then
    echo "e2e-vllm: skipped (CFG_SKIP_VLLM=1)"
    return
  fi
  need_bins
  BIN="$BIN" bash tests/e2e-vllm/run.sh
}

current_stage="" current_start=0
run_stage() {
  local name="$1"
  printf '\n==> %s: %s\n' "$name" "$(describe "$name")"
  current_stage="$name" current_start="$(clock)"
  "stage_$name"
  timings+=("$(printf '%-11s %5d s' "$name" "$(($(clock) - current_start))")")
  current_stage=""
}

print_times() {
  printf '\nstage times:\n'
  printf '  %s\n' "${timings[@]}"
  printf '  %-11s %5d s\n' total "$(($(clock) - suite_start))"
}

# A failing stage still leaves the times so far, with the stage that failed.
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -n "${suite_start:-}" ]; then
    [ -n "$current_stage" ] && timings+=("$(printf '%-11s %5d s  FAILED' "$current_stage" "$(($(clock) - current_start))")")
    printf 'disk: %s GB free where the builds go\n' "$(disk_free_gb "$CARGO_TARGET_DIR")"
    print_times
  fi
  rm -rf "$scratch"
}
trap on_exit EXIT

# The whole suite needs about 10 GB (builds 4, the CPU vLLM 6.5); a full disk
# otherwise shows up as a compiler's "IO failure" in whichever stage hits it.
disk_free_gb() { df -Pk "$1" 2>/dev/null | awk 'NR == 2 { printf "%d", $4 / 1048576 }'; }
mkdir -p "$CARGO_TARGET_DIR"
free_gb="$(disk_free_gb "$CARGO_TARGET_DIR")"
printf '==> disk: %s GB free where the builds go (%s); the suite needs about 10\n' "${free_gb:-?}" "$CARGO_TARGET_DIR"
if [ -n "$free_gb" ] && [ "$free_gb" -lt 10 ]; then
  echo "warning: less than 10 GB free; stages may fail with 'No space left on device'" >&2
fi

suite_start="$(clock)"
if [ "${CFG_SKIP_SETUP:-0}" != 1 ]; then
  printf '\n==> setup: scripts/setup.sh (idempotent)\n'
  start="$(clock)"
  bash scripts/setup.sh
  timings+=("$(printf '%-11s %5d s' setup "$(($(clock) - start))")")
fi
for s in "${selected[@]}"; do run_stage "$s"; done

print_times
printf '\nall checks passed\n'
