use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};

declare_rule! {
    /// # The server requires a key the load test does not send
    ///
    /// **What:** config.toml sets `server.api_key` but settings.json has no
    /// `api_key_env`.
    ///
    /// **Why:** vLLM answers every `/v1` request without `Authorization:
    /// Bearer <key>` with HTTP 401 `{"error":"Unauthorized"}`: the test measures
    /// only errors.
    ///
    /// **Example:** `api_key = "${VLLM_INTERNAL_KEY}"` and no `api_key_env`.
    ///
    /// **Fix:** add `"api_key_env": "VLLM_INTERNAL_KEY"` (the name of the
    /// variable, never the key).
    pub static RULE = { code: "CFG505", name: "missing-api-key-env", severity: Error, pair }
}

fn check(c: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (settings, config) = (s.settings, c.config);
    let Some(key) = config.server().api_key else { return };
    if settings.api_key_env.is_some() {
        return;
    }
    let var = crate::secrets::env_reference(&key).unwrap_or("GATEWAY_API_KEY");
    out.push(
        RULE.finding("the server requires an API key but the load test sends none", Target::settings(String::new()))
            .label("every request would get HTTP 401")
            .help(format!("add \"api_key_env\": \"{var}\" (the variable's name, never the key)")),
    );
}
