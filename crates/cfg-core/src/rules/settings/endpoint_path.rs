use crate::diagnostic::Target;
use crate::rules::SettingsContext;

declare_rule! {
    /// # Endpoint is not a completions route
    ///
    /// **What:** `endpoint` does not end in `/v1/chat/completions` or
    /// `/v1/completions`.
    ///
    /// **Why:** the runner sends OpenAI completion requests; any other route
    /// (the server root, `/v1/models`, `/health`) answers 404 or 405 to every
    /// request, and the test measures nothing.
    ///
    /// **Example:** `"endpoint": "http://10.0.0.5:8000"`
    ///
    /// **Fix:** use the full route, e.g. `http://host:8000/v1/chat/completions`.
    pub static RULE = { code: "CFG403", name: "endpoint-path", severity: Warning, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let path = settings.endpoint.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    if path.ends_with("/chat/completions") || path.ends_with("/completions") {
        return;
    }
    let base = crate::url::Url::parse(&settings.endpoint)
        .map(|u| format!("{}://{}", u.scheme, u.authority))
        .unwrap_or_else(|| "http://host:8000".into());
    out.push(
        RULE.finding("endpoint is not a /v1/chat/completions or /v1/completions route", Target::settings("/endpoint"))
            .help(format!("use {base}/v1/chat/completions (or /v1/completions for raw prompts)")),
    );
}
