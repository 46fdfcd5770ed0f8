#!/usr/bin/env python3
"""Hostile-file benchmark: cfg-lint on generated inputs of each shape a broken
or hostile file takes, at 64 KiB, 256 KiB and 1 MiB (the size limit). Prints,
per shape and output format, the median wall time of 5 runs and the peak
memory, and fails unless the time grows at most linearly (1 MiB within 16x of
64 KiB) and 1 MiB stays under 100 ms (or --max-seconds).

Usage: python3 scripts/bench-hostile.py path/to/cfg-lint [--max-seconds S]
(CI runs the debug build with a looser limit; the README's figures are the
release build's.)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def repeated(head, item, sep, tail, size):
    """head + item(0) + sep + item(1) ... + tail, as many items as fit in `size` bytes."""
    parts, used, i = [], len(head) + len(tail), 0
    while True:
        piece = item(i)
        if used + len(piece) + len(sep) > size:
            break
        parts.append(piece)
        used += len(piece) + len(sep)
        i += 1
    return head + sep.join(parts) + tail


def shapes(size):
    """(name, extension, text) of each shape, each at most `size` bytes."""
    settings = {"endpoint": "http://127.0.0.1:8000/v1/completions", "model": "m", "concurrency": 1,
                "duration_seconds": 1, "request_distribution": {"a": {"weight": 1, "input_tokens": 1, "output_tokens": 1}}}
    yield "unknown-keys", "json", repeated("{", lambda i: f'"unknown_key_{i}": {i}', ", ", "}", size)
    yield "unknown-keys", "toml", repeated('[model]\nname = "m"\n', lambda i: f"k{i} = {i}", "\n", "\n", size)
    yield "long-string", "json", json.dumps({**settings, "model": "x" * (size - 300)})
    yield "deep", "json", "[" * (size // 2) + "]" * (size // 2)
    yield "controls", "json", repeated("{", lambda i: f'"k\\u001b[2J\\u202e{i}": {i}', ", ", "}", size)
    head = json.dumps({**settings, "metrics": {"percentiles": []}})[:-3]
    yield "wrong-types", "json", repeated(head, lambda i: '"x"', ", ", "]}}", size)


def measure(lint, path, fmt):
    """Median seconds of 5 runs and the largest peak memory in MiB. The memory
    comes from GNU time: a child forked from Python would report Python's own
    peak (Linux keeps the high-water mark across exec)."""
    times, peak = [], 0
    with tempfile.NamedTemporaryFile("r") as rss:
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, lint, "check", "--format", fmt, path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
            rss.seek(0)
            peak = max(peak, int(rss.read().split()[-1]) / 1024)
    return statistics.median(times), peak


SIZES = (("64K", 64 << 10), ("256K", 256 << 10), ("1M", 1 << 20))


def main():
    lint = sys.argv[1]
    limit = float(sys.argv[sys.argv.index("--max-seconds") + 1]) if "--max-seconds" in sys.argv else 0.1
    failed = False
    print(f"{'shape':<18} {'format':<6}" + "".join(f" {label + ' ms':>8}" for label, _ in SIZES)
          + f" {'1M MiB':>7} {'1M/64K':>7}")
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for label, size in SIZES:
            for name, ext, text in shapes(size):
                path = os.path.join(d, f"{name}-{label}.{ext}")
                with open(path, "w") as f:
                    f.write(text)
                files[(name, ext, label)] = path
        for name, ext in sorted({(n, e) for n, e, _ in files}):
            for fmt in ("json", "human"):
                runs = [measure(lint, files[(name, ext, label)], fmt) for label, _ in SIZES]
                (small, _), (big, big_mib) = runs[0], runs[-1]
                # Sixteen times the input may take at most sixteen times as long
                # (start-up, a few milliseconds, is in both).
                ratio = big / max(small, 0.002)
                print(f"{name + '.' + ext:<18} {fmt:<6}" + "".join(f" {s * 1000:8.1f}" for s, _ in runs)
                      + f" {big_mib:7.1f} {ratio:7.1f}")
                if big > limit or ratio > 16:
                    print(f"  FAIL: {name}.{ext} ({fmt}) is not linear in size, or 1 MiB took over {limit} s")
                    failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
