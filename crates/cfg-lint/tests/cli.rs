//! The CLI as a user runs it: exit codes, output formats, rendering, init,
//! and no panic on hostile input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cfg_lint(args: &[&str]) -> Output {
    cfg_lint_with(args, &[])
}

/// cfg-lint with the Hugging Face environment of the test only: the developer's
/// own cache (and token) must not change what a test sees.
fn cfg_lint_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cfg-lint"));
    cmd.args(args).current_dir(repo()).env_remove("NO_COLOR");
    for var in ["HF_HOME", "HF_ENDPOINT", "HF_TOKEN", "XDG_CACHE_HOME"] {
        cmd.env_remove(var);
    }
    cmd.env("HF_HUB_CACHE", std::env::temp_dir().join("cfg-lint-tests-no-hf-cache"));
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cfg-lint-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn spec_pair_fails_on_the_tail_class_with_its_position() {
    let o = cfg_lint(&["check", "examples/spec/config.toml", "examples/spec/settings.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tail = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "CFG501").expect("CFG501");
    assert_eq!(tail["file"], "examples/spec/settings.json");
    assert_eq!((tail["line"].as_u64(), tail["column"].as_u64()), (Some(11), Some(5)));
    assert_eq!(tail["pointer"], "/request_distribution/tail");
    assert!(tail["message"].as_str().unwrap().contains("max_model_len"));
    for key in ["code", "severity", "message", "help", "file", "line", "column", "end_line", "end_column", "pointer"] {
        assert!(tail.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn clean_pair_exits_zero_and_warnings_can_fail() {
    let o = cfg_lint(&["check", "examples/config.toml", "examples/settings.json", "--deny-warnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let warn = repo().join("tests/fixtures/warn-endpoint-path");
    let files: Vec<String> =
        std::fs::read_dir(&warn).unwrap().map(|e| e.unwrap().path().display().to_string()).collect();
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    assert_eq!(cfg_lint(&args).status.code(), Some(0));
    args.push("--deny-warnings");
    assert_eq!(cfg_lint(&args).status.code(), Some(1));
}

#[test]
fn usage_and_io_problems_exit_two() {
    assert_eq!(cfg_lint(&["check", "no/such/file.toml"]).status.code(), Some(2));
    assert_eq!(cfg_lint(&["check"]).status.code(), Some(2));
    assert_eq!(cfg_lint(&["frobnicate"]).status.code(), Some(2));
    let o = cfg_lint(&["explain", "CFG999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no rule CFG999"));
}

#[test]
fn sarif_and_github_formats() {
    let o = cfg_lint(&["check", "examples/spec/config.toml", "examples/spec/settings.json", "--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let r = results.iter().find(|r| r["ruleId"] == "CFG501").unwrap();
    assert_eq!(r["level"], "error");
    assert_eq!(r["locations"][0]["physicalLocation"]["region"]["startLine"], 11);
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], "CFG501");

    let o = cfg_lint(&["check", "examples/spec/config.toml", "examples/spec/settings.json", "--format", "github"]);
    let text = stdout(&o);
    assert!(
        text.lines()
            .any(|l| l.starts_with("::error file=examples/spec/settings.json,line=11,") && l.contains("title=CFG501")),
        "{text}"
    );
}

#[test]
fn colour_only_when_asked_and_never_with_no_color_in_auto() {
    let args = ["check", "examples/spec/config.toml", "examples/spec/settings.json"];
    assert!(!stdout(&cfg_lint(&args)).contains('\u{1b}'), "a pipe is not a terminal");
    let mut always = args.to_vec();
    always.extend(["--color", "always"]);
    assert!(stdout(&cfg_lint(&always)).contains('\u{1b}'));
    let o = Command::new(env!("CARGO_BIN_EXE_cfg-lint"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stdout(&o).contains('\u{1b}'));
}

#[test]
fn render_both_forms_and_refuse_broken_configs() {
    let o = cfg_lint(&["render", "examples/config.toml"]);
    assert_eq!(o.status.code(), Some(0));
    let cmd = stdout(&o);
    assert!(
        cmd.starts_with("VLLM_API_KEY=\"$VLLM_INTERNAL_KEY\" vllm serve meta-llama/Llama-3.1-8B-Instruct"),
        "{cmd}"
    );
    assert!(cmd.contains("--max-model-len 12288") && cmd.contains("--served-model-name llama-3.1-8b"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not rendered: hardware"));
    let yaml = stdout(&cfg_lint(&["render", "examples/config.toml", "--format", "yaml"]));
    assert!(yaml.contains("\nmax-model-len: 12288\n") && yaml.contains("\nenable-chunked-prefill: true\n"), "{yaml}");
    assert!(!yaml.contains("VLLM_INTERNAL_KEY}"), "the reference is passed as $VAR, never the literal");
    let broken = repo().join("tests/fixtures/bad-batched-tokens-below-max-model-len/config.toml");
    let o = cfg_lint(&["render", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

/// `--force` renders what was written, even a value the schema rejects, so a refusal
/// can be reproduced against the real server (tests/e2e-vllm does).
#[test]
fn render_force_writes_out_of_range_values_with_a_warning() {
    let dir = scratch("force");
    let config = dir.join("config.toml");
    std::fs::write(&config, "[model]\nname = \"m\"\ngpu_memory_utilization = 1.5\n[batching]\nmax_num_seqs = 0\n")
        .unwrap();
    let path = config.to_str().unwrap();
    assert_eq!(cfg_lint(&["render", path]).status.code(), Some(1));
    let o = cfg_lint(&["render", "--force", path]);
    assert_eq!(o.status.code(), Some(0));
    let cmd = stdout(&o);
    assert!(cmd.contains("--gpu-memory-utilization 1.5") && cmd.contains("--max-num-seqs 0"), "{cmd}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("rendering despite 2 error(s)"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn init_writes_files_that_pass_and_refuses_to_overwrite() {
    let dir = scratch("init");
    let d = dir.to_str().unwrap();
    assert_eq!(cfg_lint(&["init", d]).status.code(), Some(0));
    let o = cfg_lint(&["check", &format!("{d}/config.toml"), &format!("{d}/settings.json")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        std::fs::read_to_string(dir.join("config.toml")).unwrap().starts_with("#:schema ./schemas/config.schema.json")
    );
    assert!(dir.join("schemas/settings.schema.json").exists());
    assert_eq!(cfg_lint(&["init", d]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn rules_explain_schema_and_memory() {
    let rules = stdout(&cfg_lint(&["rules"]));
    assert!(rules.contains("CFG501") && rules.contains("request-class-exceeds-max-model-len"));
    let doc = stdout(&cfg_lint(&["explain", "request-class-exceeds-max-model-len"]));
    assert!(doc.contains("**Fix:**") && doc.contains("8192 + 2048"));
    let schema: serde_json::Value = serde_json::from_slice(&cfg_lint(&["schema", "settings"]).stdout).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(cfg_lint(&["schema", "--check", "schemas"]).status.code(), Some(0));
    let mem = cfg_lint(&["memory", "examples/config.toml", "--format", "json"]);
    let m: serde_json::Value = serde_json::from_slice(&mem.stdout).unwrap();
    // Llama-3.1-8B attends fully on every layer: vLLM's count is blocks x 16.
    let blocks = m["num_gpu_blocks"].as_u64().unwrap();
    assert!(blocks > 10_000, "{m}");
    assert_eq!(m["kv_capacity_tokens"].as_u64(), Some(blocks * 16));
    assert_eq!(m["weights_source"], "estimated");
    assert_eq!(cfg_lint(&["memory", "examples/spec/config.toml"]).status.code(), Some(2), "no GPU named");
    assert!(stdout(&cfg_lint(&["memory", "--list-gpus"])).contains("H100-80GB"));
}

#[test]
fn hostile_inputs_get_errors_not_panics() {
    let dir = scratch("hostile");
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut garbage = vec![0u8; 4096];
    for b in garbage.iter_mut() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        *b = seed as u8;
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage.toml", garbage.clone()),
        ("garbage.json", garbage),
        ("empty.toml", Vec::new()),
        ("empty.json", Vec::new()),
        ("huge.toml", format!("[model]\nname = \"{}\"\n", "x".repeat(10 << 20)).into_bytes()),
        ("deep.json", format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes()),
        ("deep.toml", format!("a = {}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes()),
        (
            "types.json",
            br#"{"endpoint": 5, "model": [], "concurrency": -1, "duration_seconds": 1e308, "request_distribution": []}"#
                .to_vec(),
        ),
        ("types.toml", b"model = 5\n[batching]\nmax_num_seqs = \"many\"\n".to_vec()),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = cfg_lint(&["check", path.to_str().unwrap()]);
        let code = o.status.code();
        assert!(matches!(code, Some(1) | Some(2)), "{name}: exit {code:?}\n{}", String::from_utf8_lossy(&o.stderr));
        assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"), "{name}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 13, item 1: a whole number written as a float is an error at its key
/// in every command that reads the file, never a silent pass.
#[test]
fn a_float_where_a_whole_number_belongs_is_named_by_every_command() {
    let pair = [
        "tests/fixtures/bad-spec-pair-concurrency-written-as-float/config.toml",
        "tests/fixtures/bad-spec-pair-concurrency-written-as-float/settings.json",
    ];
    let o = cfg_lint(&["check", pair[0], pair[1], "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "CFG004").expect("CFG004");
    assert_eq!((d["pointer"].as_str(), d["line"].as_u64()), (Some("/concurrency"), Some(6)));
    assert!(report["notes"][0].as_str().unwrap().contains("cross-file rules (CFG5xx) did not run"), "{report}");
    for args in [
        vec!["memory", "tests/fixtures/bad-float-port/config.toml"],
        vec!["render", "tests/fixtures/bad-float-port/config.toml"],
    ] {
        let o = cfg_lint(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(err.contains("CFG004") && err.contains("`port` must be a whole number"), "{args:?}: {err}");
    }
}

/// Issue 13, items 2 and 3: files pair by folder, or by --pair, or with the
/// partner found on disk; every pair is checked and named.
#[test]
fn every_pair_is_found_and_checked() {
    let dir = "tests/fixtures/bad-two-services-one-broken";
    let files: Vec<String> = ["chat/config.toml", "chat/settings.json", "batch/config.toml", "batch/settings.json"]
        .iter()
        .map(|f| format!("{dir}/{f}"))
        .collect();
    let mut args = vec!["check", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let o = cfg_lint(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let broken = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "CFG501").expect("CFG501");
    assert_eq!(broken["file"], format!("{dir}/batch/settings.json"));
    assert_eq!(report["pairs"].as_array().unwrap().len(), 2, "{report}");

    // Two files in different folders pair only when asked.
    let (config, settings) =
        ("tests/fixtures/bad-spec-pair/config.toml", "tests/fixtures/good-settings-only/settings.json");
    let o = cfg_lint(&["check", config, settings]);
    assert!(stdout(&o).contains("did not run"), "{}", stdout(&o));
    let o = cfg_lint(&["check", "--pair", &format!("{config},{settings}")]);
    assert!(stdout(&o).contains(&format!("checked together: {config} with {settings}")), "{}", stdout(&o));

    // One file of a pair, with its partner taken from disk.
    let o = cfg_lint(&["check", "--quiet", "--with-partners", "tests/fixtures/bad-spec-pair/config.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("CFG501"), "{}", stdout(&o));
}

/// Issue 13, item 4: advice that can be followed.
#[test]
fn advice_can_be_followed() {
    // A real Hugging Face config.json: the parameters are counted, not asked for.
    let dir = scratch("hf");
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152064,"max_position_embeddings":32768,"torch_dtype":"bfloat16","tie_word_embeddings":false}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("c.toml"),
        "[model]\nname = \"my-org/private-7b\"\nmax_model_len = 8192\n[hardware]\ngpu = \"L40S\"\n",
    )
    .unwrap();
    let c = dir.join("c.toml");
    let m = dir.join("config.json");
    let o = cfg_lint(&["memory", c.to_str().unwrap(), "--model-config", m.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("weights") && out.contains("14.19 GiB"), "7,615,616,512 parameters in bf16: {out}");
    // The largest max_model_len is capped at the model's own maximum, and says so.
    assert!(out.contains("largest max_model_len: 32768 (the model's maximum"), "{out}");
    // sarif and github are refused where they mean nothing.
    assert_eq!(cfg_lint(&["memory", "examples/config.toml", "--format", "sarif"]).status.code(), Some(2));
    assert_eq!(cfg_lint(&["rules", "--format", "github"]).status.code(), Some(2));
}

/// A Llama-shaped model no catalog has, and its index: 16,060,522,496 bytes.
const ACME_CONFIG: &str = r#"{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":131072,"rope_theta":500000.0,"torch_dtype":"bfloat16"}"#;
const ACME_INDEX: &str = r#"{"metadata":{"total_size":16060522496},"weight_map":{}}"#;

fn acme_config(dir: &std::path::Path) -> String {
    let path = dir.join("config.toml");
    std::fs::write(&path, "[server]\nhost = \"10.0.0.9\"\napi_key = \"${VLLM_INTERNAL_KEY}\"\n[model]\nname = \"acme/chat-8b\"\nmax_model_len = 8192\n[hardware]\ngpu = \"H100-80GB\"\n").unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_model_in_the_hugging_face_cache_is_checked_with_its_own_files() {
    let dir = scratch("hf-cache");
    let snapshot = dir.join("hub/models--acme--chat-8b/snapshots/0123abcd");
    std::fs::create_dir_all(&snapshot).unwrap();
    std::fs::write(snapshot.join("config.json"), ACME_CONFIG).unwrap();
    std::fs::write(snapshot.join("model.safetensors.index.json"), ACME_INDEX).unwrap();
    std::fs::create_dir_all(dir.join("hub/models--acme--chat-8b/refs")).unwrap();
    std::fs::write(dir.join("hub/models--acme--chat-8b/refs/main"), "0123abcd").unwrap();
    let config = acme_config(&dir);
    let hub = dir.join("hub");
    let env = [("HF_HUB_CACHE", hub.to_str().unwrap())];
    let check = cfg_lint_with(&["check", &config], &env);
    assert!(!stdout(&check).contains("CFG312"), "{}", stdout(&check));
    assert!(stdout(&check).contains("CFG204"), "the memory fit ran: {}", stdout(&check));
    let memory = stdout(&cfg_lint_with(&["memory", &config], &env));
    assert!(memory.contains("snapshots/0123abcd/config.json"), "{memory}");
    assert!(memory.contains("weights exact, from the checkpoint's model.safetensors.index.json"), "{memory}");
    // Without the cache: one message with the three ways to give the model.
    let nowhere = stdout(&cfg_lint(&["check", &config]));
    assert!(
        nowhere.contains("CFG312")
            && nowhere.contains("--model-config")
            && nowhere.contains("--fetch")
            && nowhere.contains("huggingface-cli download acme/chat-8b"),
        "{nowhere}"
    );
    // --model-config names the folder directly.
    let explicit = stdout(&cfg_lint(&["memory", &config, "--model-config", snapshot.to_str().unwrap()]));
    assert!(explicit.contains("weights exact"), "{explicit}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn fetch_reads_a_hub_shaped_server_and_never_shows_the_token() {
    let dir = scratch("hf-fetch");
    let (endpoint, seen) = cfg_models::test_hub::hub(vec![
        ("/acme/chat-8b/resolve/main/config.json", ACME_CONFIG),
        ("/acme/chat-8b/resolve/main/model.safetensors.index.json", ACME_INDEX),
    ]);
    let config = acme_config(&dir);
    let hub = dir.join("hub");
    let env = [
        ("HF_HUB_CACHE", hub.to_str().unwrap()),
        ("HF_ENDPOINT", endpoint.as_str()),
        ("HF_TOKEN", "hf_TestTokenValue123"),
    ];
    let offline = cfg_lint_with(&["check", &config], &env);
    assert!(stdout(&offline).contains("CFG312"), "no network unless asked");
    assert!(seen.lock().unwrap().is_empty(), "a lint without --fetch asked the Hub");
    let fetched = cfg_lint_with(&["check", "--fetch", &config], &env);
    let all = format!("{}{}", stdout(&fetched), String::from_utf8_lossy(&fetched.stderr));
    assert!(!all.contains("CFG312") && all.contains("CFG204"), "{all}");
    assert!(!all.contains("hf_TestTokenValue123"), "the token was printed: {all}");
    assert!(seen.lock().unwrap().iter().any(|r| r.contains("Bearer hf_TestTokenValue123")), "the token was not sent");
    // The cache now holds it: the next run needs no network.
    let cached = std::fs::read_dir(hub.join("models--acme--chat-8b/snapshots")).unwrap().count();
    assert_eq!(cached, 1);
    let _ = std::fs::remove_dir_all(dir);
}

/// An endless or sparse file is refused at the size limit without being read
/// past it (before, `/dev/zero` reached 2.1 GB of memory).
#[test]
fn endless_and_sparse_files_stop_at_the_size_limit() {
    let dir = scratch("endless-files");
    let sparse = dir.join("settings.json");
    std::fs::File::create(&sparse).unwrap().set_len(2 << 30).unwrap();
    for path in [sparse.to_str().unwrap(), "/dev/zero"] {
        let o = cfg_lint(&["check", path]);
        assert_eq!(o.status.code(), Some(2), "{path}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is larger than 1048576 bytes"), "{path}: {err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
