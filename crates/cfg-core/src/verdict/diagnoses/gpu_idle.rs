use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # Throughput is low while the GPU idles: batches are not full
    ///
    /// **What:** the mean GPU utilisation over the run was under 50%.
    ///
    /// **Why:** the SPEC's second rule: the GPU waits for work, so each step
    /// carries too little, or the test never loads the server enough to tell.
    ///
    /// **Advice:** raise `max_num_batched_tokens`, or the test's concurrency.
    pub static DIAGNOSIS = { code: "gpu-idle", severity: Warning, title: "Throughput is low while the GPU idles: batches are not full", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let util = f.result.gpu_utilization_avg?;
    (util < 0.5).then(|| {
        Found::new(
            format!("mean GPU utilisation {:.0}%", util * 100.0),
            &[
                "raise max_num_batched_tokens so each step carries more work",
                "or raise the test's concurrency: at this load the server is never busy enough to tell",
            ],
        )
    })
}
