//! What a config.json leaves out. vLLM reads config.json through transformers,
//! whose config classes fill every key the file omits with the class default
//! (Gemma 3's config.json names neither its vocabulary nor its length), and
//! custom-code configs (ChatGLM) name the same sizes differently. So a file is
//! completed before it is read: other names mapped to the usual ones, then the
//! defaults of its `model_type`.

use serde_json::{Map, Value};

/// Other names of the same size, as custom-code configs write them (vLLM maps
/// them the same way, e.g. `ChatGLMConfig.attribute_map`).
const ALIASES: &[(&str, &[&str])] = &[
    ("num_hidden_layers", &["n_layer", "num_layers", "n_layers"]),
    ("num_attention_heads", &["n_head", "n_heads"]),
    ("num_key_value_heads", &["num_kv_heads", "n_head_kv", "multi_query_group_num", "n_kv_heads"]),
    ("hidden_size", &["n_embd", "d_model", "dim"]),
    ("intermediate_size", &["ffn_dim", "n_inner", "ffn_hidden_size"]),
    ("vocab_size", &["padded_vocab_size"]),
    ("head_dim", &["kv_channels"]),
    ("num_experts", &["num_local_experts", "n_routed_experts", "moe_num_experts"]),
];

/// The constructor defaults of transformers' config classes (4.57.1,
/// `models/*/configuration_*.py`) for the keys the memory model reads.
const DEFAULTS: &[(&str, &str)] = &[
    (
        "llama",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "mistral",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":10000.0,"sliding_window":4096}"#,
    ),
    (
        "mixtral",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":1000000.0,"num_experts_per_tok":2,"num_local_experts":8}"#,
    ),
    (
        "qwen2",
        r#"{"vocab_size":151936,"hidden_size":4096,"intermediate_size":22016,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":10000.0,"use_sliding_window":false,"sliding_window":4096,"max_window_layers":28}"#,
    ),
    (
        "qwen3",
        r#"{"vocab_size":151936,"hidden_size":4096,"intermediate_size":22016,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"head_dim":128,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":10000.0,"use_sliding_window":false,"sliding_window":4096,"max_window_layers":28}"#,
    ),
    (
        "qwen3_moe",
        r#"{"vocab_size":151936,"hidden_size":2048,"intermediate_size":6144,"num_hidden_layers":24,"num_attention_heads":32,"num_key_value_heads":4,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":10000.0,"use_sliding_window":false,"sliding_window":4096,"moe_intermediate_size":768,"num_experts_per_tok":8,"num_experts":128}"#,
    ),
    (
        "qwen3_next",
        r#"{"vocab_size":151936,"hidden_size":2048,"intermediate_size":5632,"num_hidden_layers":48,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":10000.0,"moe_intermediate_size":512,"shared_expert_intermediate_size":512,"num_experts_per_tok":10,"num_experts":512,"full_attention_interval":4}"#,
    ),
    (
        "qwen2_5_vl_text",
        r#"{"vocab_size":152064,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":1000000.0,"use_sliding_window":false}"#,
    ),
    (
        "qwen2_vl_text",
        r#"{"vocab_size":152064,"max_position_embeddings":32768,"tie_word_embeddings":false,"rope_theta":1000000.0,"use_sliding_window":false}"#,
    ),
    (
        "qwen3_vl_text",
        r#"{"vocab_size":151936,"head_dim":128,"max_position_embeddings":128000,"tie_word_embeddings":false,"rope_theta":5000000.0}"#,
    ),
    (
        "qwen3_vl_moe_text",
        r#"{"vocab_size":151936,"max_position_embeddings":128000,"tie_word_embeddings":false,"rope_theta":5000000.0,"moe_intermediate_size":1408,"num_experts_per_tok":4,"num_experts":60}"#,
    ),
    (
        "gemma",
        r#"{"vocab_size":256000,"hidden_size":3072,"intermediate_size":24576,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":16,"head_dim":256,"max_position_embeddings":8192,"tie_word_embeddings":true,"rope_theta":10000.0}"#,
    ),
    (
        "gemma2",
        r#"{"vocab_size":256000,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":8192,"tie_word_embeddings":true,"rope_theta":10000.0,"sliding_window":4096}"#,
    ),
    (
        "gemma3_text",
        r#"{"vocab_size":262208,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":131072,"tie_word_embeddings":true,"rope_theta":1000000.0,"sliding_window":4096,"sliding_window_pattern":6}"#,
    ),
    (
        "phi3",
        r#"{"vocab_size":32064,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":4096,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "phi",
        r#"{"vocab_size":51200,"hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":24,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "phimoe",
        r#"{"vocab_size":32064,"hidden_size":4096,"intermediate_size":6400,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":1000000.0,"num_experts_per_tok":2,"num_local_experts":16}"#,
    ),
    (
        "deepseek_v2",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false,"rope_theta":10000.0,"first_k_dense_replace":0,"kv_lora_rank":512,"q_lora_rank":1536,"n_routed_experts":64,"n_shared_experts":2,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"moe_intermediate_size":1407}"#,
    ),
    (
        "deepseek_v3",
        r#"{"vocab_size":129280,"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"n_shared_experts":1,"n_routed_experts":256,"kv_lora_rank":512,"q_lora_rank":1536,"qk_rope_head_dim":64,"v_head_dim":128,"qk_nope_head_dim":128,"num_experts_per_tok":8,"first_k_dense_replace":3,"max_position_embeddings":4096,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "gpt_oss",
        r#"{"num_hidden_layers":36,"num_local_experts":128,"vocab_size":201088,"hidden_size":2880,"intermediate_size":2880,"head_dim":64,"num_attention_heads":64,"num_key_value_heads":8,"sliding_window":128,"rope_theta":150000.0,"tie_word_embeddings":false,"max_position_embeddings":131072,"num_experts_per_tok":4}"#,
    ),
    (
        "granite",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "granitemoe",
        r#"{"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false,"rope_theta":10000.0,"num_local_experts":8,"num_experts_per_tok":2}"#,
    ),
    (
        "glm4",
        r#"{"vocab_size":151552,"hidden_size":4096,"intermediate_size":13696,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":2,"head_dim":128,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":10000.0}"#,
    ),
    (
        "glm4_moe",
        r#"{"vocab_size":151552,"hidden_size":4096,"intermediate_size":10944,"num_hidden_layers":46,"num_attention_heads":96,"num_key_value_heads":8,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":10000.0,"moe_intermediate_size":1408,"num_experts_per_tok":8,"n_shared_experts":1,"n_routed_experts":128,"first_k_dense_replace":1}"#,
    ),
    (
        "llama4_text",
        r#"{"vocab_size":202048,"hidden_size":5120,"intermediate_size":8192,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"max_position_embeddings":131072,"tie_word_embeddings":false,"rope_theta":500000.0,"num_experts_per_tok":1,"num_local_experts":16}"#,
    ),
    (
        "mllama_text_model",
        r#"{"vocab_size":128256,"hidden_size":4096,"num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"rope_theta":500000.0,"max_position_embeddings":131072,"tie_word_embeddings":false}"#,
    ),
];

/// The text config with other names mapped to the usual ones and the
/// transformers defaults of its `model_type` filled in.
pub(super) fn complete(text: &Value) -> Value {
    let mut cfg: Map<String, Value> = text.as_object().cloned().unwrap_or_default();
    for (name, others) in ALIASES {
        if cfg.get(*name).is_none_or(Value::is_null)
            && let Some(v) = others.iter().find_map(|o| cfg.get(*o).filter(|v| !v.is_null())).cloned()
        {
            cfg.insert((*name).to_string(), v);
        }
    }
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("").to_string();
    if let Some((_, json)) = DEFAULTS.iter().find(|(t, _)| *t == model_type)
        && let Ok(Value::Object(defaults)) = serde_json::from_str::<Value>(json)
    {
        for (k, v) in defaults {
            cfg.entry(k).or_insert(v);
        }
    }
    for key in SIZES {
        let sane =
            cfg.get(*key).and_then(Value::as_u64).is_some_and(|n| n <= MAX_SIZE && (n > 0 || !DIVISORS.contains(key)));
        if cfg.get(*key).is_some_and(|v| !v.is_null()) && !sane {
            // A size no model has (negative, fractional, zero where it divides,
            // beyond 2^24): read as absent, so the checks that need it say so
            // rather than compute nonsense.
            cfg.remove(*key);
        }
    }
    Value::Object(cfg)
}

/// Largest size read: far above any real model's (vocabularies reach 2^18).
pub(super) const MAX_SIZE: u64 = 1 << 24;

/// The sizes read as counts; every one is bounded by [`MAX_SIZE`].
const SIZES: &[&str] = &[
    "hidden_size",
    "intermediate_size",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "num_experts",
    "num_local_experts",
    "n_routed_experts",
    "num_experts_per_tok",
    "n_shared_experts",
    "first_k_dense_replace",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "sliding_window",
    "sliding_window_pattern",
    "full_attention_interval",
    "max_window_layers",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
];

/// Sizes something is divided by: zero is as absent.
const DIVISORS: &[&str] = &[
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "sliding_window_pattern",
    "full_attention_interval",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_table_is_json() {
        for (t, json) in DEFAULTS {
            assert!(serde_json::from_str::<Value>(json).is_ok_and(|v| v.is_object()), "{t}");
        }
    }

    #[test]
    fn a_config_keeps_its_own_values_and_gains_the_omitted_ones() {
        let c = complete(&serde_json::json!({"model_type": "gemma3_text", "hidden_size": 2560, "num_layers": 9}));
        assert_eq!(c["hidden_size"], 2560);
        assert_eq!(c["vocab_size"], 262208);
        assert_eq!(c["num_hidden_layers"], 9, "the other name of the layer count");
        let glm = complete(&serde_json::json!({"padded_vocab_size": 65024, "kv_channels": 128}));
        assert_eq!((glm["vocab_size"].as_u64(), glm["head_dim"].as_u64()), (Some(65024), Some(128)));
    }

    #[test]
    fn sizes_no_model_has_are_read_as_absent() {
        let c = complete(
            &serde_json::json!({"hidden_size": 4294967296u64, "num_attention_heads": 0, "head_dim": -3, "vocab_size": 1.5, "num_hidden_layers": 32}),
        );
        for key in ["hidden_size", "num_attention_heads", "head_dim", "vocab_size"] {
            assert!(c.get(key).is_none(), "{key}: {c}");
        }
        assert_eq!(c["num_hidden_layers"], 32);
    }
}
