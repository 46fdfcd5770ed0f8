use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # A setting vLLM has no flag for
    ///
    /// **What:** `monitoring.metrics_port` or `monitoring.enable_metrics =
    /// false`. vLLM serves Prometheus `/metrics` on the API port and has no
    /// flag to move it or switch it off.
    ///
    /// **Why:** the setting silently does nothing; a scrape configured for the
    /// metrics port finds nothing there.
    ///
    /// **Example:** `metrics_port = 8001`
    ///
    /// **Fix:** scrape `http://host:port/metrics` on the API port, or put a
    /// proxy on the metrics port. `cfg-lint render` lists every key it cannot
    /// render.
    pub static RULE = { code: "CFG314", name: "no-vllm-equivalent", severity: Info, config }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let m = config.monitoring();
    let port = config.server().port.unwrap_or(8000);
    // Equal ports are a conflict, reported by port-conflict (CFG604).
    if let Some(mp) = m.metrics_port.filter(|&mp| mp != port) {
        out.push(
            RULE.finding(
                format!("vLLM has no metrics port: /metrics is served on the API port {port}, not on {mp}"),
                Target::config("/monitoring/metrics_port"),
            )
            .help(format!("point Prometheus at :{port}/metrics, or run a proxy that serves :{mp}")),
        );
    }
    if m.enable_metrics == Some(false) {
        out.push(
            RULE.finding(
                "vLLM cannot turn /metrics off; enable_metrics = false has no effect",
                Target::config("/monitoring/enable_metrics"),
            )
            .help("block /metrics at the gateway if it must not be reachable"),
        );
    }
}
