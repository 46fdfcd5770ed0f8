use super::Found;
use crate::verdict::Facts;

/// Shorter measured windows than this are mostly the ramp from idle.
const STEADY: f64 = 30.0;

declare_diagnosis! {
    /// # The measured window is short: its rates include the ramp from idle
    ///
    /// **What:** the measured window lasted under 30 seconds.
    ///
    /// **Why:** every stream starts together when the warm-up ends, so the first
    /// seconds of the window are prefill-heavy and stream fewer tokens than the
    /// steady state. Rates are taken over the window alone (the drain after it is
    /// left out), but a short window is mostly ramp: on the simulated 8B model, 5
    /// seconds read 1,125 tok/s where 20 and 60 seconds read 1,732 and 1,753.
    ///
    /// **Advice:** measure for a minute or more before sizing a deployment; the
    /// time series shows where the ramp ends.
    pub static DIAGNOSIS = { code: "short-window", severity: Info, title: "The measured window is short: its rates include the ramp from idle", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let window = f.result.metadata.as_ref()?.duration_seconds;
    (f.result.complete && window < STEADY).then(|| {
        Found::new(
            format!("a {window:.0} s window; rates settle after about {STEADY:.0} s"),
            &["set duration_seconds to 60 or more before sizing a deployment from these rates"],
        )
    })
}
