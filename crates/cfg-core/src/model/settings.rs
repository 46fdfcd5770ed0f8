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
    #[schemars(length(max = 2048))]
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
    #[schemars(extend("minProperties" = 1, "maxProperties" = 64, "propertyNames" = {"minLength": 1, "maxLength": 64}))]
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
    /// How requests arrive. Default: closed loop (`concurrency` requests always in flight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival: Option<Arrival>,
    /// Windows of extra load (the seed's "short periods at double the rate"); open-loop
    /// arrivals only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    pub bursts: Vec<Burst>,
    /// Seed of the request schedule (classes, prompts, arrival times): same seed, same
    /// schedule. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub seed: Option<u64>,
    /// Seconds before a request that has not finished counts as a timeout error. Default 300.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.1, max = 86_400.0), extend("default" = 300))]
    pub request_timeout_seconds: Option<f64>,
    /// Force every response to exactly `output_tokens` with vLLM's `ignore_eos` and
    /// `min_tokens` (plus `max_tokens`). Turn off for servers that reject those fields.
    /// Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub force_output_length: Option<bool>,
    /// Prometheus endpoint of the server, scraped during the run for queue length, KV usage
    /// and preemptions. Default: `/metrics` on the endpoint's host and port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 2048), regex(pattern = r"^https?://"))]
    pub metrics_url: Option<String>,
    /// DCGM exporter URL for GPU utilisation (`DCGM_FI_DEV_GPU_UTIL`). Without it the runner
    /// tries a local `nvidia-smi`, else reports null with the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 2048), regex(pattern = r"^https?://"))]
    pub gpu_metrics_url: Option<String>,
    /// Stop the run early when the server is failing: without it a dead or overloaded
    /// endpoint is hammered for the whole duration. Default: off (every error is counted
    /// and the run goes on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit_breaker: Option<CircuitBreaker>,
}

/// Stops the run when too many of the latest requests failed; the result is written with
/// `"complete": false` and the reason in `stopped_reason`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CircuitBreaker {
    /// Trip when the share of failures among the last `window` requests reaches this,
    /// in (0, 1]. Example: 0.5.
    #[schemars(range(min = 0.0, max = 1.0), extend("exclusiveMinimum" = 0.0), example = 0.5)]
    pub error_rate: f64,
    /// How many of the latest finished requests are judged (and how many must have
    /// finished before the breaker can trip). Default: 20.
    #[serde(default = "default_breaker_window")]
    #[schemars(range(min = 1, max = 100_000), extend("default" = 20))]
    pub window: u32,
}

fn default_breaker_window() -> u32 {
    20
}

/// How requests arrive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Arrival {
    /// "closed" (a new request as soon as one finishes), or open loop at `rate_qps`:
    /// "constant" (evenly spaced), "poisson" (exponential gaps), "gamma" (burstier or
    /// smoother than Poisson, by `burstiness`). Default "closed".
    #[serde(default)]
    pub mode: ArrivalMode,
    /// Open loop: requests per second. Example: 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1_000_000.0), extend("exclusiveMinimum" = 0.0), example = 10.0)]
    pub rate_qps: Option<f64>,
    /// Gamma mode: shape of the inter-arrival distribution; 1 is Poisson, below 1 burstier,
    /// above 1 smoother. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.01, max = 100.0), extend("default" = 1.0))]
    pub burstiness: Option<f64>,
}

/// Arrival process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalMode {
    /// `concurrency` requests always in flight.
    #[default]
    Closed,
    /// Evenly spaced at rate_qps.
    Constant,
    /// Exponential gaps at rate_qps (independent users).
    Poisson,
    /// Gamma-distributed gaps at rate_qps with the given burstiness.
    Gamma,
}

/// A window of extra load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Burst {
    /// Seconds after the measured phase starts. Example: 60.
    #[schemars(range(min = 0.0, max = 604_800.0))]
    pub start_seconds: f64,
    /// Length of the window in seconds. Example: 10.
    #[schemars(range(min = 0.0, max = 604_800.0), extend("exclusiveMinimum" = 0.0))]
    pub duration_seconds: f64,
    /// Rate multiplier inside the window. Default 2 (the seed's "double the rate").
    #[serde(default = "default_multiplier")]
    #[schemars(range(min = 1.0, max = 1000.0), extend("default" = 2.0))]
    pub multiplier: f64,
}

fn default_multiplier() -> f64 {
    2.0
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
