use crate::diagnostic::{Severity, Target};
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_num_batched_tokens` is smaller than `max_model_len`
    ///
    /// **What:** one engine step may process fewer tokens than the longest
    /// allowed request.
    ///
    /// **Why:** with chunked prefill **off**, vLLM refuses to start:
    /// `max_num_batched_tokens (2048) is smaller than max_model_len (8192). This
    /// effectively limits the maximum sequence length to max_num_batched_tokens
    /// and makes vLLM reject longer sequences.` With chunked prefill **on** (the
    /// default) it starts, but a long prompt is prefilled over several steps,
    /// which stretches its time to first token: a warning.
    ///
    /// **Example:**
    /// ```toml
    /// [model]
    /// max_model_len = 8192
    /// [batching]
    /// max_num_batched_tokens = 2048
    /// enable_chunked_prefill = false
    /// ```
    ///
    /// **Fix:** raise `max_num_batched_tokens` to at least `max_model_len`, lower
    /// `max_model_len`, or turn chunked prefill on.
    pub static RULE = { code: "CFG101", name: "batched-tokens-below-max-model-len", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let b = d.batch;
    if !b.tokens_explicit || b.max_num_batched_tokens >= b.max_model_len {
        return;
    }
    let (mnbt, mml) = (b.max_num_batched_tokens, b.max_model_len);
    let lower = if b.max_model_len_explicit {
        "lower max_model_len".to_string()
    } else {
        format!("set max_model_len (it defaults to the model's {mml}) to {mnbt} or less")
    };
    let mut f = RULE.finding(
        format!("max_num_batched_tokens ({mnbt}) is smaller than max_model_len ({mml})"),
        Target::config("/batching/max_num_batched_tokens"),
    );
    if config.chunked_prefill() {
        f.severity = Severity::Warning;
        f = f
            .label(format!("a {mml}-token prompt needs {} prefill steps", mml.div_ceil(mnbt)))
            .help(format!("chunked prefill is on, so vLLM starts, but long prompts are prefilled in chunks of {mnbt} tokens and wait longer for their first token; raise max_num_batched_tokens to {mml} if TTFT of long prompts matters"));
    } else {
        f = f.label("vLLM refuses to start: chunked prefill is off").help(format!(
            "raise max_num_batched_tokens to at least {mml}, {lower}, or set enable_chunked_prefill = true"
        ));
    }
    out.push(f);
}
