use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_model_len` is longer than the model supports
    ///
    /// **What:** `max_model_len` exceeds the length derived from the model's
    /// config.json (`max_position_embeddings`).
    ///
    /// **Why:** vLLM refuses to start: `User-specified max_model_len (X) is
    /// greater than the derived max_model_len (max_position_embeddings=Y ...)`.
    /// Overriding it with `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` produces NaNs with
    /// rotary embeddings past the trained length. Since vLLM 0.30, YaRN scaling
    /// no longer multiplies the derived length.
    ///
    /// **Example:** `max_model_len = 65536` for `mistralai/Mistral-7B-Instruct-v0.3`
    /// (32768 positions).
    ///
    /// **Fix:** lower `max_model_len` to the model's maximum, or pick a model
    /// trained for longer contexts.
    pub static RULE = { code: "CFG104", name: "max-model-len-exceeds-model", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let (Some(mml), Some(max)) = (config.model.max_model_len, d.arch.max_position_embeddings) else { return };
    if mml <= max {
        return;
    }
    out.push(
        RULE.finding(
            format!("max_model_len ({mml}) is greater than the model's derived maximum (max_position_embeddings={max})"),
            Target::config("/model/max_model_len"),
        )
        .label("vLLM refuses to start")
        .help(format!("set max_model_len to {max} or less (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 overrides the check but positions past {max} produce NaNs)")),
    );
}
