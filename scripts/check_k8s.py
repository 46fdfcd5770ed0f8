"""Checks deploy/k8s/cfg-bench-shards.yaml for the mistakes that break a sharded run:
not Indexed, shards run one after another (parallelism < completions), retries, a
--shard argument whose N is not the Job's completions, the key in plain text.
No cluster needed (none is available here); this is a shape check, not a dry run.

usage: python check_k8s.py MANIFEST
"""

import re
import sys

import yaml


def main(path: str) -> int:
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    jobs = [d for d in docs if d.get("kind") == "Job"]
    problems = []
    if len(jobs) != 1:
        return print(f"{path}: expected one Job, found {len(jobs)}") or 1
    spec = jobs[0]["spec"]
    n = spec.get("completions")
    if spec.get("completionMode") != "Indexed":
        problems.append("completionMode must be Indexed (each pod needs JOB_COMPLETION_INDEX)")
    if spec.get("parallelism") != n:
        problems.append(f"parallelism {spec.get('parallelism')} != completions {n}: shards must run side by side")
    if spec.get("backoffLimit") != 0:
        problems.append("backoffLimit must be 0: a retried shard measures a different window")
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        problems.append("restartPolicy must be Never")
    (container,) = pod["containers"]
    args = container["args"]
    if args[0] != "run":
        problems.append(f"the container must run `cfg-bench run`, not {args[0]}")
    shard = [a for a in args if a.startswith("--shard=")]
    m = re.fullmatch(r"--shard=\$\(JOB_COMPLETION_INDEX\)/(\d+)", shard[0]) if shard else None
    if not m:
        problems.append("--shard=$(JOB_COMPLETION_INDEX)/N is missing")
    elif int(m.group(1)) != n:
        problems.append(f"--shard says {m.group(1)} shards but the Job has {n} completions")
    if not any("JOB_COMPLETION_INDEX" in a for a in args if a.startswith("--output=")):
        problems.append("each shard must write its own --output (use $(JOB_COMPLETION_INDEX))")
    for env in container.get("env", []):
        if "value" in env and re.search(r"key|token|secret", env["name"], re.I):
            problems.append(f"env {env['name']} carries a literal value: take it from a Secret")
        if "valueFrom" in env and "secretKeyRef" not in env["valueFrom"]:
            problems.append(f"env {env['name']} should come from a Secret")
    for p in problems:
        print(f"{path}: {p}")
    if not problems:
        print(f"{path}: Indexed Job of {n} shards, side by side, key from a Secret")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
