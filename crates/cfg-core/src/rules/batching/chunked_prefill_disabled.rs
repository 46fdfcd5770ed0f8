use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Chunked prefill turned off on a generative model
    ///
    /// **What:** `enable_chunked_prefill = false` on a decoder-only model. vLLM
    /// 0.33 runs every generative model with chunked prefill and supports
    /// turning it off only where it is forced off (encoder-decoder models)
    /// (`EngineArgs._set_default_chunked_prefill_and_prefix_caching_args` in
    /// `vllm/engine/arg_utils.py`).
    ///
    /// **Why:** vLLM starts, with the warning `This model does not officially
    /// support disabling chunked prefill. Disabling this manually may cause the
    /// engine to crash or produce incorrect outputs.` It also makes one step hold
    /// a whole prompt: `max_num_batched_tokens` must then be at least
    /// `max_model_len` (CFG101), and long prompts stall every other request.
    ///
    /// **Example:** `[batching] enable_chunked_prefill = false`
    ///
    /// **Fix:** remove `enable_chunked_prefill` (it defaults to on).
    pub static RULE = { code: "CFG106", name: "chunked-prefill-disabled", severity: Warning, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    if d.config.chunked_prefill() || d.arch.is_encoder_decoder {
        return;
    }
    out.push(
        RULE.finding("chunked prefill is turned off on a model that does not support running without it", Target::config("/batching/enable_chunked_prefill"))
            .label("vLLM warns: \"This model does not officially support disabling chunked prefill. Disabling this manually may cause the engine to crash or produce incorrect outputs.\"")
            .help("remove enable_chunked_prefill (vLLM runs with it on)"),
    );
}
