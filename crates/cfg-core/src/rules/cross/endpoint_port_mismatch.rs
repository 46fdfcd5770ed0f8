use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};
use crate::url::Url;

declare_rule! {
    /// # Direct endpoint on a different port than the server
    ///
    /// **What:** the endpoint is on this machine (loopback) but its port is not
    /// `server.port`.
    ///
    /// **Why:** a local test usually targets the server directly; a wrong port
    /// means connection refused on every request, or a test of another
    /// process (the metrics port, another instance).
    ///
    /// **Example:** `"endpoint": "http://127.0.0.1:8001/v1/chat/completions"`
    /// with `port = 8000`.
    ///
    /// **Fix:** use the server's port, or ignore this if a local gateway sits
    /// in front.
    pub static RULE = { code: "CFG504", name: "endpoint-port-mismatch", severity: Warning, pair }
}

fn check(c: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (settings, config) = (s.settings, c.config);
    let Some(url) = Url::parse(&settings.endpoint) else { return };
    let port = config.server().port.unwrap_or(8000);
    if !url.is_loopback() || url.port_or_default() == port {
        return;
    }
    out.push(
        RULE.finding(
            format!("the endpoint is local port {}, but the server listens on {port}", url.port_or_default()),
            Target::settings("/endpoint"),
        )
        .help(format!("use port {port}, unless a local gateway listens on {}", url.port_or_default())),
    );
}
