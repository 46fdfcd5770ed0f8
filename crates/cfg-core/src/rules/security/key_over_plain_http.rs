use crate::diagnostic::Target;
use crate::rules::SettingsContext;
use crate::url::Url;

declare_rule! {
    /// # API key sent over plain HTTP to another machine
    ///
    /// **What:** `api_key_env` is set and `endpoint` is `http://` to a host
    /// that is not this machine.
    ///
    /// **Why:** the key travels in clear text in every request's
    /// `Authorization` header; anyone on the path can read and reuse it.
    ///
    /// **Example:** `"endpoint": "http://gateway.internal/v1/chat/completions"`
    /// with `"api_key_env": "GATEWAY_API_KEY"`.
    ///
    /// A key sent to a link-local address (169.254.0.0/16, fe80::/10) or a cloud
    /// metadata name, over any scheme, is an error: that is where a machine's
    /// own credentials are served, never a model, so it is a mistake or an
    /// attempt to leak a variable.
    ///
    /// **Fix:** use `https://` (test through the same TLS gateway as
    /// production), or a loopback address for a direct local test.
    pub static RULE = { code: "CFG603", name: "key-over-plain-http", severity: Warning, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    if settings.api_key_env.is_none() {
        return;
    }
    let Some(url) = Url::parse(&settings.endpoint) else { return };
    if url.is_link_local_or_metadata() {
        let mut f = RULE.finding(
            format!(
                "the key in ${} would be sent to {}, a link-local or metadata address",
                settings.api_key_env.as_deref().unwrap_or_default(),
                url.host
            ),
            Target::settings("/endpoint"),
        );
        f.severity = crate::diagnostic::Severity::Error;
        out.push(
            f.label("cloud instances serve their own credentials there, never a model")
                .help("point endpoint at the model server or its gateway"),
        );
        return;
    }
    if url.scheme != "http" || url.is_loopback() {
        return;
    }
    out.push(
        RULE.finding(
            format!(
                "the key in ${} would be sent in clear text to {}",
                settings.api_key_env.as_deref().unwrap_or_default(),
                url.host
            ),
            Target::settings("/endpoint"),
        )
        .help("use an https:// endpoint (the production gateway), or a loopback address for a local test"),
    );
}
