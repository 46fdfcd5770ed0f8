use crate::diagnostic::{Severity, Target};
use crate::fix::{Applicability, Proposal};
use crate::kind::FileKind;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_num_batched_tokens` is smaller than `max_model_len`
    ///
    /// **What:** one engine step may process fewer tokens than the longest
    /// allowed request.
    ///
    /// **Why:** with chunked prefill **off**, vLLM refuses to start
    /// (`SchedulerConfig.verify_max_model_len`, `vllm/config/scheduler.py`):
    /// `max_num_batched_tokens (2048) is smaller than max_model_len (8192). This
    /// effectively limits the maximum sequence length to max_num_batched_tokens
    /// and makes vLLM reject longer sequences. Please increase
    /// max_num_batched_tokens or decrease max_model_len.` Encoder-decoder models
    /// (Whisper, BART) always run with chunked prefill off, whatever is set, so
    /// for them it is always this error. With chunked prefill **on** (the
    /// default) it starts, but a long prompt is prefilled over several steps,
    /// which stretches its time to first token: a warning. With
    /// `max_model_len = "auto"` the check sees the model's own length.
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
    let refused = !config.chunked_prefill() || d.arch.is_encoder_decoder;
    // vLLM's check sees the declared length; the prefill steps, the one served.
    let mnbt = b.max_num_batched_tokens;
    let mml = if refused { b.declared_max_model_len } else { b.max_model_len };
    if !b.tokens_explicit || mnbt >= mml {
        return;
    }
    let lower = if b.max_model_len_explicit {
        "lower max_model_len".to_string()
    } else {
        format!("set max_model_len (it defaults to the model's {mml}) to {mnbt} or less")
    };
    // Refused, it is vLLM's own requirement and changes nothing else; with
    // chunked prefill on, a bigger step budget trades latency and activation
    // memory, a choice for a person.
    let applicability = if refused { Applicability::Safe } else { Applicability::Unsafe };
    let raise = Proposal::new(format!("Raise max_num_batched_tokens to {mml}"), applicability).set(
        FileKind::Config,
        "/batching/max_num_batched_tokens",
        mml,
    );
    let mut f = RULE
        .finding(
            format!("max_num_batched_tokens ({mnbt}) is smaller than max_model_len ({mml})"),
            Target::config("/batching/max_num_batched_tokens"),
        )
        .fix(raise);
    if !refused {
        f.severity = Severity::Warning;
        f = f
            .label(format!("a {mml}-token prompt needs {} prefill steps", mml.div_ceil(mnbt)))
            .help(format!("chunked prefill is on, so vLLM starts, but long prompts are prefilled in chunks of {mnbt} tokens and wait longer for their first token; raise max_num_batched_tokens to {mml} if TTFT of long prompts matters"));
    } else {
        let why = if d.arch.is_encoder_decoder {
            "encoder-decoder models run without chunked prefill"
        } else {
            "chunked prefill is off"
        };
        f = f.label(format!("vLLM refuses to start ({why}): \"max_num_batched_tokens ({mnbt}) is smaller than max_model_len ({mml}). This effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences.\"")).help(format!(
            "raise max_num_batched_tokens to at least {mml}, or {lower}{}",
            if d.arch.is_encoder_decoder { "" } else { ", or set enable_chunked_prefill = true" }
        ));
    }
    out.push(f);
}
