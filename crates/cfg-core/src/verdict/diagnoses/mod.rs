//! The diagnosis registry: what a result says about the server, each with its
//! evidence and advice. Declared like lint rules: the doc comment is the
//! documentation.

use super::Facts;
use crate::diagnostic::Severity;
use crate::model::Diagnosis;

/// Declares a diagnosis: the doc comment becomes its documentation.
macro_rules! declare_diagnosis {
    ($(#[doc = $doc:expr])* pub static $id:ident = { code: $code:literal, severity: $sev:ident, title: $title:literal, check $(,)? }) => {
        $(#[doc = $doc])*
        pub static $id: $crate::verdict::DiagnosisRule = $crate::verdict::DiagnosisRule {
            code: $code,
            severity: $crate::diagnostic::Severity::$sev,
            title: $title,
            doc: concat!($($doc, "\n"),*),
            check,
        };
    };
}

mod auth_rejected;
mod batches_not_full;
mod chunks_read_together;
mod cold_start;
mod error_rate_high;
mod few_samples;
mod gpu_idle;
mod knobs;
mod queue_growing;
mod run_incomplete;
mod short_window;
mod traffic_too_uniform;
mod ttft_far_above_sla;
mod ttft_high_throughput_fine;

/// What a diagnosis found: the figures that triggered it and what to do, in order.
pub struct Found {
    pub evidence: String,
    pub advice: Vec<String>,
}

impl Found {
    fn new(evidence: String, advice: &[&str]) -> Self {
        Found { evidence, advice: advice.iter().map(|a| a.to_string()).collect() }
    }
}

pub struct DiagnosisRule {
    /// Stable identifier in result.json, e.g. `ttft-far-above-sla`.
    pub code: &'static str,
    pub severity: Severity,
    pub title: &'static str,
    /// The documentation, from the doc comment (markdown).
    pub doc: &'static str,
    pub check: fn(&Facts<'_>) -> Option<Found>,
}

impl DiagnosisRule {
    /// The diagnosis, if the facts show it.
    pub fn run(&self, facts: &Facts<'_>) -> Option<Diagnosis> {
        let found = (self.check)(facts)?;
        Some(Diagnosis {
            code: self.code.into(),
            severity: self.severity,
            title: self.title.into(),
            evidence: found.evidence,
            advice: found.advice,
        })
    }
}

/// Every diagnosis, in the order a reader should see them.
pub static DIAGNOSES: &[&DiagnosisRule] = &[
    &run_incomplete::DIAGNOSIS,
    &ttft_far_above_sla::DIAGNOSIS,
    &ttft_high_throughput_fine::DIAGNOSIS,
    &gpu_idle::DIAGNOSIS,
    &batches_not_full::DIAGNOSIS,
    &chunks_read_together::DIAGNOSIS,
    &error_rate_high::DIAGNOSIS,
    &queue_growing::DIAGNOSIS,
    &cold_start::DIAGNOSIS,
    &auth_rejected::DIAGNOSIS,
    &traffic_too_uniform::DIAGNOSIS,
    &few_samples::DIAGNOSIS,
    &short_window::DIAGNOSIS,
];
