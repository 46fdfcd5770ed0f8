//! Reads a model's Hugging Face files (its `config.json` and, when there, its
//! `model.safetensors.index.json`, both already loaded by the caller) into the
//! [`Arch`] the memory model and the rules use, reading what vLLM reads:
//! sizes, heads, experts, latent attention, sliding-window and linear-attention
//! layers, the length keys and RoPE scaling, the dtype, the checkpoint's own
//! quantization, and the exact weight bytes from the index.

use serde_json::Value;

use crate::arch::Arch;
#[cfg(test)]
use crate::arch::LayerKinds;
use crate::model::{Architecture, CheckpointDtype};

mod defaults;
mod layers;
mod length;
mod params;

pub use length::LENGTH_KEYS;
pub use params::parameter_counts;

/// Reads a config.json (and optionally its safetensors index). Fails only if the
/// config is not a JSON object.
pub fn read_model(config_json: &str, safetensors_index: Option<&str>, origin: &str) -> Result<Arch, String> {
    let root: Value = serde_json::from_str(config_json).map_err(|e| format!("not valid JSON: {e}"))?;
    if !root.is_object() {
        return Err("expected a JSON object".into());
    }
    // Multimodal configs keep the language model under text_config (Gemma 3, Llama 4).
    let text = root.get("text_config").filter(|t| t.is_object()).unwrap_or(&root);
    let cfg = defaults::complete(text);
    let get = |k: &str| cfg.get(k).filter(|v| !v.is_null()).or_else(|| root.get(k));
    let int = |k: &str| get(k).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
    let layers = int("num_hidden_layers");
    let length = length::derived_length(&cfg);
    let (params, active) = parameter_counts(&cfg)
        .map(|(total, active)| {
            let vision = root.get("vision_config").map_or(0, params::vision_tower);
            (total + vision, active + vision)
        })
        .unzip();
    let weight_bytes = safetensors_index
        .and_then(|t| serde_json::from_str::<Value>(t).ok()?.pointer("/metadata/total_size")?.as_u64());
    // The checkpoint's quantization: `quantization_config`, else `compression_config`,
    // on the config or its text config (`get_quantization_config` in
    // vllm/transformers_utils/model_arch_config_convertor.py).
    let quant = ["quantization_config", "compression_config"]
        .iter()
        .find_map(|k| root.get(*k).or_else(|| text.get(*k)))
        .filter(|q| q.is_object());
    Ok(Arch {
        origin: Some(origin.to_string()),
        model_type: get("model_type").and_then(Value::as_str).map(str::to_string),
        architectures: root
            .get("architectures")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default(),
        num_parameters: params,
        num_active_parameters: active,
        num_hidden_layers: layers,
        num_attention_heads: int("num_attention_heads"),
        num_key_value_heads: int("num_key_value_heads"),
        head_dim: int("head_dim"),
        hidden_size: int("hidden_size"),
        intermediate_size: int("intermediate_size"),
        vocab_size: int("vocab_size"),
        tie_word_embeddings: get("tie_word_embeddings").and_then(Value::as_bool),
        max_position_embeddings: length.as_ref().map(|l| l.derived),
        length,
        torch_dtype: ["torch_dtype", "dtype"].iter().find_map(|k| get(k).and_then(Value::as_str)).and_then(dtype),
        quant_method: quant.and_then(quant_method),
        kv_cache_fp8: quant.is_some_and(kv_cache_fp8),
        quant_block_scaled: quant.is_some_and(|q| q.get("weight_block_size").is_some_and(Value::is_array)),
        quant_bits: quant
            .and_then(|q| {
                q.get("bits").or_else(|| {
                    // compressed-tensors: the first scheme's weight width.
                    q.get("config_groups")?.as_object()?.values().find_map(|g| g.pointer("/weights/num_bits"))
                })
            })
            .and_then(Value::as_u64)
            .and_then(|b| u32::try_from(b).ok()),
        kv_lora_rank: int("kv_lora_rank"),
        qk_rope_head_dim: int("qk_rope_head_dim"),
        num_experts: int("num_experts").filter(|&n| n > 1),
        experts_per_token: ["num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk"]
            .iter()
            .find_map(|k| int(k)),
        weight_bytes,
        sliding_window: layers::sliding_window(&cfg),
        layer_kinds: layers.and_then(|n| layers::layer_kinds(&cfg, n)),
        linear: match (
            int("linear_num_key_heads"),
            int("linear_num_value_heads"),
            int("linear_key_head_dim"),
            int("linear_value_head_dim"),
        ) {
            (Some(key_heads), Some(value_heads), Some(key_dim), Some(value_dim)) => {
                Some(crate::arch::LinearAttention {
                    key_heads,
                    value_heads,
                    key_dim,
                    value_dim,
                    conv_kernel: int("linear_conv_kernel_dim").unwrap_or(4),
                    // Qwen3.5's `mamba_ssm_dtype`, which vLLM adopts under "auto".
                    state_dtype: get("mamba_ssm_dtype").and_then(Value::as_str).and_then(dtype),
                })
            }
            // vLLM's NemotronHForCausalLMConfig: the config's dtype, else float32.
            _ if cfg.get("hybrid_override_pattern").is_some() => {
                mamba_state(&int).map(|m| crate::arch::LinearAttention {
                    state_dtype: Some(
                        get("mamba_ssm_cache_dtype")
                            .and_then(Value::as_str)
                            .and_then(dtype)
                            .unwrap_or(CheckpointDtype::Float32),
                    ),
                    ..m
                })
            }
            _ => None,
        },
        is_encoder_decoder: get("is_encoder_decoder").and_then(Value::as_bool).unwrap_or(false),
        ..Arch::default()
    })
}

/// The method name vLLM gives a checkpoint's quantization config
/// (`get_quantization_config` in `vllm/transformers_utils/model_arch_config_convertor.py`
/// and the ModelOpt overrides): ModelOpt configs by their algorithm,
/// `compressed_tensors` spelled with a dash.
fn quant_method(q: &Value) -> Option<String> {
    let method = q.get("quant_method").and_then(Value::as_str).map(str::to_ascii_lowercase);
    // hf_quant_config.json keeps the algorithm under "quantization".
    let algo = q.get("quant_algo").or_else(|| q.pointer("/quantization/quant_algo")).and_then(Value::as_str);
    let modelopt = method.as_deref() == Some("modelopt")
        || q.pointer("/producer/name").and_then(Value::as_str) == Some("modelopt")
        || (method.is_none() && algo.is_some());
    if let (true, Some(algo)) = (modelopt, algo) {
        let algo = algo.to_ascii_uppercase();
        let name = if algo.contains("NVFP4") || algo.contains("FP4") {
            "modelopt_fp4"
        } else if algo.contains("MXFP8") {
            "modelopt_mxfp8"
        } else if algo == "MIXED_PRECISION" {
            "modelopt_mixed"
        } else {
            "modelopt"
        };
        return Some(name.to_string());
    }
    let method = method?;
    Some(if method == "compressed_tensors" { "compressed-tensors".to_string() } else { method })
}

/// Whether the checkpoint stores its KV cache in fp8 (compressed-tensors'
/// `kv_cache_scheme`, ModelOpt's `kv_cache_quant_algo`): vLLM's `auto` then
/// means fp8 (`resolve_kv_cache_dtype_string`, `vllm/utils/torch_utils.py`).
fn kv_cache_fp8(q: &Value) -> bool {
    let scheme_fp8 = q.get("kv_cache_scheme").is_some_and(|k| {
        k.get("num_bits").and_then(Value::as_u64) == Some(8) && k.get("type").and_then(Value::as_str) == Some("float")
    });
    let algo = q.get("kv_cache_quant_algo").or_else(|| q.pointer("/quantization/kv_cache_quant_algo"));
    scheme_fp8 || algo.and_then(Value::as_str).is_some_and(|a| a.to_ascii_uppercase().contains("FP8"))
}

/// The old entry point for `--model-config`: the subset `[model.architecture]` has.
pub fn architecture_from_config_json(text: &str) -> Result<Architecture, String> {
    let a = read_model(text, None, "config.json")?;
    Ok(Architecture {
        num_parameters: a.num_parameters,
        num_hidden_layers: a.num_hidden_layers,
        num_attention_heads: a.num_attention_heads,
        num_key_value_heads: a.num_key_value_heads,
        head_dim: a.head_dim,
        hidden_size: a.hidden_size,
        intermediate_size: a.intermediate_size,
        vocab_size: a.vocab_size,
        max_position_embeddings: a.max_position_embeddings,
        model_type: a.model_type,
        torch_dtype: a.torch_dtype,
        kv_lora_rank: a.kv_lora_rank,
        qk_rope_head_dim: a.qk_rope_head_dim,
    })
}

/// A dtype as config.json spells it.
fn dtype(name: &str) -> Option<CheckpointDtype> {
    match name {
        "bfloat16" => Some(CheckpointDtype::Bfloat16),
        "float16" => Some(CheckpointDtype::Float16),
        "float32" => Some(CheckpointDtype::Float32),
        _ => None,
    }
}

/// Nemotron-H's Mamba-2 mixers as a linear-attention shape (see
/// [`crate::arch::LinearAttention`]).
fn mamba_state(int: &dyn Fn(&str) -> Option<u32>) -> Option<crate::arch::LinearAttention> {
    Some(crate::arch::LinearAttention {
        key_heads: int("n_groups").unwrap_or(1),
        value_heads: int("mamba_num_heads")?,
        key_dim: int("ssm_state_size")?,
        value_dim: int("mamba_head_dim")?,
        conv_kernel: int("conv_kernel").unwrap_or(4),
        state_dtype: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Arch {
        read_model(text, None, "test").unwrap()
    }

    #[test]
    fn reads_llama_style_config() {
        let a = read(
            r#"{"model_type":"llama","num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"hidden_size":4096,"vocab_size":128256,"max_position_embeddings":131072,"torch_dtype":"bfloat16"}"#,
        );
        assert_eq!(a.num_key_value_heads, Some(8));
        assert_eq!(a.max_position_embeddings, Some(131072));
        assert_eq!(a.torch_dtype, Some(CheckpointDtype::Bfloat16));
        assert!(read_model("[1]", None, "x").is_err());
    }

    /// Counted against the checkpoints' published totals.
    #[test]
    fn parameters_are_counted_from_the_architecture() {
        let count = |text: &str| parameter_counts(&serde_json::from_str(text).unwrap()).map(|c| c.0);
        let llama = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"tie_word_embeddings":false}"#;
        assert_eq!(count(llama), Some(8_030_261_248));
        let qwen = r#"{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152064,"tie_word_embeddings":false}"#;
        assert_eq!(count(qwen), Some(7_615_616_512));
        let mixtral = r#"{"model_type":"mixtral","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"vocab_size":32000}"#;
        assert_eq!(count(mixtral), Some(46_702_792_704));
        let active = parameter_counts(&serde_json::from_str(mixtral).unwrap()).unwrap().1;
        // 46,702,792,704 less the six unused experts of 32 layers (6 x 3 x 4096 x 14336 each).
        assert_eq!(active, 12_879_925_248, "two of eight experts per token");
        assert_eq!(count(r#"{"hidden_size":4096}"#), None);
        assert_eq!(read(llama).num_parameters, Some(8_030_261_248));
    }

    #[test]
    fn the_derived_length_is_the_smallest_key_times_a_linear_factor() {
        let a = read(r#"{"max_position_embeddings":32768,"seq_length":8192}"#);
        assert_eq!(a.max_position_embeddings, Some(8192));
        let a = read(r#"{"max_position_embeddings":4096,"rope_scaling":{"type":"linear","factor":4.0}}"#);
        assert_eq!(a.max_position_embeddings, Some(16384));
        let a = read(r#"{"max_position_embeddings":32768,"rope_scaling":{"rope_type":"yarn","factor":4.0}}"#);
        assert_eq!(a.max_position_embeddings, Some(32768), "YaRN keeps the trained length");
    }

    #[test]
    fn windows_and_layer_kinds() {
        let gemma2 = read(r#"{"model_type":"gemma2","num_hidden_layers":42,"sliding_window":4096}"#);
        assert_eq!(
            (gemma2.sliding_window, gemma2.layer_kinds),
            (Some(4096), Some(LayerKinds { full: 21, sliding: 21, linear: 0 }))
        );
        let qwen2 =
            read(r#"{"model_type":"qwen2","num_hidden_layers":28,"sliding_window":131072,"use_sliding_window":false}"#);
        assert_eq!((qwen2.sliding_window, qwen2.layer_kinds), (None, None));
        let hybrid = read(
            r#"{"num_hidden_layers":4,"layer_types":["linear_attention","linear_attention","linear_attention","full_attention"]}"#,
        );
        assert_eq!(hybrid.layer_kinds, Some(LayerKinds { full: 1, sliding: 0, linear: 3 }));
    }

    #[test]
    fn the_checkpoint_quantization_and_exact_weights_are_read() {
        let a = read_model(
            r#"{"quantization_config":{"quant_method":"AWQ","bits":4,"group_size":128}}"#,
            Some(r#"{"metadata":{"total_size":5554123776},"weight_map":{}}"#),
            "x",
        )
        .unwrap();
        assert_eq!(
            (a.quant_method.as_deref(), a.quant_bits, a.weight_bytes),
            (Some("awq"), Some(4), Some(5_554_123_776))
        );
    }
}
