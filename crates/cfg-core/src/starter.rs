//! Starter files for `cfg-lint init`: valid, commented, and pointing at their
//! schemas so editors complete and check them from the first keystroke.

/// A starter config.toml; `schema_path` is relative to the file.
pub fn config_toml(schema_path: &str) -> String {
    format!(
        r#"#:schema {schema_path}

# One vLLM instance. Check it with `cfg-lint check config.toml settings.json`,
# launch it with the command `cfg-lint render config.toml` prints.

[server]
host = "0.0.0.0"
port = 8000
# The key comes from the environment; never write it here.
api_key = "${{VLLM_INTERNAL_KEY}}"
served_model_name = "llama-3.1-8b"

[model]
name = "meta-llama/Llama-3.1-8B-Instruct"
dtype = "auto"
max_model_len = 8192
gpu_memory_utilization = 0.90

[batching]
# The TTFT / throughput trade-off: choose both from a load test, never copy them.
max_num_seqs = 128
max_num_batched_tokens = 8192
scheduling_policy = "fcfs"

[parallel]
tensor_parallel_size = 1
pipeline_parallel_size = 1

[monitoring]
enable_metrics = true

[hardware]
gpu = "L40S"
gpu_count = 1
"#
    )
}

/// A starter settings.json; `schema_path` is relative to the file.
pub fn settings_json(schema_path: &str) -> String {
    let schema = serde_json::to_string(schema_path).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"{{
  "$schema": {schema},
  "endpoint": "http://127.0.0.1:8000/v1/chat/completions",
  "api_key_env": "VLLM_INTERNAL_KEY",
  "model": "llama-3.1-8b",
  "concurrency": 32,
  "duration_seconds": 300,
  "request_distribution": {{
    "short": {{ "weight": 0.6, "input_tokens": 256, "output_tokens": 128 }},
    "long": {{ "weight": 0.3, "input_tokens": 2048, "output_tokens": 512 }},
    "tail": {{ "weight": 0.1, "input_tokens": 6144, "output_tokens": 2048 }}
  }},
  "metrics": {{ "record_ttft": true, "record_tpot": true, "percentiles": [50, 95, 99] }},
  "warmup_requests": 20,
  "sla": {{ "ttft_p99_ms": 2000, "tpot_p99_ms": 50, "error_rate": 0.01 }},
  "target": {{ "qps": 20, "redundancy": 1.2 }}
}}
"#
    )
}
