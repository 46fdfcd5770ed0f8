use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # The server queue kept growing: not enough capacity
    ///
    /// **What:** `vllm:num_requests_waiting` rose steadily through the run.
    ///
    /// **Why:** the SPEC's sign of too little capacity: requests arrive faster
    /// than the instance finishes them, so latency grows without bound.
    ///
    /// **Advice:** add instances or lower the load per instance; see the capacity plan.
    pub static DIAGNOSIS = { code: "queue-growing", severity: Error, title: "The server queue kept growing: not enough capacity", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    f.result.server.as_ref().filter(|s| s.queue_growing).map(|_| {
        Found::new(
            "vllm:num_requests_waiting rose steadily through the run".into(),
            &["add instances, or lower the load per instance", "check the capacity plan below"],
        )
    })
}
