use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Listening on every interface without an API key
    ///
    /// **What:** `server.host` is `0.0.0.0` or `::` (or unset, which vLLM
    /// treats as all interfaces) and `server.api_key` is not set.
    ///
    /// **Why:** anyone who can reach the machine can use the GPU, and the
    /// unguarded routes (`/metrics`, `/tokenize`, `/invocations`) are open even
    /// with a key. Production instances should listen on the internal network
    /// behind a gateway that authenticates.
    ///
    /// **Example:** `host = "0.0.0.0"` and no `api_key`.
    ///
    /// **Fix:** set `api_key = "${VLLM_INTERNAL_KEY}"`, or bind to an internal
    /// address (or `127.0.0.1` behind a local gateway).
    pub static RULE = { code: "CFG602", name: "public-listen-without-key", severity: Warning, config }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let server = config.server();
    if server.api_key.is_some() {
        return;
    }
    let host = server.host.as_deref().unwrap_or("0.0.0.0");
    if !matches!(host, "0.0.0.0" | "::" | "[::]" | "") {
        return;
    }
    let pointer = if c.has("/server/host") { "/server/host" } else { "/server" };
    out.push(
        RULE.finding(
            format!("the server listens on all interfaces ({host}) without an API key"),
            Target::config(pointer),
        )
        .help(
            "add api_key = \"${VLLM_INTERNAL_KEY}\" under [server], or listen on an internal address behind a gateway",
        ),
    );
}
