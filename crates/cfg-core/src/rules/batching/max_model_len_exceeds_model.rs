use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_model_len` is longer than the model supports
    ///
    /// **What:** `max_model_len` exceeds the length vLLM derives from the model's
    /// config.json. vLLM 0.33 follows `derive_max_model_len_and_key`
    /// (`vllm/transformers_utils/model_arch_config_convertor.py`) and
    /// `_get_and_verify_max_len` (`vllm/config/model.py`): the smallest of nine
    /// keys (`max_position_embeddings`, `n_positions`, `max_seq_len`,
    /// `seq_length`, `model_max_length`, `max_target_positions`,
    /// `max_sequence_length`, `max_seq_length`, `seq_len`), except that a
    /// `model_max_length` overrides the rest; then times the `factor` of the last
    /// RoPE scaling that is not a context-extension kind (`linear` and `dynamic`
    /// multiply; `yarn`, `llama3`, `longrope`, `su`, `deepseek_yarn` and
    /// `deepseek_llama_scaling` do not), never for Gemma 3.
    ///
    /// **Why:** vLLM refuses to start with `User-specified max_model_len (X) is
    /// greater than the derived max_model_len (KEY=Y or model_max_length=Z in
    /// model's config.json)`. Overriding it with `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`
    /// produces NaNs with rotary embeddings past the trained length.
    ///
    /// **Example:** `max_model_len = 65536` for `mistralai/Mistral-7B-Instruct-v0.3`
    /// (32768 positions).
    ///
    /// **Fix:** lower `max_model_len` to the model's maximum, write `"auto"` to
    /// let vLLM pick the longest that fits, or pick a model trained for longer
    /// contexts.
    pub static RULE = { code: "CFG104", name: "max-model-len-exceeds-model", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let written = d.config.model.max_model_len.and_then(crate::model::MaxModelLen::tokens);
    let (Some(mml), Some(max)) = (written, d.arch.max_position_embeddings) else { return };
    if mml <= max {
        return;
    }
    let (key, shown, model_max_length) = match &d.arch.length {
        Some(l) => (
            l.key.as_str(),
            if l.printed_as_float { format!("{max}.0") } else { max.to_string() },
            l.model_max_length.map_or("None".to_string(), |n| n.to_string()),
        ),
        None => ("max_position_embeddings", max.to_string(), "None".to_string()),
    };
    out.push(
        RULE.finding(
            format!(
                "max_model_len ({mml}) is longer than the model's maximum ({max}, from `{key}` in its config.json)"
            ),
            Target::config("/model/max_model_len"),
        )
        .label(format!(
            "vLLM refuses to start: \"User-specified max_model_len ({mml}) is greater than the derived max_model_len \
             ({key}={shown} or model_max_length={model_max_length} in model's config.json).\""
        ))
        .help(format!(
            "set max_model_len to {max} or less, or \"auto\" (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 overrides the check, but \
             positions past {max} produce NaNs)"
        )),
    );
}
