use crate::diagnostic::Target;
use crate::fix::{Applicability, Proposal};
use crate::kind::FileKind;
use crate::rules::{ConfigContext, SettingsContext};
use crate::tree::escape_token;
use crate::vllm::requests::{Answer, Route, answer};

declare_rule! {
    /// # A request class does not fit in `max_model_len`
    ///
    /// **What:** a class's `input_tokens + output_tokens` is larger than the
    /// server's `max_model_len` (or the model's maximum when it is not set).
    ///
    /// **Why:** what vLLM 0.33 does depends on the case (its OpenAI server,
    /// `renderers/params.py::TokenizeParams.__post_init__` and `_token_len_check`,
    /// `entrypoints/serve/utils/api_utils.py::get_max_tokens`,
    /// `sampling_params.py::_verify_args`):
    /// - `output_tokens` above `max_model_len`: HTTP 400, `max_tokens=N cannot be
    ///   greater than max_model_len=M. Please request fewer output tokens.`
    /// - a prompt longer than the context: HTTP 400, `This model's maximum
    ///   context length is M tokens. However, your prompt contains N input
    ///   tokens, ...` (completions count a text prompt as "at least M+1");
    /// - a prompt exactly as long as the context: HTTP 400, `max_tokens must be at
    ///   least 1, got 0.`;
    /// - otherwise vLLM silently clamps `max_tokens` to the room left, and the
    ///   output is shorter than the test asked for; but the runner forces the
    ///   output length (`min_tokens` = `max_tokens`, unless `force_output_length`
    ///   is false), so after the clamp vLLM answers HTTP 400, `min_tokens must be
    ///   less than or equal to max_tokens=R, got N.`
    ///
    /// Either way the class the test claims to measure is never measured as
    /// written, and it is usually the tail class that drives P99. The SPEC's own
    /// example has this bug: tail = 8192 + 2048 > 8192.
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
    let origin = if d.batch.max_model_len_explicit {
        "max_model_len"
    } else if d.batch.max_model_len_auto {
        "the max_model_len \"auto\" fits to the KV cache"
    } else {
        "the model's maximum length"
    };
    let route = if settings
        .endpoint
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .ends_with("/chat/completions")
    {
        Route::Chat
    } else {
        Route::Completions
    };
    let forced = settings.force_output_length.unwrap_or(true);
    for (name, class) in &settings.request_distribution {
        let total = u64::from(class.input_tokens) + u64::from(class.output_tokens);
        if total <= u64::from(mml) {
            continue;
        }
        let min_tokens = if forced { class.output_tokens } else { 0 };
        let what = match answer(route, class.input_tokens, class.output_tokens, min_tokens, mml) {
            Answer::Refused(message) => {
                format!("vLLM answers every one of these requests with HTTP 400: \"{message}\"")
            }
            Answer::Served { max_tokens, .. } => format!(
                "vLLM clamps their output to {max_tokens} tokens (force_output_length is false), so the class is not tested as written"
            ),
        };
        let (input, output) = if class.output_tokens < mml {
            (mml - class.output_tokens, class.output_tokens)
        } else {
            let input = class.input_tokens.min(mml / 2);
            (input, mml - input)
        };
        let shorter = format!("input_tokens {input} with output_tokens {output}");
        // Raise the context when the model has room for it; else shorten the class.
        let class_pointer = format!("/request_distribution/{}", escape_token(name));
        let fix = match u32::try_from(total) {
            Ok(total) if d.arch.max_position_embeddings.is_none_or(|max| total <= max) => Proposal::new(
                format!("Raise max_model_len to {total}"),
                Applicability::Unsafe,
            )
            .set(FileKind::Config, "/model/max_model_len", total),
            _ => Proposal::new(format!("Shorten `{name}` to {shorter}"), Applicability::Unsafe)
                .set(FileKind::Settings, format!("{class_pointer}/input_tokens"), input)
                .set(FileKind::Settings, format!("{class_pointer}/output_tokens"), output),
        };
        out.push(
            RULE.finding(
                format!("request class `{name}` needs {} + {} = {total} tokens, more than {origin} ({mml}) in the server config", class.input_tokens, class.output_tokens),
                Target::settings_key(class_pointer),
            )
            .label(what)
            .help(format!("raise max_model_len in config.toml to at least {total}, or shorten `{name}` to fit (e.g. {shorter})"))
            .fix(fix),
        );
    }
}
