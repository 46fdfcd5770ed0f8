use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # Batches are far from full
    ///
    /// **What:** without GPU utilisation to go by, vLLM's own gauges show on
    /// average fewer than a quarter of `max_num_seqs` running and nothing waiting.
    ///
    /// **Why:** the server had room for more: the test measured a lightly loaded
    /// instance, not its capacity.
    ///
    /// **Advice:** raise the test's concurrency or rate; give `gpu_metrics_url` to
    /// confirm with GPU utilisation.
    pub static DIAGNOSIS = { code: "batches-not-full", severity: Info, title: "Batches are far from full", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    if f.result.gpu_utilization_avg.is_some() {
        return None;
    }
    let server = f.result.server.as_ref()?;
    let mns = f.config.and_then(|c| c.batching().max_num_seqs)?;
    let running: Vec<f64> = server.points.iter().filter_map(|p| p.running).collect();
    let waiting: Vec<f64> = server.points.iter().filter_map(|p| p.waiting).collect();
    if running.is_empty() {
        return None;
    }
    let avg = running.iter().sum::<f64>() / running.len() as f64;
    let waiting_avg = waiting.iter().sum::<f64>() / waiting.len().max(1) as f64;
    (avg < 0.25 * f64::from(mns) && waiting_avg < 1.0).then(|| {
        Found::new(
            format!("{avg:.1} requests running on average of max_num_seqs {mns}, nothing waiting"),
            &[
                "raise the test's concurrency (or rate) to find the server's real capacity",
                "GPU utilisation was not available to confirm (give gpu_metrics_url)",
            ],
        )
    })
}
