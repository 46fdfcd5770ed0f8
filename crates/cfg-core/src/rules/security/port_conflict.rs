use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `port` and `metrics_port` are the same
    ///
    /// **What:** `monitoring.metrics_port` equals `server.port` (8000 when
    /// unset).
    ///
    /// **Why:** two listeners cannot share a port; whatever serves metrics
    /// there (a sidecar, a proxy) fails to bind, or the scrape hits the API.
    ///
    /// **Example:** `port = 8000` and `metrics_port = 8000`.
    ///
    /// **Fix:** give metrics another port, or drop `metrics_port` and scrape
    /// `/metrics` on the API port.
    pub static RULE = { code: "CFG604", name: "port-conflict", severity: Error, config }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let port = config.server().port.unwrap_or(8000);
    if config.monitoring().metrics_port != Some(port) {
        return;
    }
    out.push(
        RULE.finding(format!("metrics_port and port are both {port}"), Target::config("/monitoring/metrics_port"))
            .help(format!(
                "use another metrics_port (e.g. {}), or remove it: vLLM serves /metrics on the API port",
                port.saturating_add(1)
            )),
    );
}
