use crate::diagnostic::Target;
use crate::rules::SettingsContext;

declare_rule! {
    /// # No warm-up requests
    ///
    /// **What:** `warmup_requests` is 0 or missing.
    ///
    /// **Why:** the first requests on a fresh instance pay for cold caches, lazy
    /// kernel compilation and connection set-up; counted in the statistics they
    /// inflate P99 TTFT and make runs hard to compare.
    ///
    /// **Example:** a settings.json without `warmup_requests`.
    ///
    /// **Fix:** set `warmup_requests` to at least the concurrency (e.g. 20).
    pub static RULE = { code: "CFG405", name: "no-warmup", severity: Info, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    if settings.warmup_requests.unwrap_or(0) > 0 {
        return;
    }
    let pointer = if s.has("/warmup_requests") { "/warmup_requests" } else { "" };
    out.push(
        RULE.finding(
            "no warm-up requests: cold-start latency will be counted in the statistics",
            Target::settings(pointer),
        )
        .help(format!("set \"warmup_requests\": {}", settings.concurrency.max(10))),
    );
}
