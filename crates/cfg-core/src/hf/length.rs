//! The model's maximum length as vLLM derives it from config.json.

use serde_json::Value;

use crate::arch::Length;

/// The keys vLLM takes the model's maximum length from: the smallest present wins
/// (`vllm/config/model.py`, `_get_and_verify_max_len`).
pub const LENGTH_KEYS: [&str; 9] = [
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
];

/// The model's own longest context as vLLM 0.33 derives it
/// (`ModelArchConfigConvertorBase.derive_max_model_len_and_key` in
/// `vllm/transformers_utils/model_arch_config_convertor.py`, then
/// `_get_and_verify_max_len` in `vllm/config/model.py`): the smallest of the
/// length keys, except that a `model_max_length` overrides it; times the `factor`
/// of the last RoPE scaling that is not one of the context-extension kinds
/// (YaRN, llama3, longrope, su, deepseek_yarn, deepseek_llama_scaling keep the
/// trained length), never for Gemma 3. A longrope model (Phi-3 128k) defaults to
/// its `original_max_position_embeddings` while allowing the derived length.
pub(super) fn derived_length(cfg: &Value) -> Option<Length> {
    let mut bound: Option<(u64, &str)> = None;
    for key in LENGTH_KEYS {
        if let Some(n) = cfg.get(key).and_then(Value::as_u64).filter(|n| *n > 0)
            && bound.is_none_or(|(b, _)| n < b)
        {
            bound = Some((n, key));
        }
    }
    // transformers writes it as a float at times (1e30 for "no limit" in tokenizers).
    let model_max_length = cfg
        .get("model_max_length")
        .and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 1.0).map(|f| f.min(u64::MAX as f64) as u64))
        })
        .filter(|n| *n > 0);
    if let Some(n) = model_max_length {
        bound = Some((n, "model_max_length"));
    }
    let (smallest, key) = bound?;
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("");
    let ropes = rope_parameters(cfg);
    let mut factor = 1.0;
    // vLLM gives every config with a rope_theta a default parameter set, so any
    // RoPE model multiplies (by 1.0 at least) and prints the result as a float.
    let uses_rope = !ropes.is_empty() || cfg.get("rope_theta").is_some();
    let scaled = uses_rope && !model_type.contains("gemma3");
    if scaled {
        for rope in &ropes {
            let kind = rope.get("rope_type").or_else(|| rope.get("type")).and_then(Value::as_str).unwrap_or("default");
            if !ROPE_KEEPS_LENGTH.contains(&kind) {
                // A factor that shrinks or is not a number is not a scaling vLLM can use.
                factor =
                    rope.get("factor").and_then(Value::as_f64).filter(|f| f.is_finite() && *f > 0.0).unwrap_or(factor);
            }
        }
    }
    let derived = ((smallest as f64 * factor) as u64).max(1);
    let longrope =
        ropes.iter().any(|r| r.get("rope_type").or_else(|| r.get("type")).and_then(Value::as_str) == Some("longrope"));
    let default = if longrope {
        cfg.get("original_max_position_embeddings").and_then(Value::as_u64).unwrap_or(derived)
    } else {
        derived
    };
    Some(Length {
        derived: u32::try_from(derived).unwrap_or(u32::MAX),
        default: u32::try_from(default).unwrap_or(u32::MAX),
        key: key.to_string(),
        printed_as_float: scaled,
        model_max_length: model_max_length.and_then(|n| u32::try_from(n).ok()),
    })
}

/// RoPE kinds that extend the context without raising vLLM's derived maximum.
const ROPE_KEEPS_LENGTH: [&str; 6] = ["su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"];

/// The RoPE parameter sets: `rope_scaling` (older configs), `rope_parameters`
/// (transformers 5), or one per layer type under either.
fn rope_parameters(cfg: &Value) -> Vec<&Value> {
    let mut sets = Vec::new();
    for key in ["rope_scaling", "rope_parameters"] {
        match cfg.get(key) {
            Some(Value::Object(map)) if map.values().all(Value::is_object) && !map.is_empty() => {
                sets.extend(map.values());
            }
            Some(v @ Value::Object(_)) => sets.push(v),
            _ => {}
        }
    }
    sets
}
