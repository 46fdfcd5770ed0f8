use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # Error rate above 1%
    ///
    /// **What:** more than 1% of the measured requests failed.
    ///
    /// **Why:** the SPEC's limit for a healthy service; the error classes say
    /// whether the server was out of capacity or the requests were wrong.
    ///
    /// **Advice:** read the error classes and their samples: timeouts and 429/503
    /// under load mean too little capacity; a 4xx on every request means a wrong
    /// request.
    pub static DIAGNOSIS = { code: "error-rate-high", severity: Error, title: "Error rate above 1%", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let r = f.result;
    (r.error_rate > 0.01).then(|| {
        let top: Vec<String> = r.errors.iter().take(3).map(|e| format!("{} x{}", e.kind, e.count)).collect();
        Found::new(
            format!("{:.2}% of requests failed ({})", r.error_rate * 100.0, top.join(", ")),
            &[
                "read the error classes and their samples below",
                "timeouts and 429/503 under load mean too little capacity; 4xx on every request mean a wrong request",
            ],
        )
    })
}
