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
        num_parameters: None,
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
}
