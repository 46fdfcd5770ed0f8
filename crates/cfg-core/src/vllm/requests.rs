//! How vLLM 0.33's OpenAI server answers a request's lengths (chat and
//! completions), read from its source: `renderers/params.py`
//! (`TokenizeParams.__post_init__`, `_token_len_check`),
//! `entrypoints/serve/utils/api_utils.py::get_max_tokens` and
//! `sampling_params.py::_verify_args`. Validation errors carry the
//! ` (parameter=..., value=...)` suffix vLLM's `VLLMValidationError` appends.

/// The OpenAI route a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Chat,
    Completions,
}

/// vLLM's answer to a request's lengths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Served with this many output tokens at most (`max_tokens`, or the room
    /// left in the context when that is less: a silent clamp).
    Served { max_tokens: u32, clamped: bool },
    /// HTTP 400 with vLLM's message.
    Refused(String),
}

/// What vLLM answers a request of `prompt` tokens asking for `max_tokens`
/// (with `min_tokens`, as a load tester that forces the output length sends)
/// on a server with `max_model_len`.
pub fn answer(route: Route, prompt: u32, max_tokens: u32, min_tokens: u32, max_model_len: u32) -> Answer {
    let m = max_model_len;
    // Checked before the prompt is tokenized (renderers/params.py:268-282).
    if max_tokens > m {
        return Answer::Refused(format!(
            "max_tokens={max_tokens} cannot be greater than max_model_len={m}. Please request fewer output tokens. \
             (parameter=max_tokens, value={max_tokens})"
        ));
    }
    if prompt > m {
        // Completions cut a text prompt at M+1 tokens before counting it; vLLM
        // says "at least" whenever the count it has is M+1.
        let count = match route {
            Route::Completions => m + 1,
            Route::Chat => prompt,
        };
        let qualifier = if count == m + 1 { "at least " } else { "" };
        return Answer::Refused(format!(
            "This model's maximum context length is {m} tokens. However, your prompt contains {qualifier}{count} \
             input tokens, which exceeds this limit even without any output tokens. Please reduce the length of \
             the input prompt. (parameter=input_tokens, value={count})"
        ));
    }
    // A prompt that fills the context leaves 0, and so does asking for 0.
    let allowed = max_tokens.min(m - prompt);
    if allowed < 1 {
        return Answer::Refused(format!(
            "max_tokens must be at least 1, got {allowed}. (parameter=max_tokens, value={allowed})"
        ));
    }
    if min_tokens > allowed {
        return Answer::Refused(format!(
            "min_tokens must be less than or equal to max_tokens={allowed}, got {min_tokens}."
        ));
    }
    Answer::Served { max_tokens: allowed, clamped: allowed < max_tokens }
}

/// The message as vLLM words it for a chat request that named
/// `max_completion_tokens` instead of `max_tokens`: only the "cannot be greater"
/// refusal names the field the request used.
pub fn worded_for(message: String, used_max_completion_tokens: bool) -> String {
    if used_max_completion_tokens && message.contains("cannot be greater than max_model_len") {
        message.replace("max_tokens", "max_completion_tokens")
    } else {
        message
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Route::{Chat, Completions};

    #[test]
    fn every_case_of_vllms_length_checks() {
        // Fits.
        assert_eq!(answer(Chat, 100, 50, 50, 8192), Answer::Served { max_tokens: 50, clamped: false });
        // max_tokens beyond the context: refused before anything else.
        let Answer::Refused(m) = answer(Chat, 9000, 9192, 0, 8192) else { panic!() };
        assert!(m.starts_with("max_tokens=9192 cannot be greater than max_model_len=8192."), "{m}");
        // The prompt alone is longer: chat counts exactly, completions say "at least M+1".
        let Answer::Refused(m) = answer(Chat, 9000, 100, 0, 8192) else { panic!() };
        assert!(
            m.contains("your prompt contains 9000 input tokens") && m.ends_with("(parameter=input_tokens, value=9000)")
        );
        let Answer::Refused(m) = answer(Completions, 9000, 100, 0, 8192) else { panic!() };
        assert!(m.contains("contains at least 8193 input tokens"), "{m}");
        // The prompt fills the context exactly: nothing left to generate.
        assert_eq!(
            answer(Chat, 8192, 2048, 0, 8192),
            Answer::Refused("max_tokens must be at least 1, got 0. (parameter=max_tokens, value=0)".into())
        );
        // Prompt + output over the context: a silent clamp, unless min_tokens forces the length.
        assert_eq!(answer(Chat, 7000, 2048, 0, 8192), Answer::Served { max_tokens: 1192, clamped: true });
        // Asking for nothing is refused like a prompt that fills the context.
        assert_eq!(
            answer(Completions, 10, 0, 0, 8192),
            Answer::Refused("max_tokens must be at least 1, got 0. (parameter=max_tokens, value=0)".into())
        );
        let Answer::Refused(m) = answer(Chat, 10, 9000, 0, 8192) else { panic!() };
        assert_eq!(
            worded_for(m, true),
            "max_completion_tokens=9000 cannot be greater than max_model_len=8192. Please request fewer output \
             tokens. (parameter=max_completion_tokens, value=9000)"
        );
        assert_eq!(
            answer(Chat, 7000, 2048, 2048, 8192),
            Answer::Refused("min_tokens must be less than or equal to max_tokens=1192, got 2048.".into())
        );
    }
}
