"""End-to-end suite against a real vLLM (CPU build) serving the tiny model.

Four parts, each failing the suite on any disagreement:
  1. rendering   - configs rendered by `cfg-lint render` (command line and YAML) start
                   vLLM; /v1/models shows the served name and max_model_len; the key is
                   enforced; /metrics answers.
  2. prediction  - every config in configs/: cfg-lint's verdict equals vLLM's (refuses
                   with the expected message, or starts).
  3. measurement - `cfg-bench run` with two request classes: no errors, token totals equal
                   vLLM's own counter deltas, queue and KV series scraped, result.json valid.
  4. agreement   - `vllm bench serve` and `cfg-bench run` alternate on the same server with
                   the same load; both tools' token totals must equal the counter deltas of
                   their own turn; latency and throughput are reported side by side.

Every server is started in its own process group and stopped by PID, also when the suite
is interrupted. Writes summary.md and the raw results into --work.

usage: python suite.py --model DIR --bin DIR --work DIR [--check-jsonschema PATH] [--rounds N]
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CONFIGS = HERE / "configs"
KEY_VAR = "VLLM_E2E_KEY"
STARTUP_TIMEOUT = 600  # vLLM's own engine-ready timeout
REFUSAL_TIMEOUT = 300

SERVERS: list[subprocess.Popen] = []
SERVERS_LOCK = threading.Lock()


def log(msg: str) -> None:
    print(f"[e2e-vllm {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --------------------------------------------------------------------------- servers


def stop(proc: subprocess.Popen, grace: float = 30.0) -> None:
    """SIGTERM the server's process group (vLLM forks an engine core), then SIGKILL."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers in the group, if any
    except ProcessLookupError:
        pass
    proc.wait()
    with SERVERS_LOCK:
        if proc in SERVERS:
            SERVERS.remove(proc)


def stop_all() -> None:
    for proc in list(SERVERS):
        stop(proc, grace=10)


atexit.register(stop_all)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def config_int(config: Path, key: str) -> int:
    """The integer `key = N` in one of the suite's configs."""
    return int(re.search(rf"^{key} = (\d+)", config.read_text(), re.M).group(1))


def http(url: str, key: str | None = None, timeout: float = 5.0, body: dict | None = None) -> tuple[int, str]:
    """GET, or POST of `body` as JSON; (0, reason) when nothing answers."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
        return 0, str(e)


@dataclass
class Server:
    name: str
    port: int
    proc: subprocess.Popen
    log_path: Path
    started_at: float = field(default_factory=time.monotonic)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait(self, timeout: float) -> str:
        """'ready' once /health answers 200, 'exited' if the process ends first, else 'timeout'."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return "exited"
            if http(self.base + "/health", timeout=2)[0] == 200:
                # Ours, not another process on the port: it must still be running.
                time.sleep(0.5)
                return "ready" if self.proc.poll() is None else "exited"
            time.sleep(1)
        return "timeout"

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class Env:
    def __init__(self, args: argparse.Namespace):
        self.model_dir = Path(args.model).resolve()
        self.bin = Path(args.bin).resolve()
        self.work = Path(args.work).resolve()
        self.venv_bin = Path(sys.executable).parent
        self.check_jsonschema = args.check_jsonschema
        self.rounds = args.rounds
        self.key = "e2e-" + secrets.token_hex(16)
        (self.work / "logs").mkdir(parents=True, exist_ok=True)
        (self.work / "rendered").mkdir(parents=True, exist_ok=True)
        self.cache_root = self.work / "vllm-cache"

    def env(self) -> dict[str, str]:
        e = dict(os.environ)
        e.update(
            PATH=f"{self.venv_bin}:{e.get('PATH', '')}",
            VLLM_TARGET_DEVICE="cpu",
            VLLM_CPU_KVCACHE_SPACE="2",
            VLLM_CPU_OMP_THREADS_BIND="auto",
            VLLM_NO_USAGE_STATS="1",
            DO_NOT_TRACK="1",
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            VLLM_CACHE_ROOT=str(Path(os.environ.get("VLLM_E2E_CACHE", self.cache_root))),
            NO_COLOR="1",
        )
        e[KEY_VAR] = self.key
        e.pop("VLLM_API_KEY", None)
        e.pop("OPENAI_API_KEY", None)
        return e

    def lint(self, config: Path) -> dict:
        out = subprocess.run(
            [self.bin / "cfg-lint", "check", "-f", "json", "--model-config", self.model_dir / "config.json", config],
            capture_output=True,
            text=True,
        )
        if out.returncode not in (0, 1):
            raise RuntimeError(f"cfg-lint check {config.name} exited {out.returncode}: {out.stderr}")
        report = json.loads(out.stdout)
        return {
            "exit": out.returncode,
            "errors": [d["code"] for d in report["diagnostics"] if d["severity"] == "error"],
            "first": next((f"{d['code']}: {d['message']}" for d in report["diagnostics"] if d["severity"] == "error"), ""),
        }

    def render(self, config: Path, form: str) -> Path:
        suffix = ".sh" if form == "shell" else ".yaml"
        out = self.work / "rendered" / (config.stem + suffix)
        cmd = [self.bin / "cfg-lint", "render", "--force", "-f", form, "-o", out, config]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        text = out.read_text()
        if self.key in text:
            raise AssertionError(f"the key was written into {out}")
        return out

    def launch(self, config: Path, form: str) -> Server:
        """Starts vLLM exactly as `cfg-lint render` says, in the model's parent folder
        (configs name the model by the relative path `tiny-llama`)."""
        rendered = self.render(config, form)
        port = config_int(config, "port")
        # A server left over from an interrupted run would answer for this one.
        if http(f"http://127.0.0.1:{port}/health", timeout=1)[0] != 0:
            raise RuntimeError(f"port {port} already answers: stop the server left on it first")
        if form == "shell":
            argv = ["bash", rendered.as_posix()]
            env = self.env()
        else:
            argv = ["vllm", "serve", "--config", rendered.as_posix()]
            env = self.env()
            env["VLLM_API_KEY"] = self.key  # as the YAML's header says: VLLM_API_KEY="$VAR" vllm serve --config
        log_path = self.work / "logs" / f"{config.stem}.log"
        with log_path.open("w") as log_file:
            proc = subprocess.Popen(
                argv,
                cwd=self.model_dir.parent,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        with SERVERS_LOCK:
            SERVERS.append(proc)
        return Server(config.stem, port, proc, log_path)


# --------------------------------------------------------------------------- expectations


@dataclass
class Case:
    path: Path
    lint_code: str | None  # expected error code; None for a config that must pass
    refusal: str | None  # expected text in vLLM's output; None for a config that must start
    form: str
    since: tuple[int, int] | None = None  # vLLM version the refusal starts with (the linter targets 0.33)


def cases() -> list[Case]:
    """Each config says what it expects in its header:
    `# expect: CFG101 refused "text"`, optionally followed by `since 0.33` for a check
    older vLLM lacks, or `# expect: starts (shell|yaml)`."""
    out = []
    for path in sorted(CONFIGS.glob("*.toml")):
        m = re.search(r"^# expect: (.*)$", path.read_text(), re.M)
        if not m:
            raise SystemExit(f"{path}: no `# expect:` line")
        spec = m.group(1).strip()
        if spec.startswith("starts"):
            form = "yaml" if "yaml" in spec else "shell"
            out.append(Case(path, None, None, form))
        else:
            r = re.fullmatch(r'(CFG\d{3}) refused "(.+)"(?: since (\d+)\.(\d+))?', spec)
            if not r:
                raise SystemExit(f"{path}: cannot read `# expect: {spec}`")
            since = (int(r.group(3)), int(r.group(4))) if r.group(3) else None
            out.append(Case(path, r.group(1), r.group(2), "shell", since))
    return out


def vllm_error(text: str) -> str:
    """The first sentence of the line of a failed start that says why (the last
    error-looking line), without pydantic's `[type=...]` tail."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    hits = [
        line
        for line in lines
        if re.search(r"(Error|error:|must be|should be|is greater|is smaller|incompatible|divisible)", line)
        and not line.startswith(("File ", "Traceback"))
    ]
    line = (hits or lines or ["(no output)"])[-1]
    line = re.sub(r"^(Value error, )", "", line).split(" [type=")[0]
    first = re.match(r"(.+?\.)(\s|$)", line)
    return (first.group(1) if first else line)[:200]


# --------------------------------------------------------------------------- part 1


def check_serving(env: Env, server: Server, config: Path) -> list[str]:
    """What a rendered launch must give: the served name and max_model_len, 401 without
    or with a wrong key, and /metrics. Returns the failures."""
    want_len = config_int(config, "max_model_len")
    failures = []
    status, body = http(server.base + "/v1/models", env.key)
    if status != 200:
        return [f"{server.name}: /v1/models with the key answered {status}: {body[:200]}"]
    models = json.loads(body)["data"]
    ids = [m["id"] for m in models]
    if ids != ["tiny"]:
        failures.append(f"{server.name}: /v1/models lists {ids}, expected ['tiny']")
    lens = [m.get("max_model_len") for m in models]
    if lens != [want_len]:
        failures.append(f"{server.name}: max_model_len {lens}, expected [{want_len}]")
    for label, key in (("no key", None), ("a wrong key", "wrong-" + env.key[::-1])):
        status, body = http(server.base + "/v1/models", key)
        if status != 401:
            failures.append(f"{server.name}: /v1/models with {label} answered {status}, expected 401")
    status, body = http(server.base + "/metrics")
    if status != 200 or "vllm:num_requests_running" not in body:
        failures.append(f"{server.name}: /metrics answered {status} without vllm:num_requests_running")
    log(f"{server.name}: served 'tiny' with max_model_len {lens}, 401 without key, /metrics ok")
    return failures


# CFG501's cases: (what, prompt tokens, output tokens), M = the server's max_model_len.
LENGTH_CASES = [
    ("prompt longer than the context", lambda m: m + 1, lambda m: 16),
    ("prompt that fills the context", lambda m: m, lambda m: 16),
    ("max_tokens beyond max_model_len", lambda m: 16, lambda m: m + 1000),
    ("forced output length past the context", lambda m: m - 100, lambda m: 200),
    ("a request that fits", lambda m: 100, lambda m: 50),
]


def predicted_answer(env: Env, config: Path, port: int, prompt: int, output: int) -> tuple[int, str]:
    """What cfg-lint says vLLM answers a class of these lengths (CFG501's label): the
    status and vLLM's message, or 200 when CFG501 does not fire."""
    path = env.work / f"cfg501-{prompt}-{output}.json"
    s = settings(port, 1, 10, {"probe": {"weight": 1.0, "input_tokens": prompt, "output_tokens": output}}, 0)
    s["endpoint"] = f"http://127.0.0.1:{port}/v1/completions"
    path.write_text(json.dumps(s))
    out = subprocess.run(
        [env.bin / "cfg-lint", "check", "-f", "json", "--model-config", env.model_dir / "config.json", "--pair", f"{config},{path}"],
        capture_output=True,
        text=True,
    )
    report = json.loads(out.stdout)
    for d in report["diagnostics"]:
        if d["code"] == "CFG501":
            label = d.get("label", "")
            m = re.search(r'HTTP 400: "(.*)"$', label)
            return 400, (m.group(1) if m else label)
    return 200, ""


def length_answers(env: Env, server: Server, config: Path) -> tuple[list[str], list[str], list[str]]:
    """CFG501 against the real server: each case's request is sent as cfg-bench sends a
    forced output length (max_tokens = min_tokens, ignore_eos), with a prompt of exactly
    that many token ids; vLLM's status and message beside cfg-lint's prediction."""
    m = config_int(config, "max_model_len")
    port = int(server.base.rsplit(":", 1)[1])
    rows = ["| case | prompt + output tokens | cfg-lint (CFG501) predicts | vLLM answered | agree? |", "|---|---|---|---|---|"]
    failures: list[str] = []
    notes: list[str] = []
    for what, p_of, o_of in LENGTH_CASES:
        prompt, output = p_of(m), o_of(m)
        want_status, want_message = predicted_answer(env, config, port, prompt, output)
        body = {"model": "tiny", "prompt": [100] * prompt, "max_tokens": output, "min_tokens": output, "ignore_eos": True}
        status, text = http(server.base + "/v1/completions", env.key, timeout=120, body=body)
        if status == 0:
            raise RuntimeError(f"the server did not answer the {what} probe: {text}")
        try:
            message = json.loads(text)["error"]["message"] if status != 200 else ""
        except (ValueError, KeyError, TypeError):
            message = text[:300]
        same_status = status == want_status
        same_message = message == want_message
        if not same_status:
            failures.append(f"CFG501 {what}: cfg-lint predicts HTTP {want_status}, vLLM answered {status}: {message}")
        elif not same_message:
            notes.append(
                f"- CFG501, {what}: vLLM {vllm_version(env)} says \"{message}\"; cfg-lint quotes 0.33's \"{want_message}\""
            )
        predicted = f"{want_status}" + (f": `{want_message}`" if want_message else "")
        answered = f"{status}" + (f": `{message}`" if message else "")
        verdict = "yes" if same_status and same_message else ("status only (message differs by version)" if same_status else "**NO**")
        rows.append(f"| {what} | {prompt} + {output} (max_model_len {m}) | {predicted} | {answered} | {verdict} |")
        log(f"CFG501 {what}: predicted {want_status}, vLLM {status} {message[:100]}")
    return failures, rows, notes


# --------------------------------------------------------------------------- parts 3 and 4


def counters(base: str) -> dict[str, float]:
    status, text = http(base + "/metrics")
    if status != 200:
        raise RuntimeError(f"/metrics answered {status}")
    totals: dict[str, float] = {}
    for line in text.splitlines():
        for name in ("vllm:prompt_tokens_total", "vllm:generation_tokens_total"):
            if line.startswith(name + "{") or line.startswith(name + " "):
                totals[name] = totals.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
    return totals


def settings(port: int, concurrency: int, duration: int, classes: dict, warmup: int) -> dict:
    return {
        "endpoint": f"http://127.0.0.1:{port}/v1/chat/completions",
        "api_key_env": KEY_VAR,
        "model": "tiny",
        "concurrency": concurrency,
        "duration_seconds": duration,
        "request_distribution": classes,
        "metrics": {"record_ttft": True, "record_tpot": True, "percentiles": [50, 90, 99]},
        "warmup_requests": warmup,
        "force_output_length": True,
        "seed": 7,
        "request_timeout_seconds": 120,
        "sla": {"ttft_p99_ms": 60000, "tpot_p99_ms": 5000, "error_rate": 0.0},
    }


def cfg_bench(env: Env, settings_path: Path, server_config: Path, out: Path, *extra: str) -> dict:
    # One runner thread, as vllm bench has one event loop: on a machine shared with a CPU
    # vLLM, every extra client thread's wake-ups slow the server (measured: 1.5x).
    cmd = [
        env.bin / "cfg-bench",
        "run",
        "--settings",
        settings_path,
        "--server-config",
        server_config,
        "--output",
        out,
        "--no-archive",
        "--threads",
        "1",
        *extra,
    ]
    proc = subprocess.run(cmd, env=env.env(), capture_output=True, text=True, cwd=env.work)
    (env.work / "logs" / f"{out.stem}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise AssertionError(f"cfg-bench run exited {proc.returncode}:\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
    for stream in (proc.stdout, proc.stderr, out.read_text()):
        if env.key in stream:
            raise AssertionError("the key appeared in cfg-bench's output")
    return json.loads(out.read_text())


def validate_result(env: Env, path: Path) -> list[str]:
    failures = []
    lint = subprocess.run([env.bin / "cfg-lint", "check", path], capture_output=True, text=True)
    if lint.returncode != 0:
        failures.append(f"cfg-lint check {path.name}: {lint.stdout[-500:]}")
    if env.check_jsonschema:
        schema = REPO / "schemas" / "result.schema.json"
        cj = subprocess.run([env.check_jsonschema, "--schemafile", schema, path], capture_output=True, text=True)
        if cj.returncode != 0:
            failures.append(f"check-jsonschema {path.name}: {cj.stdout[-500:]}{cj.stderr[-500:]}")
    return failures


def part3(env: Env, server: Server, config: Path) -> tuple[list[str], list[str]]:
    classes = {
        "chat": {"weight": 0.7, "input_tokens": 256, "output_tokens": 64},
        "summarise": {"weight": 0.3, "input_tokens": 1024, "output_tokens": 128},
    }
    s_path = env.work / "part3-settings.json"
    s_path.write_text(json.dumps(settings(server.port, 8, 20, classes, warmup=4), indent=2))
    out = env.work / "part3-result.json"
    r = cfg_bench(env, s_path, config, out, "--html", str(env.work / "part3-report.html"))
    failures = validate_result(env, out)
    srv = r.get("server") or {}
    tok = r["tokens"]
    if r["requests"]["failed"] or r["errors"]:
        failures.append(f"part 3: {r['requests']['failed']} failed requests: {r['errors']}")
    if r["simulated"]:
        failures.append("part 3: the result says simulated against a real vLLM")
    if set(r["per_class"]) != set(classes) or any(c["requests"] == 0 for c in r["per_class"].values()):
        failures.append(f"part 3: per-class results {list(r['per_class'])} do not cover {list(classes)}")
    if srv.get("prompt_tokens_delta") != tok["prompt_total"]:
        failures.append(f"part 3: prompt tokens {tok['prompt_total']} != vllm:prompt_tokens_total delta {srv.get('prompt_tokens_delta')}")
    if srv.get("generation_tokens_delta") != tok["completion_total"]:
        failures.append(f"part 3: completion tokens {tok['completion_total']} != vllm:generation_tokens_total delta {srv.get('generation_tokens_delta')}")
    if not tok.get("prompts_calibrated") or abs(tok["prompt_deviation_pct"]) > 5:
        failures.append(f"part 3: prompts not sized by vLLM's /tokenize: deviation {tok['prompt_deviation_pct']:.1f}%")
    if tok["completion_total"] != tok["completion_target_total"]:
        failures.append(f"part 3: forced output lengths not met: {tok['completion_total']} of {tok['completion_target_total']}")
    points = srv.get("points") or []
    for series in ("waiting", "running", "kv_cache_usage"):
        if not any(p.get(series) is not None for p in points):
            failures.append(f"part 3: scraped series {series} is empty ({len(points)} points)")
    rows = [
        "| requests | prompt tokens (vLLM delta) | prompt deviation | completion tokens (vLLM delta) | TTFT p50 / p99 ms | TPOT p50 ms | output tok/s | scrape points |",
        "|---|---|---|---|---|---|---|---|",
        f"| {r['requests']['succeeded']} ok, {r['requests']['failed']} failed | {tok['prompt_total']} ({srv.get('prompt_tokens_delta')}) | {tok['prompt_deviation_pct']:+.2f}% "
        f"| {tok['completion_total']} ({srv.get('generation_tokens_delta')}) | {r['ttft_ms'].get('p50', 0):.0f} / {r['ttft_ms'].get('p99', 0):.0f} "
        f"| {r['tpot_ms'].get('p50', 0):.1f} | {r['throughput']['output_tokens_per_sec']:.0f} | {len(points)} |",
    ]
    log(f"part 3: {r['requests']['succeeded']} requests, tokens match vLLM's counters: {not failures}")
    return failures, rows


def template_tokens(server: Server) -> int:
    """Tokens the chat template adds around a user message, from vLLM's /tokenize:
    vllm bench's random prompts are that much shorter, so both tools send `isl` in all."""
    body = {"model": "tiny", "messages": [{"role": "user", "content": ""}], "add_generation_prompt": True}
    status, text = http(server.base + "/tokenize", timeout=30, body=body)
    if status != 200:
        raise RuntimeError(f"/tokenize answered {status}: {text[:200]}")
    return int(json.loads(text)["count"])


def vllm_bench(env: Env, server: Server, n: int, concurrency: int, isl: int, osl: int, out: Path) -> dict:
    cmd = [
        "vllm", "bench", "serve",
        "--backend", "openai-chat",
        "--base-url", server.base,
        "--endpoint", "/v1/chat/completions",
        "--model", "tiny",
        "--tokenizer", str(env.model_dir),
        "--dataset-name", "random",
        "--random-input-len", str(isl),
        "--random-output-len", str(osl),
        "--num-prompts", str(n),
        "--max-concurrency", str(concurrency),
        "--ignore-eos",
        "--seed", "7",
        "--percentile-metrics", "ttft,tpot,itl,e2el",
        "--metric-percentiles", "50,90,99",
        "--save-result", "--result-dir", str(out.parent), "--result-filename", out.name,
    ]  # fmt: skip
    e = env.env()
    e["OPENAI_API_KEY"] = env.key
    proc = subprocess.run(cmd, env=e, capture_output=True, text=True, cwd=env.work)
    (env.work / "logs" / f"{out.stem}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise AssertionError(f"vllm bench serve exited {proc.returncode}:\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
    return json.loads(out.read_text())


def part4(env: Env, server: Server, config: Path) -> tuple[list[str], list[str]]:
    concurrency, isl, osl, duration = 8, 256, 64, 10
    classes = {"random": {"weight": 1.0, "input_tokens": isl, "output_tokens": osl}}
    s_path = env.work / "part4-settings.json"
    s_path.write_text(json.dumps(settings(server.port, concurrency, duration, classes, warmup=0), indent=2))
    failures: list[str] = []
    template = template_tokens(server)
    # cfg-bench goes first in each round; vllm bench then sends as many requests as
    # cfg-bench completed in its `duration`, so both turns carry the same load.
    per_tool: dict[str, list[dict]] = {"cfg-bench run": [], "vllm bench serve": []}
    n_prompts = 0
    for rnd in range(1, env.rounds + 1):
        for tool in per_tool:
            before = counters(server.base)
            if tool == "vllm bench serve":
                out = env.work / f"part4-vllm-bench-{rnd}.json"
                v = vllm_bench(env, server, n_prompts, concurrency, isl - template, osl, out)
                m = dict(
                    requests=v["completed"],
                    failed=v.get("failed", 0),
                    prompt=v["total_input_tokens"],
                    completion=v["total_output_tokens"],
                    ttft50=v["median_ttft_ms"],
                    ttft99=v["p99_ttft_ms"],
                    tpot50=v["median_tpot_ms"],
                    out_tps=v["output_throughput"],
                )
            else:
                out = env.work / f"part4-cfg-bench-{rnd}.json"
                r = cfg_bench(env, s_path, config, out, "--skip-smoke")
                failures += validate_result(env, out)
                m = dict(
                    requests=r["requests"]["succeeded"],
                    failed=r["requests"]["failed"],
                    prompt=r["tokens"]["prompt_total"],
                    completion=r["tokens"]["completion_total"],
                    ttft50=r["ttft_ms"]["p50"],
                    ttft99=r["ttft_ms"]["p99"],
                    tpot50=r["tpot_ms"]["p50"],
                    out_tps=r["throughput"]["output_tokens_per_sec"],
                )
                n_prompts = max(16, m["requests"])
            after = counters(server.base)
            m["prompt_delta"] = after["vllm:prompt_tokens_total"] - before["vllm:prompt_tokens_total"]
            m["completion_delta"] = after["vllm:generation_tokens_total"] - before["vllm:generation_tokens_total"]
            if m["failed"]:
                failures.append(f"part 4 round {rnd}: {tool} had {m['failed']} failed requests")
            if (m["prompt"], m["completion"]) != (m["prompt_delta"], m["completion_delta"]):
                failures.append(
                    f"part 4 round {rnd}: {tool} counted {m['prompt']} prompt / {m['completion']} completion tokens, "
                    f"vLLM's counters moved {m['prompt_delta']:.0f} / {m['completion_delta']:.0f}"
                )
            if m["completion"] != m["requests"] * osl:
                failures.append(f"part 4 round {rnd}: {tool} got {m['completion']} completion tokens for {m['requests']} x {osl}")
            per_tool[tool].append(m)
            log(
                f"part 4 round {rnd} {tool}: {m['requests']} req, TTFT p50 {m['ttft50']:.0f} ms p99 {m['ttft99']:.0f} ms, "
                f"TPOT p50 {m['tpot50']:.1f} ms, {m['out_tps']:.0f} tok/s, tokens {m['prompt']}/{m['completion']} "
                f"vs vLLM {m['prompt_delta']:.0f}/{m['completion_delta']:.0f}"
            )
    rows = [
        "| round | tool | requests | prompt tok/req | TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | output tok/s | tokens = vLLM counters |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rnd in range(env.rounds):
        for tool, ms in per_tool.items():
            m = ms[rnd]
            same = (m["prompt"], m["completion"]) == (m["prompt_delta"], m["completion_delta"])
            rows.append(
                f"| {rnd + 1} | {tool} | {m['requests']} | {m['prompt'] / max(1, m['requests']):.1f} | {m['ttft50']:.0f} "
                f"| {m['ttft99']:.0f} | {m['tpot50']:.1f} | {m['out_tps']:.0f} | {'yes' if same else 'NO'} |"
            )
    rows += ["", "| metric | vllm bench serve (median of rounds) | cfg-bench run (median of rounds) | ratio cfg-bench / vllm bench |", "|---|---|---|---|"]
    for r in per_tool["cfg-bench run"]:
        if abs(r["prompt"] / max(1, r["requests"]) - median([v["prompt"] / max(1, v["requests"]) for v in per_tool["vllm bench serve"]])) > 0.05 * isl:
            failures.append(f"part 4: prompts differ between the tools by more than 5% of {isl} tokens")
            break
    for key, label in (("ttft50", "TTFT p50 ms"), ("ttft99", "TTFT p99 ms"), ("tpot50", "TPOT p50 ms"), ("out_tps", "output tok/s")):
        a = median([m[key] for m in per_tool["vllm bench serve"]])
        b = median([m[key] for m in per_tool["cfg-bench run"]])
        rows.append(f"| {label} | {a:.1f} | {b:.1f} | {b / a if a else float('nan'):.2f} |")
    return failures, rows


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


# --------------------------------------------------------------------------- main


def refusal(env: Env, case: Case) -> dict:
    server = env.launch(case.path, case.form)
    state = server.wait(REFUSAL_TIMEOUT)
    result = {"state": state, "seconds": time.monotonic() - server.started_at, "exit": server.proc.poll()}
    stop(server.proc)
    result["error"] = vllm_error(server.log_text()) if state == "exited" else ""
    result["matched"] = state == "exited" and case.refusal in server.log_text()
    return result


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--check-jsonschema", default=None)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    env = Env(args)
    t0 = time.monotonic()
    all_cases = cases()
    lint = {c.path.name: env.lint(c.path) for c in all_cases}
    failures: list[str] = []
    sections: list[str] = []
    verdicts: dict[str, dict] = {}
    version_notes: list[str] = []

    main_case = next(c for c in all_cases if c.path.name == "good-shell.toml")
    others = [c for c in all_cases if c is not main_case]
    refused = [c for c in others if c.refusal]
    starting = [c for c in others if not c.refusal]

    # The main server's start-up (about two minutes) overlaps the refusals, which never
    # get past configuration; the load tests below run on a quiet machine.
    log(f"starting {main_case.path.name} (rendered as a command line); {len(refused)} refusals meanwhile")
    main_server = env.launch(main_case.path, main_case.form)
    for case in refused:
        verdicts[case.path.name] = refusal(env, case)
        v = verdicts[case.path.name]
        log(f"{case.path.name}: vLLM {v['state']} after {v['seconds']:.0f} s: {v['error']}")
    state = main_server.wait(STARTUP_TIMEOUT)
    verdicts[main_case.path.name] = {"state": state, "seconds": time.monotonic() - main_server.started_at, "error": ""}
    log(f"{main_case.path.name}: vLLM {state} after {verdicts[main_case.path.name]['seconds']:.0f} s")
    if state != "ready":
        verdicts[main_case.path.name]["error"] = vllm_error(main_server.log_text())
        failures.append(f"{main_case.path.name} did not start: {verdicts[main_case.path.name]['error']}")
    else:
        failures += check_serving(env, main_server, main_case.path)
        try:
            f, rows, n = length_answers(env, main_server, main_case.path)
        except Exception as e:  # noqa: BLE001 - reported as a failure with its reason
            f, rows, n = [f"CFG501 probes: {e}"], [f"failed: {e}"], []
        failures += f
        version_notes += n
        sections += ["## Requests vLLM refuses: CFG501's cases against the server", "", *rows, ""]
        for name, part in (("Measurement: cfg-bench run, two request classes", part3), ("Agreement: vllm bench serve and cfg-bench run, alternating", part4)):
            try:
                f, rows = part(env, main_server, main_case.path)
            except Exception as e:  # noqa: BLE001 - reported as a failure with its reason
                f, rows = [f"{name}: {e}"], [f"failed: {e}"]
            failures += f
            sections += [f"## {name}", "", *rows, ""]
    stop(main_server.proc)

    # The other good configs start side by side: start-up is mostly one-threaded.
    launched = [(case, env.launch(case.path, case.form)) for case in starting]
    for case, server in launched:
        state = server.wait(STARTUP_TIMEOUT)
        verdicts[case.path.name] = {"state": state, "seconds": time.monotonic() - server.started_at, "error": ""}
        log(f"{case.path.name}: vLLM {state} after {verdicts[case.path.name]['seconds']:.0f} s ({case.form})")
        if state == "ready":
            failures += check_serving(env, server, case.path)
        else:
            verdicts[case.path.name]["error"] = vllm_error(server.log_text())
    for _, server in launched:
        stop(server.proc)

    notes: list[str] = list(version_notes)
    table = [
        "| config | cfg-lint | vLLM (CPU build) | agree? |",
        "|---|---|---|---|",
    ]
    for case in all_cases:
        name = case.path.name
        lt, v = lint[name], verdicts[name]
        gap = case.since is not None and version_tuple(env) < case.since
        if gap:
            # The rule predicts a newer vLLM than the one installed: reported, not judged.
            started = v["state"] == "ready"
            table.append(
                f"| {name} | error {', '.join(lt['errors'])} | {'starts' if started else v['state']}: this check arrived in "
                f"{case.since[0]}.{case.since[1]} | n/a (version gap) |"
            )
            notes.append(
                f"- `{name}`: cfg-lint follows vLLM {case.since[0]}.{case.since[1]}, which refuses it "
                f"(\"{case.refusal}\"); the installed {vllm_version(env)} {'starts it' if started else v['state']}."
            )
            if case.lint_code not in lt["errors"]:
                failures.append(f"prediction: {name}: cfg-lint did not report {case.lint_code}")
            continue
        if case.refusal:
            lint_ok = lt["exit"] == 1 and case.lint_code in lt["errors"]
            vllm_ok = v.get("matched", False)
            vllm_text = f"refused in {v['seconds']:.0f} s: `{v['error']}`" if v["state"] == "exited" else f"{v['state']} (expected a refusal)"
            lint_text = f"error {', '.join(lt['errors'])}" if lt["errors"] else "passes"
        else:
            lint_ok = lt["exit"] == 0
            vllm_ok = v["state"] == "ready"
            vllm_text = f"started in {v['seconds']:.0f} s ({case.form})" if vllm_ok else f"{v['state']}: `{v['error']}`"
            lint_text = "passes" if lint_ok else f"error {', '.join(lt['errors'])}"
        agree = lint_ok and vllm_ok
        if not agree:
            failures.append(f"prediction: {name}: cfg-lint {lint_text}; vLLM {vllm_text}")
        table.append(f"| {name} | {lint_text} | {vllm_text} | {'yes' if agree else '**NO**'} |")

    minutes = (time.monotonic() - t0) / 60
    summary = [
        "# vLLM end-to-end suite",
        "",
        f"vLLM {vllm_version(env)} (CPU build), tiny Llama built by build_model.py; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{os.cpu_count()} cores; suite {minutes:.1f} min.",
        "",
        "## Prediction: cfg-lint's verdict against vLLM's start-up",
        "",
        *table,
        "",
        *sections,
        *(["## Version notes", "", *notes, ""] if notes else []),
        f"**{'PASS' if not failures else 'FAIL'}**" + ("" if not failures else ": " + "; ".join(failures)),
        "",
    ]
    text = "\n".join(summary)
    if env.key in text:
        raise AssertionError("the key appeared in the summary")
    (env.work / "summary.md").write_text(text)
    print(text)
    for f in failures:
        log(f"FAIL {f}")
    return 1 if failures else 0


def version_tuple(env: Env) -> tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", vllm_version(env))
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def vllm_version(env: Env) -> str:
    from importlib.metadata import version

    try:
        return version("vllm")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
