//! `settings.json`: one load test against an OpenAI-compatible endpoint.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// # Load-test settings
/// One load test: where to send requests, how many at once, for how long, and what mix of
/// request sizes. The traffic must look like production (weight the short, long and tail
/// classes like the real mix) or the numbers will not hold. Run with `cfg-bench run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadTestSettings {
    /// Path or URL of the JSON Schema for editors; ignored by the tools.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The URL under test, an OpenAI-compatible `/v1/chat/completions` or `/v1/completions`.
    /// Load tests should go through the same gateway and auth as production, or the gateway's
    /// queueing and rate limits are missing from the numbers.
    #[schemars(length(min = 1, max = 2048), regex(pattern = r"^https?://"), example = &"http://127.0.0.1:8000/v1/chat/completions")]
    pub endpoint: String,
    /// NAME of the environment variable holding the API key (sent as `Authorization: Bearer`).
    /// The key itself never goes in this file. Omit for an endpoint without auth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"), length(max = 128), example = &"GATEWAY_API_KEY")]
    pub api_key_env: Option<String>,
    /// Model name sent in each request's `model` field; must be a name the server answers to.
    #[schemars(length(min = 1, max = 512), example = &"meta-llama/Llama-3.1-8B-Instruct")]
    pub model: String,
    /// Requests kept in flight at once (closed loop). Above the server's max_num_seqs the
    /// extra requests queue in the server. Example: 32.
    #[schemars(range(min = 1, max = 100_000), example = 32)]
    pub concurrency: u32,
    /// Length of the measured phase in seconds, after the warm-up. Example: 300.
    #[schemars(range(min = 1, max = 604_800), example = 300)]
    pub duration_seconds: u32,
    /// Weighted request classes; each request draws a class by weight. Weights sum to 1.
    /// Long-tail requests drive P99, so weight short, long and tail classes like the real mix.
    #[schemars(extend("minProperties" = 1, "maxProperties" = 64))]
    pub request_distribution: IndexMap<String, RequestClass>,
    /// What to record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// Requests sent first and excluded from every statistic, so cold start (graph capture,
    /// caches) does not pollute the numbers. Default 0. Example: 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1_000_000), example = 20, extend("default" = 0))]
    pub warmup_requests: Option<u32>,
    /// Service-level objectives the result is judged against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sla: Option<Sla>,
    /// Production load to plan capacity for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
}

/// One request class: its share of the traffic and its size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestClass {
    /// Share of requests in this class, in [0, 1]; all weights sum to 1. Example: 0.6.
    #[schemars(range(min = 0.0, max = 1.0), example = 0.6)]
    pub weight: f64,
    /// Prompt length in tokens. Example: 256.
    #[schemars(range(min = 1, max = 10_000_000), example = 256)]
    pub input_tokens: u32,
    /// Output length in tokens (forced with max_tokens and ignore_eos). Example: 128.
    #[schemars(range(min = 1, max = 10_000_000), example = 128)]
    pub output_tokens: u32,
}

/// What to record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Record time to first token. Default true.
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    pub record_ttft: bool,
    /// Record time per output token (decode speed). Default true.
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    pub record_tpot: bool,
    /// Percentiles to report, each in [0, 100] (0 is the minimum, 100 the maximum).
    /// Default [50, 95, 99]; interactive use watches 99.
    #[serde(default = "default_percentiles")]
    #[schemars(length(min = 1, max = 32), extend("default" = [50, 95, 99]), inner(range(min = 0.0, max = 100.0)))]
    pub percentiles: Vec<f64>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics { record_ttft: true, record_tpot: true, percentiles: default_percentiles() }
    }
}

fn yes() -> bool {
    true
}

fn default_percentiles() -> Vec<f64> {
    vec![50.0, 95.0, 99.0]
}

/// Service-level objectives.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sla {
    /// Highest acceptable P99 time to first token, in milliseconds. Example: 2000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("exclusiveMinimum" = 0.0), example = 2000.0)]
    pub ttft_p99_ms: Option<f64>,
    /// Highest acceptable P99 time per output token, in milliseconds. Example: 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("exclusiveMinimum" = 0.0), example = 50.0)]
    pub tpot_p99_ms: Option<f64>,
    /// Highest acceptable share of failed requests, in [0, 1]. Example: 0.01 (1%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0), example = 0.01)]
    pub error_rate: Option<f64>,
}

/// Production load to plan capacity for:
/// instances = ceil(qps x redundancy / per-instance throughput).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Expected production load in requests per second. Example: 50.
    #[schemars(range(min = 0.0), extend("exclusiveMinimum" = 0.0), example = 50.0)]
    pub qps: f64,
    /// Head-room factor for failures and spikes, 1.2 to 1.3 in practice. Default 1.2.
    #[serde(default = "default_redundancy")]
    #[schemars(range(min = 1.0, max = 10.0), extend("default" = 1.2))]
    pub redundancy: f64,
}

fn default_redundancy() -> f64 {
    1.2
}

impl LoadTestSettings {
    pub fn metrics(&self) -> Metrics {
        self.metrics.clone().unwrap_or_default()
    }
}
