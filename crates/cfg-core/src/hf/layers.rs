//! Which layers attend within a sliding window or linearly.

use serde_json::Value;

use crate::arch::LayerKinds;

/// The sliding window of the layers that use one, when the model uses one.
pub(super) fn sliding_window(cfg: &Value) -> Option<u32> {
    // Qwen2-style configs carry a window they do not use unless use_sliding_window says so.
    if cfg.get("use_sliding_window") == Some(&Value::Bool(false)) {
        return None;
    }
    cfg.get("sliding_window").and_then(Value::as_u64).and_then(|w| u32::try_from(w).ok()).filter(|w| *w > 0)
}

/// How many layers attend fully, within a sliding window, or linearly (a fixed
/// recurrent state, no per-token KV), when the config says; `None` for models
/// whose every layer attends fully.
pub(super) fn layer_kinds(cfg: &Value, layers: u32) -> Option<LayerKinds> {
    if let Some(types) = cfg.get("layer_types").and_then(Value::as_array) {
        let mut k = LayerKinds::default();
        for t in types.iter().filter_map(Value::as_str) {
            match t {
                // Chunked local attention (Llama 4's "chunked_attention") turns
                // vLLM's hybrid KV manager off, so those layers fall to the default
                // arm: cached as full attention.
                "sliding_attention" | "local_attention" => k.sliding += 1,
                "linear_attention" | "mamba" | "linear" => k.linear += 1,
                _ => k.full += 1,
            }
        }
        return (k.sliding + k.linear > 0).then_some(k);
    }
    // Nemotron-H: one letter per layer, `*` attention, `M` Mamba, `-` and `E`
    // MLP and MoE layers that cache nothing.
    if let Some(pattern) = cfg.get("hybrid_override_pattern").and_then(Value::as_str) {
        let count = |c: char| u32::try_from(pattern.chars().filter(|&x| x == c).count()).unwrap_or(u32::MAX);
        return Some(LayerKinds { full: count('*'), sliding: 0, linear: count('M') });
    }
    // Qwen3-Next: one full-attention layer in every `full_attention_interval`, the
    // rest linear (transformers' default layer_types).
    if cfg.get("linear_num_value_heads").is_some() {
        let interval = cfg
            .get("full_attention_interval")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
            .filter(|i| *i > 0)
            .unwrap_or(4);
        let full = layers / interval;
        return Some(LayerKinds { full, sliding: 0, linear: layers - full });
    }
    sliding_window(cfg)?;
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("");
    // Gemma 2 alternates sliding and full layers; Gemma 3 has one full layer in
    // every `sliding_window_pattern`; Mistral-style models slide on every layer.
    let full = if model_type == "gemma2" {
        layers / 2
    } else if let Some(pattern) =
        cfg.get("sliding_window_pattern").and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()).filter(|p| *p > 0)
    {
        layers / pattern
    } else if let Some(max_window) = cfg.get("max_window_layers").and_then(Value::as_u64) {
        // Qwen2: the first max_window_layers layers use full attention.
        u32::try_from(max_window).unwrap_or(u32::MAX).min(layers)
    } else {
        0
    };
    Some(LayerKinds { full, sliding: layers - full, linear: 0 })
}
