//! A model's architecture as its files (or the catalog's copy of them) state
//! it: what the memory model and the rules need to know about a model.

use crate::model::CheckpointDtype;

/// A model architecture with every field optional: the model's files (or the
/// catalog's copy of them) fill what they say and `[model.architecture]`
/// overrides it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Arch {
    /// Where the architecture was read from: a config.json path, a Hub URL, or the
    /// catalog's copy of one.
    pub origin: Option<String>,
    /// The catalog model it came from, when it did.
    pub catalog_id: Option<String>,
    pub model_type: Option<String>,
    /// `architectures` in config.json (e.g. `LlamaForCausalLM`).
    pub architectures: Vec<String>,
    pub num_parameters: Option<u64>,
    pub num_active_parameters: Option<u64>,
    pub num_hidden_layers: Option<u32>,
    pub num_attention_heads: Option<u32>,
    pub num_key_value_heads: Option<u32>,
    pub head_dim: Option<u32>,
    pub hidden_size: Option<u32>,
    pub intermediate_size: Option<u32>,
    pub vocab_size: Option<u32>,
    /// The output head is the input embedding (`tie_word_embeddings`): one
    /// matrix, which every step reads in full for the logits. Untied, the
    /// embedding is a lookup that reads only the rows of a step's tokens.
    /// `None` where the config neither says it nor has a known default.
    pub tie_word_embeddings: Option<bool>,
    /// The model's longest context as vLLM derives it (not only the key of that name).
    pub max_position_embeddings: Option<u32>,
    /// How that length was derived, when read from a config.json.
    pub length: Option<Length>,
    pub torch_dtype: Option<CheckpointDtype>,
    pub quant_method: Option<String>,
    pub kv_lora_rank: Option<u32>,
    pub qk_rope_head_dim: Option<u32>,
    /// The checkpoint stores its KV cache in fp8 (so `kv_cache_dtype = "auto"` is fp8).
    pub kv_cache_fp8: bool,
    /// Bits of a quantized checkpoint's weights (`quantization_config.bits`).
    pub quant_bits: Option<u32>,
    /// The checkpoint's FP8 weights carry a scale per block
    /// (`quantization_config.weight_block_size`, DeepSeek's 128 x 128).
    pub quant_block_scaled: bool,
    /// Routed experts of a mixture-of-experts model, and how many each token uses.
    pub num_experts: Option<u32>,
    pub experts_per_token: Option<u32>,
    /// Bytes of the checkpoint's weights, from its safetensors index: exact for
    /// quantized checkpoints, where a parameter count is not.
    pub weight_bytes: Option<u64>,
    /// The window of the layers that attend within one.
    pub sliding_window: Option<u32>,
    /// Layers by attention kind, for models that mix kinds.
    pub layer_kinds: Option<LayerKinds>,
    /// The shapes of linear-attention layers (Qwen3-Next / Qwen3.5 gated delta net).
    pub linear: Option<LinearAttention>,
    pub is_encoder_decoder: bool,
}

/// A linear-attention layer's shape: its per-request state is
/// value_heads x key_dim x value_dim plus a short convolution window. A
/// Mamba-2 mixer has the same shape: heads x state size x head dim, and a
/// convolution over x, B and C (the groups are its key heads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinearAttention {
    pub key_heads: u32,
    pub value_heads: u32,
    pub key_dim: u32,
    pub value_dim: u32,
    pub conv_kernel: u32,
    /// The recurrent state's dtype when the config fixes it (Nemotron-H's
    /// `mamba_ssm_cache_dtype = "float32"`, which vLLM adopts when the cache's
    /// own setting is "auto"); else the cache's dtype.
    pub state_dtype: Option<CheckpointDtype>,
}

/// How vLLM derives a model's maximum length from its config.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Length {
    /// The largest max_model_len vLLM accepts without VLLM_ALLOW_LONG_MAX_MODEL_LEN.
    pub derived: u32,
    /// What it runs with when max_model_len is not set (differs for longrope models).
    pub default: u32,
    /// The key that set it (`max_position_embeddings`, `seq_length`, `model_max_length` ...).
    pub key: String,
    /// vLLM prints the derived length as a float (`32768.0`) for RoPE models.
    pub printed_as_float: bool,
    pub model_max_length: Option<u32>,
}

/// How a model's layers attend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayerKinds {
    /// Full attention: KV for the whole context.
    pub full: u32,
    /// Sliding-window attention: KV for at most the window.
    pub sliding: u32,
    /// Linear attention (or state-space) layers: a fixed state, no per-token KV.
    pub linear: u32,
}

impl Arch {
    pub fn is_mla(&self) -> bool {
        self.kv_lora_rank.is_some()
    }

    pub fn kv_heads(&self) -> Option<u32> {
        self.num_key_value_heads.or(self.num_attention_heads)
    }

    /// The max_model_len vLLM runs with when none is set (a longrope model's
    /// original length, else the derived maximum).
    pub fn default_max_model_len(&self) -> Option<u32> {
        match &self.length {
            Some(l) if Some(l.derived) == self.max_position_embeddings => Some(l.default),
            _ => self.max_position_embeddings,
        }
    }

    pub fn head_dim(&self) -> Option<u32> {
        self.head_dim.or_else(|| Some(self.hidden_size? / self.num_attention_heads?.max(1)))
    }
}
