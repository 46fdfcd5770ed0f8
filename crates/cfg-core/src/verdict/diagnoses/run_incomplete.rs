use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # The run was stopped before its end
    ///
    /// **What:** Ctrl-C, SIGTERM, the circuit breaker or a stop from the browser
    /// ended the measured phase early; requests still in flight after the grace
    /// period were abandoned.
    ///
    /// **Why:** the figures cover only what ran: fewer requests, a shorter window,
    /// maybe not the steady state. Such a run is never "SLA met" and plans no
    /// capacity, and `runs` and `compare` mark it.
    ///
    /// **Advice:** run it again to its end before acting on it; if the circuit
    /// breaker stopped it, read the error classes first.
    pub static DIAGNOSIS = { code: "run-incomplete", severity: Warning, title: "The run was stopped before its end: its figures cover only what ran", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let r = f.result;
    if r.complete {
        return None;
    }
    let why = r.stopped_reason.as_deref().unwrap_or("stopped early");
    Some(Found::new(
        format!(
            "{why}; {} requests measured, {} abandoned unfinished; no SLA judgement or capacity plan",
            r.requests.total, r.requests.abandoned
        ),
        &["run the test again to its end before acting on these figures"],
    ))
}
