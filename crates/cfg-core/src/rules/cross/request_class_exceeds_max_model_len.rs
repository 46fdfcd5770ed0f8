use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};
use crate::tree::escape_token;

declare_rule! {
    /// # A request class does not fit in `max_model_len`
    ///
    /// **What:** a class's `input_tokens + output_tokens` is larger than the
    /// server's `max_model_len` (or the model's maximum when it is not set).
    ///
    /// **Why:** vLLM answers every such request with HTTP 400 (`This model's
    /// maximum context length is 8192 tokens...`) when the prompt alone is too
    /// long, or silently clamps `max_tokens` so the output is shorter than the
    /// test asked for. Either way the class the test claims to measure is
    /// never measured, and it is usually the tail class that drives P99. The
    /// SPEC's own example has this bug: tail = 8192 + 2048 > 8192.
    ///
    /// **Example:** `"tail": {"input_tokens": 8192, "output_tokens": 2048}`
    /// against `max_model_len = 8192`.
    ///
    /// **Fix:** raise `max_model_len` to at least the class's total (if the
    /// memory allows), or shorten the class to fit.
    pub static RULE = { code: "CFG501", name: "request-class-exceeds-max-model-len", severity: Error, pair }
}

fn check(d: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let mml = d.batch.max_model_len;
    let origin = if d.batch.max_model_len_explicit { "max_model_len" } else { "the model's maximum length" };
    for (name, class) in &settings.request_distribution {
        let total = u64::from(class.input_tokens) + u64::from(class.output_tokens);
        if total <= u64::from(mml) {
            continue;
        }
        let what = if class.input_tokens >= mml {
            "the prompt alone fills the context: vLLM rejects every one of these requests with HTTP 400".to_string()
        } else {
            format!(
                "vLLM clamps their output to {} tokens, so the class is not tested as written",
                mml - class.input_tokens
            )
        };
        let shorter = if class.output_tokens < mml {
            format!("input_tokens {} with output_tokens {}", mml - class.output_tokens, class.output_tokens)
        } else {
            let input = class.input_tokens.min(mml / 2);
            format!("input_tokens {input} with output_tokens {}", mml - input)
        };
        out.push(
            RULE.finding(
                format!("request class `{name}` needs {} + {} = {total} tokens, more than {origin} ({mml}) in the server config", class.input_tokens, class.output_tokens),
                Target::settings_key(format!("/request_distribution/{}", escape_token(name))),
            )
            .label(what)
            .help(format!("raise max_model_len in config.toml to at least {total}, or shorten `{name}` to fit (e.g. {shorter})")),
        );
    }
}
