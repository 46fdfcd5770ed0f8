use super::Found;
use crate::verdict::Facts;

/// Below this many requests a class's P99 is one of its few slowest requests.
const ENOUGH: u64 = 20;

declare_diagnosis! {
    /// # A class's percentiles rest on too few requests
    ///
    /// **What:** a request class finished fewer than 20 requests in the measured
    /// window.
    ///
    /// **Why:** with 6 requests a P99 is simply the slowest one; it moves a lot
    /// from run to run and says little about the class's tail.
    ///
    /// **Advice:** run longer (`duration_seconds`), or give the class more weight,
    /// before judging its percentiles.
    pub static DIAGNOSIS = { code: "few-samples", severity: Warning, title: "A class's percentiles rest on too few requests", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let thin: Vec<String> = f
        .result
        .per_class
        .iter()
        .filter(|(_, c)| c.requests - c.failed < ENOUGH)
        .map(|(name, c)| format!("`{name}` {}", c.requests - c.failed))
        .collect();
    (!thin.is_empty()).then(|| {
        Found::new(
            format!("successful requests per class under {ENOUGH}: {}", thin.join(", ")),
            &["run longer (duration_seconds) or raise the class's weight before judging its percentiles"],
        )
    })
}
