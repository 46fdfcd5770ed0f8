use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # P99 TTFT is more than 1.5 x the SLA
    ///
    /// **What:** the 99th percentile time to first token is over one and a half
    /// times the `ttft_p99_ms` limit.
    ///
    /// **Why:** the SPEC's first rule: this far over, either `max_num_seqs` lets too
    /// many requests share each batch (new prompts wait for their prefill), or one
    /// instance carries too much load.
    ///
    /// **Advice:** a lower `max_num_seqs`, given only with the simulator's
    /// predicted effect at this run's load (never when the run's concurrency is
    /// not above it: a cap above the load changes nothing); or add instances.
    pub static DIAGNOSIS = { code: "ttft-far-above-sla", severity: Error, title: "P99 TTFT is more than 1.5 x the SLA", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let (limit, p99) = (f.sla.ttft_p99_ms?, f.ttft_p99?);
    (p99 > 1.5 * limit).then(|| {
        let mut advice: Vec<String> = super::knobs::lower_max_num_seqs(f).into_iter().collect();
        advice.push("add instances: the load per instance is too high".into());
        Found {
            evidence: format!("P99 TTFT {p99:.0} ms against an SLA of {limit:.0} ms ({:.1} x)", p99 / limit),
            advice,
        }
    })
}
