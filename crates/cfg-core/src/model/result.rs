//! `result.json`: what a load test measured. The seed's keys come first and
//! keep their names; everything else the runner reports follows. Readers must
//! ignore keys they do not know (the schema allows them), so the file can grow.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// # Load-test result
/// What one run measured, as written by `cfg-bench run`. Latencies in milliseconds,
/// definitions as in `vllm bench serve`: TTFT from sending the request to the first chunk
/// with content; TPOT per request = (E2E - TTFT) / (output tokens - 1); ITL between
/// consecutive content chunks; E2E from sending to the last chunk.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct BenchResult {
    /// Time to first token percentiles, over all successful measured requests.
    pub ttft_ms: Percentiles,
    /// Time per output token percentiles (per request, requests with 2+ output tokens).
    pub tpot_ms: Percentiles,
    /// Output tokens completed per second over the measured phase.
    #[schemars(range(min = 0.0))]
    pub throughput_tokens_per_sec: f64,
    /// Failed requests / all measured requests, in [0, 1]; should be under 0.01.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub error_rate: f64,
    /// Mean GPU utilisation during the run in [0, 1], or null when it could not be read
    /// (see `gpu_utilization_reason`).
    #[schemars(extend("minimum" = 0.0, "maximum" = 1.0))]
    pub gpu_utilization_avg: Option<f64>,
    /// Why gpu_utilization_avg is null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_utilization_reason: Option<String>,
    /// Result format version.
    #[serde(default)]
    pub format_version: u32,
    /// False when the run was interrupted (Ctrl-C or an error); the figures cover what ran.
    #[serde(default = "yes")]
    pub complete: bool,
    /// Why an incomplete run stopped early: Ctrl-C, or the circuit breaker with its figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
    /// True when the target was cfg-bench's simulator, not a real server.
    #[serde(default)]
    pub simulated: bool,
    /// Who ran what, when, against what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Request counts.
    #[serde(default)]
    pub requests: RequestCounts,
    /// End-to-end latency percentiles.
    #[serde(default)]
    pub e2e_ms: Percentiles,
    /// Inter-token latency percentiles (between consecutive content chunks).
    #[serde(default)]
    pub itl_ms: Percentiles,
    /// Open-loop runs: latencies measured from each request's intended send time
    /// (corrected for coordinated omission), next to the figures above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended: Option<IntendedLatency>,
    /// Throughput figures.
    #[serde(default)]
    pub throughput: Throughput,
    /// Token accounting: the server's `usage` is the truth; targets are what settings asked.
    #[serde(default)]
    pub tokens: TokenCounts,
    /// Per request class (the tail class drives P99).
    #[serde(default)]
    pub per_class: IndexMap<String, ClassResult>,
    /// Errors by kind, with a sample message each.
    #[serde(default)]
    pub errors: Vec<ErrorClass>,
    /// What the server's Prometheus metrics said during the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerSeries>,
    /// Client-side time series, one point per second of the measured phase and
    /// the drain after it (`t` = 1 is the first second of the measured phase).
    #[serde(default)]
    pub timeseries: Vec<TimePoint>,
    /// The run's phases on the time series' clock (seconds since the measured
    /// phase began): `warmup` (before 0), `measured`, then `drain` or, when the
    /// run was stopped early, `stopped`. They follow each other without gaps,
    /// so together they span the whole run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<RunPhase>,
    /// The verdict against the SLA, the seed's diagnoses, and the capacity plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<super::Verdict>,
    /// Present on the result of one shard of a sharded run (`cfg-bench run --shard I/N`):
    /// what `cfg-bench merge` needs to combine the shards exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// One shard of a sharded run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ShardInfo {
    /// This shard's index, from 0.
    pub index: u32,
    /// How many shards the run has.
    pub count: u32,
    /// The run's seed before this shard derived its own stream from it.
    pub base_seed: u64,
    /// The latency histograms (microseconds), HdrHistogram V2 + DEFLATE, base64: keyed
    /// `ttft`, `tpot`, `e2e`, `itl`, `intended_ttft`, `intended_e2e` and
    /// `class/NAME/ttft` (`tpot`, `e2e`) per request class.
    pub histograms: IndexMap<String, String>,
}

fn yes() -> bool {
    true
}

/// Percentiles keyed `p50`, `p95`, `p99`, `p99.9`, ... (null when there were no samples).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Percentiles(
    #[schemars(extend("propertyNames" = {"pattern": "^p[0-9]{1,2}(\\.[0-9]+)?$|^p100$|^mean$|^min$|^max$"}, "additionalProperties" = {"type": ["number", "null"], "minimum": 0}))]
    pub IndexMap<String, Option<f64>>,
);

impl Percentiles {
    pub fn get(&self, key: &str) -> Option<f64> {
        self.0.get(key).copied().flatten()
    }
}

/// Who ran what, when, against what.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    pub tool: String,
    pub tool_version: String,
    /// SHA-256 of settings.json as run.
    pub settings_sha256: String,
    /// SHA-256 of config.toml, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_sha256: Option<String>,
    pub endpoint: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantization: Option<String>,
    /// RFC 3339: when the measured window began, and when its last request finished.
    pub started_at: String,
    pub ended_at: String,
    /// Length of the measured window in seconds: the settings' `duration_seconds`,
    /// or up to the stop of an interrupted run. Every rate is over this window: the
    /// tokens streamed and the requests finished inside it.
    pub duration_seconds: f64,
    /// Seconds after the window until the last measured request finished (its
    /// latencies count; what it streamed after the window does not count in rates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_seconds: Option<f64>,
    pub concurrency: u32,
    pub arrival: String,
    pub seed: u64,
    /// Set on a merged result: how many shards it combines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// How chunk arrivals were timed: `kernel` (the kernel's receive timestamps, by
    /// cfg-bench's own HTTP/1.1 client on http:// endpoints) or `user` (a clock read
    /// when the HTTP library hands a chunk over: https://, proxies, `--transport reqwest`);
    /// `mixed` on a merge of shards that differed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct RequestCounts {
    /// Measured requests (warm-up excluded).
    pub total: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Warm-up requests sent first and excluded from every statistic.
    pub warmup: u64,
    /// Successful requests that met every SLA limit.
    pub good: u64,
    /// Requests cancelled unfinished when a stopped run's grace period ran out:
    /// in no other count.
    #[serde(default)]
    pub abandoned: u64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct IntendedLatency {
    pub ttft_ms: Percentiles,
    pub e2e_ms: Percentiles,
    /// Sends that left more than 10 ms after their intended time.
    pub late_sends: u64,
    /// Arrivals never sent because the concurrency cap was reached until the end.
    pub dropped_sends: u64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Throughput {
    pub requests_per_sec: f64,
    pub output_tokens_per_sec: f64,
    pub total_tokens_per_sec: f64,
    /// Requests per second that met every SLA limit (goodput).
    pub goodput_requests_per_sec: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TokenCounts {
    /// Prompt tokens as the server counted them (`usage.prompt_tokens`).
    pub prompt_total: u64,
    /// Output tokens as the server counted them (`usage.completion_tokens`).
    pub completion_total: u64,
    /// Prompt tokens the settings asked for.
    pub prompt_target_total: u64,
    /// Output tokens the settings asked for.
    pub completion_target_total: u64,
    /// (prompt_total - prompt_target_total) / prompt_target_total x 100.
    pub prompt_deviation_pct: f64,
    /// Requests whose stream carried no usage (counted by chunks instead).
    pub requests_without_usage: u64,
    /// Prompts were sized with the server's `/tokenize` (vLLM), so their lengths match
    /// the targets on average (`prompt_deviation_pct` says how well); otherwise one
    /// word stands for one token.
    #[serde(default)]
    pub prompts_calibrated: bool,
    /// Gaps between consecutive content chunks: the ITL samples.
    #[serde(default)]
    pub itl_gaps: u64,
    /// Of those, gaps between chunks that one read returned together, so they share
    /// a timestamp (ITL 0): the server sent them at once, or the runner had fallen a
    /// token behind. A large share means ITL and TPOT understate the real gaps.
    #[serde(default)]
    pub itl_gaps_in_one_read: u64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ClassResult {
    pub requests: u64,
    pub failed: u64,
    pub ttft_ms: Percentiles,
    pub tpot_ms: Percentiles,
    pub e2e_ms: Percentiles,
    pub output_tokens_per_sec: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ErrorClass {
    /// e.g. `http_401`, `http_429`, `timeout`, `connection_refused`, `connection_reset`,
    /// `stream_cut`, `malformed_sse`, `tls`, `dns`.
    pub kind: String,
    pub count: u64,
    /// One message of this kind, for the reader.
    pub sample: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ServerSeries {
    /// Where the series came from, or why it is empty.
    pub source: String,
    pub points: Vec<ServerPoint>,
    /// Whether `vllm:num_requests_waiting` kept growing over the run (not enough capacity).
    pub queue_growing: bool,
    pub preemptions: Option<f64>,
    /// Server-side counters over the run (deltas), for checking the client's accounting.
    pub prompt_tokens_delta: Option<f64>,
    pub generation_tokens_delta: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ServerPoint {
    /// Seconds since the measured phase started.
    pub t: f64,
    pub waiting: Option<f64>,
    pub running: Option<f64>,
    /// `vllm:kv_cache_usage_perc`, 0..1.
    pub kv_cache_usage: Option<f64>,
    pub gpu_utilization: Option<f64>,
}

/// What the server and the runner did in one second of the run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TimePoint {
    /// Seconds since the measured phase started, at the end of this one-second
    /// window (the window is `t - 1` to `t`).
    pub t: f64,
    /// Requests sent in this second.
    #[serde(default)]
    pub started: u64,
    /// Requests that finished successfully in this second.
    pub completed: u64,
    /// Requests that failed in this second.
    pub errors: u64,
    /// Output tokens streamed in this second: each chunk counted in the second
    /// it arrived, not when its request finished.
    pub output_tokens_per_sec: f64,
    /// TTFT percentiles of the requests whose first token arrived in this second
    /// (null when none did).
    pub ttft_p50_ms: Option<f64>,
    pub ttft_p99_ms: Option<f64>,
    /// Requests in flight, sampled once in this second.
    pub in_flight: u64,
}

/// One phase of a run, on the time series' clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunPhase {
    pub name: PhaseName,
    /// Seconds since the measured phase began (negative for the warm-up).
    pub start: f64,
    pub end: f64,
    /// For `stopped`: what stopped the run (Ctrl-C, SIGTERM, the circuit breaker, the browser).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The phases of a run, in their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PhaseName {
    /// `warmup_requests`, sent first and left out of every statistic; the phase
    /// lasts until the measured one begins (it includes the wait for the
    /// server's counters to settle and, for a shard, for the other shards).
    Warmup,
    /// The measured window: every rate and percentile comes from the requests sent in it.
    Measured,
    /// After the window, until the last measured request finished (their
    /// latencies count; what streamed now does not count in rates).
    Drain,
    /// After a stop before the window's end: the grace period for requests in flight.
    Stopped,
}

impl PhaseName {
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseName::Warmup => "warm-up",
            PhaseName::Measured => "measured",
            PhaseName::Drain => "drain",
            PhaseName::Stopped => "stopped",
        }
    }
}

/// The phases of a run that warmed up for `warmup` seconds, measured for
/// `window` seconds and ended `elapsed` seconds after the measured phase began.
pub fn run_phases(warmup: f64, window: f64, elapsed: f64, stopped: Option<&str>) -> Vec<RunPhase> {
    let mut out = Vec::new();
    if warmup > 0.0 {
        out.push(RunPhase { name: PhaseName::Warmup, start: -warmup, end: 0.0, reason: None });
    }
    out.push(RunPhase { name: PhaseName::Measured, start: 0.0, end: window, reason: None });
    let end = elapsed.max(window);
    let (name, reason) = match stopped {
        Some(why) => (PhaseName::Stopped, Some(why.to_string())),
        None => (PhaseName::Drain, None),
    };
    if end > window || stopped.is_some() {
        out.push(RunPhase { name, start: window, end, reason });
    }
    out
}
