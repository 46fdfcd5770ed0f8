use crate::diagnostic::Target;
use crate::rules::SettingsContext;

declare_rule! {
    /// # Percentile list is incomplete or repeats itself
    ///
    /// **What:** `metrics.percentiles` lists a value twice, or lacks 99 while
    /// an SLA on P99 is set.
    ///
    /// **Why:** interactive services are judged on P99; an SLA on P99 that the
    /// report does not show cannot be checked by a reader, and duplicates are
    /// usually a typo for another percentile.
    ///
    /// **Example:** `"percentiles": [50, 95, 95]`
    ///
    /// **Fix:** list each percentile once and include 99.
    pub static RULE = { code: "CFG402", name: "percentiles", severity: Warning, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let Some(metrics) = &settings.metrics else { return };
    let ps = &metrics.percentiles;
    for (i, p) in ps.iter().enumerate() {
        if ps[..i].contains(p) {
            out.push(
                RULE.finding(
                    format!("percentile {p} is listed twice"),
                    Target::settings(format!("/metrics/percentiles/{i}")),
                )
                .help("remove the duplicate or change it to the percentile you meant"),
            );
        }
    }
    let has_p99_sla = settings.sla.as_ref().is_some_and(|s| s.ttft_p99_ms.is_some() || s.tpot_p99_ms.is_some());
    if has_p99_sla && !ps.contains(&99.0) {
        out.push(
            RULE.finding("the SLA is on P99 but the report leaves P99 out", Target::settings("/metrics/percentiles"))
                .help("add 99 to metrics.percentiles"),
        );
    }
}
