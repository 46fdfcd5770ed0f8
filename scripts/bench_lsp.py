#!/usr/bin/env python3
"""Benchmark of `cfg-lint server`: with the SPEC's pair open, N edits to
settings.json (didChange, the whole text), and for each the time until the
server publishes settings.json's diagnostics; the server's resident memory
after the first tenth of the edits and at the end.

Usage: scripts/bench_lsp.py CFG_LINT [--edits N] [--p99-ms MS]
Prints the figures; exits 1 if p99 exceeds --p99-ms or memory grows (more
than 10% and 4 MiB over the figure after the first tenth).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def send(proc, message):
    body = json.dumps(message).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive(proc):
    length = None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def wait_for(proc, predicate):
    while True:
        m = receive(proc)
        if predicate(m):
            return m


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cfg_lint")
    ap.add_argument("--edits", type=int, default=10000)
    ap.add_argument("--p99-ms", type=float, default=10.0)
    args = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="cfg-lint-lsp-bench-")
    try:
        for name in ("config.toml", "settings.json"):
            shutil.copy(os.path.join(repo, "examples/spec", name), work)
        config_uri, settings_uri = (f"file://{work}/config.toml", f"file://{work}/settings.json")
        texts = {u: open(os.path.join(work, n)).read() for u, n in ((config_uri, "config.toml"), (settings_uri, "settings.json"))}
        proc = subprocess.Popen([args.cfg_lint, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}})
        wait_for(proc, lambda m: m.get("id") == 1)
        send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        published = lambda uri: lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri  # noqa: E731
        for uri in (config_uri, settings_uri):
            send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                        "params": {"textDocument": {"uri": uri, "languageId": "", "version": 1, "text": texts[uri]}}})
            wait_for(proc, published(uri))
        latencies, rss_early = [], None
        for i in range(args.edits):
            text = texts[settings_uri].replace('"concurrency": 32', f'"concurrency": {32 + i % 7}')
            start = time.perf_counter()
            send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange",
                        "params": {"textDocument": {"uri": settings_uri, "version": i + 2}, "contentChanges": [{"text": text}]}})
            m = wait_for(proc, published(settings_uri))
            latencies.append((time.perf_counter() - start) * 1000)
            if not any(d.get("code") == "CFG501" for d in m["params"]["diagnostics"]):
                raise SystemExit(f"edit {i}: CFG501 missing from {m}")
            if i + 1 == max(1, args.edits // 10):
                rss_early = rss_mib(proc.pid)
        rss_end = rss_mib(proc.pid)
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        wait_for(proc, lambda m: m.get("id") == 2)
        send(proc, {"jsonrpc": "2.0", "method": "exit", "params": None})
        proc.wait(timeout=10)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    latencies.sort()
    pick = lambda p: latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))]  # noqa: E731
    p50, p99 = pick(50), pick(99)
    flat = rss_end <= max(rss_early * 1.10, rss_early + 4.0)
    print(f"lsp: {args.edits} edits of settings.json (the pair open): didChange to publishDiagnostics "
          f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {latencies[-1]:.2f} ms; "
          f"server RSS {rss_early:.1f} MiB after {max(1, args.edits // 10)} edits, {rss_end:.1f} MiB after {args.edits} "
          f"({'flat' if flat else 'GROWING'})")
    if p99 > args.p99_ms:
        print(f"lsp: p99 {p99:.2f} ms exceeds {args.p99_ms} ms", file=sys.stderr)
        return 1
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
