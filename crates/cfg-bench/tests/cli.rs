//! cfg-bench as a process: refusing bad inputs before any request, and
//! Ctrl-C writing what was measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::Reap;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bench() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cfg-bench"));
    c.current_dir(repo()).env_remove("VLLM_INTERNAL_KEY").env_remove("GATEWAY_API_KEY");
    // The developer's own Hugging Face cache must not change what a test sees.
    c.env_remove("HF_HOME").env("HF_HUB_CACHE", std::env::temp_dir().join("cfg-bench-tests-no-hf-cache"));
    c
}

#[test]
fn refuses_lint_errors_and_a_missing_key_before_any_request() {
    let o = bench()
        .args([
            "run",
            "--settings",
            "examples/spec/settings.json",
            "--server-config",
            "examples/spec/config.toml",
            "--no-archive",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("CFG501") && err.contains("refusing to run"), "{err}");
    let o = bench().args(["run", "--settings", "tests/bench/quick-settings.json", "--no-archive"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("$VLLM_INTERNAL_KEY is not set"));
    // A key with a Windows line ending: refused before any request, and not echoed.
    let o = bench()
        .args(["run", "--settings", "tests/bench/quick-settings.json", "--no-archive"])
        .env("VLLM_INTERNAL_KEY", "sk-secret-4242\r")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("line break") && !err.contains("secret-4242"), "{err}");
}

/// The README's main job: from an empty folder with nothing set, `cfg-bench demo`
/// runs the built-in pair against the simulator and says where everything went.
#[test]
fn demo_runs_the_built_in_pair_from_any_folder() {
    let dir = common::scratch("demo");
    let o = bench().current_dir(&dir).args(["demo", "--duration", "2"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("verdict: SLA"), "{out}");
    for file in ["config.toml", "settings.json", "result.json", "report.html"] {
        let path = dir.join("cfg-bench-demo").join(file);
        assert!(path.is_file(), "{} missing: {out}{err}", path.display());
        assert!(out.contains(&format!("cfg-bench-demo/{file}")), "{file} not named: {out}");
    }
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cfg-bench-demo/result.json")).unwrap()).unwrap();
    assert_eq!(result["simulated"], true);
    assert!(result["throughput_tokens_per_sec"].as_f64().unwrap() > 0.0, "{result}");
    assert!(!dir.join("runs").exists(), "the demo archives nothing");
    let _ = std::fs::remove_dir_all(dir);
}

/// `--settings` names settings.json and `--server-config` config.toml in every
/// subcommand; the old spellings still work, with a note saying the new one.
#[test]
fn old_flag_spellings_still_work_with_a_note() {
    let o = bench()
        .args([
            "run",
            "--config",
            "examples/spec/settings.json",
            "--server",
            "examples/spec/config.toml",
            "--no-archive",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--config is deprecated here; it is now spelt --settings"), "{err}");
    assert!(err.contains("--server is deprecated here; it is now spelt --server-config"), "{err}");
    assert!(err.contains("CFG501"), "the files were read as before: {err}");
    let o = bench().args(["run", "--settings", "a.json", "--config", "b.json", "--no-archive"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("name the same file"));
    let o = bench().args(["sim", "--config", "examples/config.toml", "--sweep", "x=1"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--config is deprecated here; it is now spelt --server-config"), "{err}");
    assert!(err.contains("only max_num_seqs can be swept"), "the config was read: {err}");
}

#[test]
fn smoke_diagnoses_a_refused_connection() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("cfg-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let text = std::fs::read_to_string(repo().join("tests/bench/quick-settings.json"))
        .unwrap()
        .replace("127.0.0.1:8000", &format!("127.0.0.1:{port}"));
    std::fs::write(&settings, text).unwrap();
    let o = bench()
        .args(["smoke", "--settings", settings.to_str().unwrap()])
        .env("VLLM_INTERNAL_KEY", "k")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing listens"), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

/// Ctrl-C and SIGTERM (what Kubernetes sends the sharded Job's pods) stop a run
/// the same way: the result is written, marked incomplete with the signal named,
/// and the process ends as the signal would have ended it (130, 143).
#[cfg(unix)]
#[test]
fn ctrl_c_and_sigterm_still_write_the_result_marked_incomplete() {
    for (signal, code, name) in [("-INT", 130, "Ctrl-C"), ("-TERM", 143, "SIGTERM")] {
        let dir = common::scratch(&format!("signal{signal}"));
        let out = dir.join("result.json");
        let child = bench()
            .args([
                "run",
                "--settings",
                "tests/bench/quick-settings.json",
                "--server-config",
                "examples/config.toml",
                "--sim",
                "--duration",
                "60",
                "--no-archive",
                "--output",
            ])
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(6));
        let killed = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(code), "{name}");
        let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(r["complete"], false);
        let why = r["stopped_reason"].as_str().unwrap();
        assert!(why.contains(&format!("stopped by {name}")), "{why}");
        assert!(r["requests"]["total"].as_u64().unwrap() > 0, "{r}");
        assert!(r["metadata"]["duration_seconds"].as_f64().unwrap() < 30.0);
        assert_eq!(r["verdict"]["sla_met"], false);
        assert!(r["verdict"].get("capacity").is_none(), "no capacity plan from an interrupted run");
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(stdout.contains("verdict: run INCOMPLETE") && !stdout.contains("capacity:"), "{stdout}");
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Three shard processes against one simulator on 127.0.0.1, started seconds
/// apart, meet at a barrier and begin their measured phases together; merged, the
/// counts add up, every merged percentile lies within the shards' (a percentile of
/// a union always does), and an incomplete set is refused.
#[test]
fn shards_run_side_by_side_and_merge_into_one_result() {
    let dir = common::scratch("shards");
    let port = common::free_port();
    let sim = start_sim(port, "shard-key");
    let settings = quick_settings(&dir, port, 8);
    let shard_path = |i: u32| dir.join(format!("shard-{i}.json"));
    let barrier = dir.join("barrier");
    let children: Vec<_> = (0..3)
        .map(|i| {
            // Started 2 s apart, as pods of a Job are.
            std::thread::sleep(Duration::from_secs(if i == 0 { 0 } else { 2 }));
            bench()
                .args(["run", "--settings", settings.to_str().unwrap(), "--shard", &format!("{i}/3")])
                .args(["--duration", "3", "--skip-smoke", "--no-archive", "--barrier", barrier.to_str().unwrap()])
                .arg("--output")
                .arg(shard_path(i))
                .env("VLLM_INTERNAL_KEY", "shard-key")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    drop(sim);
    let read = |p: &Path| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let shards: Vec<serde_json::Value> = (0..3).map(|i| read(&shard_path(i))).collect();
    let starts: Vec<f64> = shards
        .iter()
        .map(|s| {
            let t = humantime::parse_rfc3339_weak(s["metadata"]["started_at"].as_str().unwrap()).unwrap();
            t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64()
        })
        .collect();
    let spread = starts.iter().fold(f64::MIN, |a, &b| a.max(b)) - starts.iter().fold(f64::MAX, |a, &b| a.min(b));
    assert!(spread < 0.3, "processes started 4 s apart began measuring {spread:.3} s apart");
    let concurrency: Vec<u64> = shards.iter().map(|s| s["metadata"]["concurrency"].as_u64().unwrap()).collect();
    assert_eq!(concurrency, [6, 5, 5], "16 streams split three ways");
    let seeds: std::collections::HashSet<u64> =
        shards.iter().map(|s| s["metadata"]["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 3, "each shard has its own seed stream");

    let merged_path = dir.join("merged.json");
    let mut merge = bench();
    merge.args(["merge", "--settings", settings.to_str().unwrap(), "--output", merged_path.to_str().unwrap()]);
    let o = merge.args((0..3).map(shard_path)).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let merged = read(&merged_path);
    let total = |v: &serde_json::Value| v["requests"]["total"].as_u64().unwrap();
    assert_eq!(total(&merged), shards.iter().map(total).sum::<u64>());
    assert!(total(&merged) > 30, "{}", total(&merged));
    assert_eq!(merged["metadata"]["shards"], 3);
    assert_eq!(merged["metadata"]["concurrency"], 16);
    assert!(merged.get("shard").is_none());
    for metric in ["ttft_ms", "tpot_ms", "e2e_ms"] {
        for p in ["p50", "p95", "p99"] {
            let of = |v: &serde_json::Value| v[metric][p].as_f64().unwrap();
            let lo = shards.iter().map(of).fold(f64::MAX, f64::min);
            let hi = shards.iter().map(of).fold(0.0, f64::max);
            assert!((lo..=hi).contains(&of(&merged)), "{metric} {p}: {} not in [{lo}, {hi}]", of(&merged));
        }
    }
    let report = cfg_core::lint(
        &[cfg_core::Input::new(
            cfg_core::FileKind::Result,
            "merged.json",
            std::fs::read_to_string(&merged_path).unwrap(),
        )],
        &cfg_core::Options::default(),
    );
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);

    let mut incomplete = bench();
    incomplete.args([
        "merge",
        "--settings",
        settings.to_str().unwrap(),
        "--output",
        dir.join("x.json").to_str().unwrap(),
    ]);
    let o = incomplete.args([shard_path(0), shard_path(1)]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("missing shard(s) 2/3"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Shards that did not run at the same time (here one after the other, with no
/// barrier) are refused by merge, with the overlap measured.
#[test]
fn shards_that_did_not_overlap_are_not_merged() {
    let dir = common::scratch("shards-apart");
    let port = common::free_port();
    let _sim = start_sim(port, "apart-key");
    let settings = quick_settings(&dir, port, 0);
    let shard_path = |i: u32| dir.join(format!("shard-{i}.json"));
    for i in 0..2 {
        let o = bench()
            .args(["run", "--settings", settings.to_str().unwrap(), "--shard", &format!("{i}/2")])
            .args(["--duration", "2", "--skip-smoke", "--no-archive", "--output"])
            .arg(shard_path(i))
            .env("VLLM_INTERNAL_KEY", "apart-key")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = bench()
        .args(["merge", "--settings", settings.to_str().unwrap(), "--output", dir.join("m.json").to_str().unwrap()])
        .args([shard_path(0), shard_path(1)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("measured windows overlap for") && err.contains("--barrier"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The simulator as its own process, on 127.0.0.1:`port`, once it accepts connections.
fn start_sim(port: u16, key: &str) -> Reap {
    let child = Reap(
        bench()
            .args(["sim", "--server-config", "examples/config.toml", "--port", &port.to_string()])
            .env("VLLM_INTERNAL_KEY", key)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "the simulator did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

/// tests/bench/quick-settings.json pointed at `port`, with `warmup` warm-up requests.
fn quick_settings(dir: &Path, port: u16, warmup: u32) -> PathBuf {
    let path = dir.join("settings.json");
    let text = std::fs::read_to_string(repo().join("tests/bench/quick-settings.json"))
        .unwrap()
        .replace("127.0.0.1:8000", &format!("127.0.0.1:{port}"))
        .replace("../../schemas/", "")
        .replace("\"warmup_requests\": 8", &format!("\"warmup_requests\": {warmup}"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The server dies mid-run (SIGKILL: every stream is cut) and comes back on the same
/// port: the failures land in their classes, the run carries on with the restarted
/// server, and result.json is written and valid.
#[test]
fn a_server_restart_mid_run_is_survived() {
    let dir = common::scratch("restart");
    let port = common::free_port();
    let sim = start_sim(port, "restart-key");
    let settings = quick_settings(&dir, port, 0);
    let out = dir.join("result.json");
    let runner = bench()
        .args(["run", "--settings", settings.to_str().unwrap(), "--duration", "8", "--skip-smoke", "--no-archive"])
        .args(["--threads", "1"])
        .arg("--output")
        .arg(&out)
        .env("VLLM_INTERNAL_KEY", "restart-key")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    drop(sim); // SIGKILL: every open stream is cut
    std::thread::sleep(Duration::from_secs(1));
    let _sim = start_sim(port, "restart-key");
    let o = runner.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["complete"], true);
    assert!(r["requests"]["failed"].as_u64().unwrap() > 0, "the outage shows: {}", r["errors"]);
    for e in r["errors"].as_array().unwrap() {
        let kind = e["kind"].as_str().unwrap();
        assert!(["connection_refused", "connection_reset", "stream_cut"].contains(&kind), "{kind}: {}", e["sample"]);
    }
    // Requests succeed again after the restart.
    let series = r["timeseries"].as_array().unwrap();
    let late_ok: u64 =
        series.iter().filter(|p| p["t"].as_f64().unwrap() > 6.0).map(|p| p["completed"].as_u64().unwrap()).sum();
    assert!(late_ok > 0, "nothing completed after the restart: {series:?}");
    let report = cfg_core::lint(
        &[cfg_core::Input::new(cfg_core::FileKind::Result, "result.json", text)],
        &cfg_core::Options::default(),
    );
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    let _ = std::fs::remove_dir_all(dir);
}
