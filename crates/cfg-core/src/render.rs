//! Renders config.toml into the launch vLLM really takes: a `vllm serve`
//! command line, or the YAML file for `vllm serve --config` (vLLM reads no
//! TOML). Only keys written in the file are rendered, so vLLM's defaults stay
//! vLLM's. Keys with no vLLM flag are listed, never dropped silently, and the
//! API key travels as `VLLM_API_KEY` from the environment, never as text.

use crate::model::ServerConfig;
use crate::secrets::env_reference;

#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Flag(&'static str),
    Value(&'static str, String),
    List(&'static str, Vec<String>),
    /// `--no-x` on the command line, `x: false` in YAML.
    Negated(&'static str),
}

/// A key of config.toml that vLLM has no flag for, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unrendered {
    pub key: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub model: String,
    pub args: Vec<Arg>,
    /// Environment the server needs: (variable, shell expression), e.g.
    /// (`VLLM_API_KEY`, `$VLLM_INTERNAL_KEY`).
    pub env: Vec<(String, String)>,
    pub unrendered: Vec<Unrendered>,
}

pub fn launch(config: &ServerConfig) -> Launch {
    let mut args = Vec::new();
    let mut env = Vec::new();
    let mut unrendered = Vec::new();
    let mut skip = |key: &str, reason: &str| unrendered.push(Unrendered { key: key.into(), reason: reason.into() });

    if let Some(s) = &config.server {
        if let Some(h) = &s.host {
            args.push(Arg::Value("host", h.clone()));
        }
        if let Some(p) = s.port {
            args.push(Arg::Value("port", p.to_string()));
        }
        if let Some(k) = &s.api_key {
            match env_reference(k) {
                // vLLM reads VLLM_API_KEY when --api-key is absent: the key never
                // appears in argv (visible in `ps`) or in a file.
                Some(var) => env.push(("VLLM_API_KEY".to_string(), format!("${var}"))),
                None => {
                    skip("server.api_key", "not an environment reference like ${NAME}; a literal key is never rendered")
                }
            }
        }
        if let Some(names) = &s.served_model_name {
            args.push(Arg::List("served-model-name", names.names().iter().map(|n| n.to_string()).collect()));
        }
    }
    let m = &config.model;
    if let Some(d) = m.dtype {
        args.push(Arg::Value("dtype", d.as_str().into()));
    }
    if let Some(q) = m.quantization {
        args.push(Arg::Value("quantization", q.as_str().into()));
    }
    if let Some(l) = m.max_model_len {
        args.push(Arg::Value("max-model-len", l.to_string()));
    }
    if let Some(u) = m.gpu_memory_utilization {
        args.push(Arg::Value("gpu-memory-utilization", u.to_string()));
    }
    if let Some(k) = m.kv_cache_dtype {
        args.push(Arg::Value("kv-cache-dtype", k.as_str().into()));
    }
    if m.enforce_eager == Some(true) {
        args.push(Arg::Flag("enforce-eager"));
    }
    if m.architecture.is_some() {
        skip(
            "model.architecture",
            "vLLM reads the architecture from the checkpoint's config.json; these keys only inform the linter",
        );
    }
    if let Some(b) = &config.batching {
        if let Some(n) = b.max_num_seqs {
            args.push(Arg::Value("max-num-seqs", n.to_string()));
        }
        if let Some(n) = b.max_num_batched_tokens {
            args.push(Arg::Value("max-num-batched-tokens", n.to_string()));
        }
        if let Some(p) = b.scheduling_policy {
            args.push(Arg::Value("scheduling-policy", p.as_str().into()));
        }
        match b.enable_chunked_prefill {
            Some(true) => args.push(Arg::Flag("enable-chunked-prefill")),
            Some(false) => args.push(Arg::Negated("enable-chunked-prefill")),
            None => {}
        }
    }
    if let Some(p) = &config.parallel {
        if let Some(n) = p.tensor_parallel_size {
            args.push(Arg::Value("tensor-parallel-size", n.to_string()));
        }
        if let Some(n) = p.pipeline_parallel_size {
            args.push(Arg::Value("pipeline-parallel-size", n.to_string()));
        }
    }
    if let Some(mon) = &config.monitoring {
        if mon.enable_metrics == Some(false) {
            skip(
                "monitoring.enable_metrics",
                "vLLM always serves /metrics on the API port; block it at the gateway instead",
            );
        }
        if mon.metrics_port.is_some() {
            skip("monitoring.metrics_port", "vLLM has no metrics port flag: /metrics is served on the API port");
        }
    }
    if config.hardware.is_some() {
        skip("hardware", "describes the machine for the linter; vLLM detects the GPUs itself");
    }
    Launch { model: m.name.clone(), args, env, unrendered }
}

/// Single-quotes a word for POSIX shells when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The `vllm serve` command line, one flag per line.
pub fn command_line(launch: &Launch) -> String {
    let mut lines: Vec<String> = Vec::new();
    let env: Vec<String> = launch.env.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
    let mut head = env.join(" ");
    if !head.is_empty() {
        head.push(' ');
    }
    lines.push(format!("{head}vllm serve {}", shell_word(&launch.model)));
    for arg in &launch.args {
        lines.push(match arg {
            Arg::Flag(f) => format!("--{f}"),
            Arg::Negated(f) => format!("--no-{f}"),
            Arg::Value(f, v) => format!("--{f} {}", shell_word(v)),
            Arg::List(f, vs) => format!("--{f} {}", vs.iter().map(|v| shell_word(v)).collect::<Vec<_>>().join(" ")),
        });
    }
    let mut out = lines.join(" \\\n  ");
    out.push('\n');
    out
}

fn yaml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn yaml_scalar(v: &str) -> String {
    if v.parse::<f64>().is_ok() { v.to_string() } else { yaml_string(v) }
}

/// The YAML for `vllm serve --config FILE.yaml` (keys are the long flag names).
pub fn yaml(launch: &Launch) -> String {
    let mut out = String::from("# vLLM 0.33 launch rendered by cfg-lint from config.toml.\n");
    match launch.env.first() {
        Some((var, expr)) => out.push_str(&format!("# The API key is read from the environment, never written here:\n#   {var}=\"{expr}\" vllm serve --config vllm.yaml\n")),
        None => out.push_str("# Start with: vllm serve --config vllm.yaml\n"),
    }
    out.push_str(&format!("model: {}\n", yaml_string(&launch.model)));
    for arg in &launch.args {
        match arg {
            Arg::Flag(f) => out.push_str(&format!("{f}: true\n")),
            Arg::Negated(f) => out.push_str(&format!("{f}: false\n")),
            Arg::Value(f, v) => out.push_str(&format!("{f}: {}\n", yaml_scalar(v))),
            Arg::List(f, vs) => {
                out.push_str(&format!("{f}:\n"));
                for v in vs {
                    out.push_str(&format!("  - {}\n", yaml_string(v)));
                }
            }
        }
    }
    if !launch.unrendered.is_empty() {
        out.push_str("# Not rendered (no vLLM equivalent):\n");
        for u in &launch.unrendered {
            out.push_str(&format!("#   {}: {}\n", u.key, u.reason));
        }
    }
    out
}
