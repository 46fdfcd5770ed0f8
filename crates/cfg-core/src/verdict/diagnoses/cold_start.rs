use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # The first requests were slow: cold start
    ///
    /// **What:** some of the first warm-up requests failed, or the very first one
    /// took over a second and more than five times the median TTFT.
    ///
    /// **Why:** the SPEC's cold-start rule: a new instance loads its model for
    /// tens of seconds to minutes, and traffic routed to it meanwhile times out.
    ///
    /// **Advice:** keep warm spare instances, send warm-up requests before routing
    /// traffic, and shift 5-10% of traffic first (canary), never all at once.
    pub static DIAGNOSIS = { code: "cold-start", severity: Warning, title: "The first requests were slow: cold start", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let (c, p50) = (f.cold?, f.result.ttft_ms.get("p50")?);
    let slow_first = p50 > 0.0 && c.first_ttft_ms > 5.0 * p50 && c.first_ttft_ms > 1000.0;
    (c.first_failures > 0 || slow_first).then(|| {
        Found::new(
            format!(
                "first request TTFT {:.0} ms vs P50 {p50:.0} ms; {} of the first requests failed",
                c.first_ttft_ms, c.first_failures
            ),
            &[
                "keep warm spare instances: model load takes tens of seconds to minutes",
                "send warm-up requests before routing traffic to a new instance",
                "shift 5-10% of traffic first (canary), never all at once",
            ],
        )
    })
}
