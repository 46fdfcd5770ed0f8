//! The verdict in `result.json`: the SLA checks, the diagnoses with their
//! advice, and the capacity plan. `crate::verdict` decides them; this is
//! their shape.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Severity;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    /// True when every SLA check passed (and there was something to check).
    pub sla_met: bool,
    pub sla: Vec<SlaCheck>,
    pub findings: Vec<Diagnosis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityPlan>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SlaCheck {
    /// `ttft_p99_ms`, `tpot_p99_ms` or `error_rate`.
    pub name: String,
    pub limit: f64,
    pub actual: Option<f64>,
    pub pass: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Diagnosis {
    /// Stable identifier, e.g. `ttft-far-above-sla`.
    pub code: String,
    pub severity: Severity,
    pub title: String,
    /// The figures that triggered it.
    pub evidence: String,
    /// What to do, in order.
    pub advice: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CapacityPlan {
    pub target_qps: f64,
    pub redundancy: f64,
    /// Successful requests per second one instance sustained in this test.
    pub per_instance_requests_per_sec: f64,
    /// ceil(target_qps x redundancy / per_instance_requests_per_sec).
    pub instances: u64,
    /// Requests per second each instance carries at the target with all instances up.
    pub load_per_instance: f64,
    /// Whether P99 TTFT stays inside the SLA at that load (null without a TTFT SLA).
    pub ttft_p99_holds: Option<bool>,
    pub explanation: String,
}
