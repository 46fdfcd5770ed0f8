use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # The test traffic is close to uniform
    ///
    /// **What:** one request class, or the longest request under four times the
    /// shortest.
    ///
    /// **Why:** the SPEC's "beautiful test, production collapses": long-tail
    /// requests drive P99, and a uniform test never sends them.
    ///
    /// **Advice:** raise the tail class's weight and add bursts, then test again.
    pub static DIAGNOSIS = { code: "traffic-too-uniform", severity: Info, title: "The test traffic is close to uniform", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let classes = &f.settings.request_distribution;
    let total = |c: &crate::model::RequestClass| c.input_tokens + c.output_tokens;
    let max_in = classes.values().map(total).max().unwrap_or(0);
    let min_in = classes.values().map(total).min().unwrap_or(0);
    let no_bursts = f.settings.bursts.is_empty();
    (classes.len() < 2 || max_in < 4 * min_in.max(1)).then(|| {
        Found::new(
            format!(
                "{} class(es), longest request {} tokens vs shortest {}{}",
                classes.len(),
                max_in,
                min_in,
                if no_bursts { ", no bursts" } else { "" }
            ),
            &["a beautiful test can hide a production collapse: raise the tail class's weight and add bursts, then test again"],
        )
    })
}
