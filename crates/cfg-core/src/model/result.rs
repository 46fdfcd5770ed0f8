//! `result.json`: what a load test measured. The seed's keys are fixed; the
//! runner adds more (open object), so this schema only pins what it names.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// # Load-test result
/// What one run measured, as written by `cfg-bench run`. Latencies in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BenchResult {
    /// Time to first token percentiles (from sending the request to the first content chunk).
    pub ttft_ms: Percentiles,
    /// Time per output token percentiles: (end-to-end - TTFT) / (output tokens - 1), per request.
    pub tpot_ms: Percentiles,
    /// Output tokens completed per second over the measured phase.
    #[schemars(range(min = 0.0))]
    pub throughput_tokens_per_sec: f64,
    /// Failed requests / all requests in the measured phase, in [0, 1]; should be under 0.01.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub error_rate: f64,
    /// Mean GPU utilisation during the run in [0, 1], or null when it could not be read
    /// (no DCGM exporter or nvidia-smi).
    #[schemars(extend("minimum" = 0.0, "maximum" = 1.0))]
    pub gpu_utilization_avg: Option<f64>,
    /// Everything else the runner reports.
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Percentiles keyed `p50`, `p95`, `p99`, `p99.9`, ...
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Percentiles(
    #[schemars(extend("propertyNames" = {"pattern": "^p[0-9]{1,2}(\\.[0-9]+)?$|^p100$"}, "additionalProperties" = {"type": ["number", "null"], "minimum": 0}))]
    pub IndexMap<String, Option<f64>>,
);
