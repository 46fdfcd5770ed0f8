use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};
use crate::url::Url;

declare_rule! {
    /// # The endpoint names a route the server does not serve
    ///
    /// **What:** the endpoint goes straight to this server (a local address on
    /// `server.port`, or the server's own `host`) but its path is not one of the
    /// routes vLLM's OpenAI server has: `/v1/chat/completions` or `/v1/completions`.
    ///
    /// **Why:** vLLM answers any other path with HTTP 404, so the smoke test
    /// fails and no request is ever measured. A gateway can rewrite paths, but a
    /// request sent to vLLM itself cannot.
    ///
    /// **Example:** `"endpoint": "http://127.0.0.1:8000/chat/completions"` (no
    /// `/v1`) with `port = 8000`.
    ///
    /// **Fix:** use `/v1/chat/completions` (or `/v1/completions` for raw prompts).
    pub static RULE = { code: "CFG506", name: "endpoint-route-not-served", severity: Error, pair }
}

const ROUTES: [&str; 2] = ["/v1/chat/completions", "/v1/completions"];

fn check(c: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let Some(url) = Url::parse(&s.settings.endpoint) else { return };
    let server = c.config.server();
    let port = server.port.unwrap_or(8000);
    let host = server.host.as_deref().unwrap_or("0.0.0.0").to_ascii_lowercase();
    let direct = url.port_or_default() == port && (url.is_loopback() || url.host == host);
    let path = url.path.trim_end_matches('/');
    if !direct || ROUTES.contains(&path) {
        return;
    }
    let wanted =
        if path.ends_with("/completions") && !path.ends_with("/chat/completions") { ROUTES[1] } else { ROUTES[0] };
    out.push(
        RULE.finding(
            format!("vLLM on port {port} serves no route `{path}`: every request would get HTTP 404"),
            Target::settings("/endpoint"),
        )
        .help(format!("use {}://{}{wanted}", url.scheme, url.authority)),
    );
}
