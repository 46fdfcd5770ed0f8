use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};

declare_rule! {
    /// # The load test asks for a model the server does not serve
    ///
    /// **What:** settings.json's `model` is neither `server.served_model_name`
    /// (any alias) nor, when that is unset, `model.name`.
    ///
    /// **Why:** vLLM answers every request with HTTP 404 `The model X does not
    /// exist. Valid aliases: ...`; the test measures only errors. Behind a
    /// gateway the name may be mapped, so check the gateway's mapping too.
    ///
    /// **Example:** `"model": "your-model-name"` against a server serving
    /// `meta-llama/Llama-3.1-8B-Instruct`.
    ///
    /// **Fix:** use one of the names the server answers to, or add the name to
    /// `served_model_name`.
    pub static RULE = { code: "CFG502", name: "model-name-not-served", severity: Error, pair }
}

fn check(c: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (settings, config) = (s.settings, c.config);
    let served = config.served_names();
    if served.contains(&settings.model.as_str()) {
        return;
    }
    let list = served.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ");
    out.push(
        RULE.finding(format!("model \"{}\" is not served: the server answers to {list}", settings.model), Target::settings("/model"))
            .label("every request would get HTTP 404")
            .help(format!("set \"model\" to {}, or add it to server.served_model_name (a gateway may also map names: check its mapping)", served.first().map(|s| format!("\"{s}\"")).unwrap_or_default())),
    );
}
