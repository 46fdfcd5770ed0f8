//! Reads a Hugging Face `config.json` (already loaded by the caller) into an
//! [`Architecture`], with vLLM's own key aliases (§2.2 and §2.5 of the reference).

use serde_json::Value;

use crate::model::{Architecture, CheckpointDtype};

/// Fails only if the text is not a JSON object.
pub fn architecture_from_config_json(text: &str) -> Result<Architecture, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if !root.is_object() {
        return Err("expected a JSON object".into());
    }
    // Multimodal configs keep the language model under text_config.
    let text_cfg = root.get("text_config").filter(|t| t.is_object()).unwrap_or(&root);
    let first_u32 = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| text_cfg.get(*k).or_else(|| root.get(*k)).and_then(Value::as_u64))
            .and_then(|n| u32::try_from(n).ok())
    };
    let max_len_keys = [
        "max_position_embeddings",
        "n_positions",
        "max_seq_len",
        "seq_length",
        "max_sequence_length",
        "max_seq_length",
        "seq_len",
    ];
    // vLLM takes the smallest of the length keys present.
    let max_len = max_len_keys
        .iter()
        .filter_map(|k| text_cfg.get(*k).and_then(Value::as_u64))
        .filter(|n| *n > 0)
        .min()
        .and_then(|n| u32::try_from(n).ok());
    let dtype = ["torch_dtype", "dtype"]
        .iter()
        .find_map(|k| text_cfg.get(*k).or_else(|| root.get(*k)).and_then(Value::as_str))
        .and_then(|d| match d {
            "bfloat16" => Some(CheckpointDtype::Bfloat16),
            "float16" => Some(CheckpointDtype::Float16),
            "float32" => Some(CheckpointDtype::Float32),
            _ => None,
        });
    Ok(Architecture {
        num_parameters: parameter_count(text_cfg),
        num_hidden_layers: first_u32(&["num_hidden_layers", "n_layer", "num_layers"]),
        num_attention_heads: first_u32(&["num_attention_heads", "n_head"]),
        num_key_value_heads: first_u32(&[
            "n_head_kv",
            "num_kv_heads",
            "num_key_value_heads",
            "multi_query_group_num",
            "num_attention_groups",
        ]),
        head_dim: first_u32(&["head_dim"]),
        hidden_size: first_u32(&["hidden_size", "n_embd", "d_model"]),
        intermediate_size: first_u32(&["intermediate_size", "ffn_dim", "n_inner"]),
        vocab_size: first_u32(&["vocab_size"]),
        max_position_embeddings: max_len,
        model_type: text_cfg
            .get("model_type")
            .or_else(|| root.get("model_type"))
            .and_then(Value::as_str)
            .map(str::to_string),
        torch_dtype: dtype,
        kv_lora_rank: first_u32(&["kv_lora_rank"]),
        qk_rope_head_dim: first_u32(&["qk_rope_head_dim"]),
    })
}

/// The checkpoint's parameter count, from its architecture as the weights
/// would have it: embeddings (and an untied output head), per layer the
/// attention projections (with Qwen2's q/k/v biases and Qwen3's q/k norms, or
/// DeepSeek's latent attention), the gated MLP or every expert plus the
/// router and shared experts, and the norms. Exact for Llama, Qwen 2.5/3 and
/// Mixtral checkpoints (see the tests); `None` when a size it needs is missing.
pub fn parameter_count(cfg: &Value) -> Option<u64> {
    let get = |k: &str| cfg.get(k).and_then(Value::as_u64);
    let first = |keys: &[&str]| keys.iter().find_map(|k| get(k));
    let hidden = first(&["hidden_size", "n_embd", "d_model"])?;
    let layers = first(&["num_hidden_layers", "n_layer", "num_layers"])?;
    let heads = first(&["num_attention_heads", "n_head"])?;
    let vocab = get("vocab_size")?;
    let kv_heads = first(&["num_key_value_heads", "num_kv_heads", "n_head_kv"]).unwrap_or(heads);
    let head_dim = get("head_dim").unwrap_or(hidden / heads.max(1));
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("");
    let tied = cfg.get("tie_word_embeddings").and_then(Value::as_bool).unwrap_or(false);

    let attention = match get("kv_lora_rank") {
        Some(kv_lora) => {
            let rope = get("qk_rope_head_dim").unwrap_or(64);
            let nope = get("qk_nope_head_dim").unwrap_or(128);
            let v_head = get("v_head_dim").unwrap_or(128);
            let q = match get("q_lora_rank") {
                Some(q_lora) => hidden * q_lora + q_lora + q_lora * heads * (nope + rope),
                None => hidden * heads * (nope + rope),
            };
            q + hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_head) + heads * v_head * hidden
        }
        None => {
            let q = hidden * heads * head_dim;
            let kv = 2 * hidden * kv_heads * head_dim;
            let o = heads * head_dim * hidden;
            let bias = if model_type.starts_with("qwen2") || cfg.get("attention_bias") == Some(&Value::Bool(true)) {
                (heads + 2 * kv_heads) * head_dim
            } else {
                0
            };
            let qk_norm = if model_type.starts_with("qwen3") { 2 * head_dim } else { 0 };
            q + kv + o + bias + qk_norm
        }
    };
    let dense_mlp = 3 * hidden * first(&["intermediate_size", "ffn_dim", "n_inner"]).unwrap_or(4 * hidden);
    let experts = first(&["num_local_experts", "num_experts", "n_routed_experts"]).filter(|&n| n > 1);
    let moe_mlp = experts.map(|n| {
        let per_expert = 3 * hidden * first(&["moe_intermediate_size", "intermediate_size"]).unwrap_or(4 * hidden);
        let shared = match (get("shared_expert_intermediate_size"), get("n_shared_experts")) {
            (Some(size), _) => 3 * hidden * size + hidden,
            (None, Some(k)) => k * per_expert,
            _ => 0,
        };
        n * per_expert + hidden * n + shared
    });
    // DeepSeek keeps its first layers dense.
    let dense_layers = get("first_k_dense_replace").unwrap_or(if moe_mlp.is_some() { 0 } else { layers }).min(layers);
    let norms = 2 * hidden;
    let body = dense_layers * (attention + dense_mlp + norms)
        + (layers - dense_layers) * (attention + moe_mlp.unwrap_or(dense_mlp) + norms);
    let embeddings = vocab * hidden * if tied { 1 } else { 2 };
    Some(embeddings + body + hidden)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_llama_style_config() {
        let a = architecture_from_config_json(r#"{"model_type":"llama","num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"hidden_size":4096,"vocab_size":128256,"max_position_embeddings":131072,"torch_dtype":"bfloat16"}"#).unwrap();
        assert_eq!(a.num_key_value_heads, Some(8));
        assert_eq!(a.max_position_embeddings, Some(131072));
        assert_eq!(a.torch_dtype, Some(CheckpointDtype::Bfloat16));
        assert!(architecture_from_config_json("[1]").is_err());
    }

    /// Counted against the checkpoints' published totals.
    #[test]
    fn parameters_are_counted_from_the_architecture() {
        let count = |text: &str| parameter_count(&serde_json::from_str(text).unwrap());
        let llama = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"tie_word_embeddings":false}"#;
        assert_eq!(count(llama), Some(8_030_261_248));
        let qwen = r#"{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152064,"tie_word_embeddings":false}"#;
        assert_eq!(count(qwen), Some(7_615_616_512));
        let mixtral = r#"{"model_type":"mixtral","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"num_local_experts":8,"vocab_size":32000}"#;
        assert_eq!(count(mixtral), Some(46_702_792_704));
        assert_eq!(count(r#"{"hidden_size":4096}"#), None);
        let a = architecture_from_config_json(llama).unwrap();
        assert_eq!(a.num_parameters, Some(8_030_261_248), "a real config.json gives the count vLLM's weights have");
    }
}
