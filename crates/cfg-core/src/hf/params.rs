//! Parameter counts from the architecture.

use serde_json::Value;

/// The checkpoint's parameter count and the count touched per token (all
/// experts, and the routed ones), from its architecture as the weights would
/// have it: embeddings (and an untied output head), per layer the attention
/// projections (with Qwen2's q/k/v biases and Qwen3's q/k norms, or DeepSeek's
/// latent attention), the gated MLP or every expert plus the router and the
/// shared experts, and the norms. Exact for Llama, Qwen 2.5/3 and Mixtral
/// checkpoints (see the tests); `None` when a size it needs is missing.
pub fn parameter_counts(cfg: &Value) -> Option<(u64, u64)> {
    // 128-bit sums of bounded sizes (`defaults::MAX_SIZE`): no product overflows,
    // and a count beyond u64 saturates.
    let get = |k: &str| cfg.get(k).and_then(Value::as_u64).filter(|n| *n <= super::defaults::MAX_SIZE).map(u128::from);
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
            let attention_bias = cfg.get("attention_bias") == Some(&Value::Bool(true));
            // Qwen2 biases q, k and v without saying so; attention_bias adds them
            // and the output's; gpt-oss adds a learned sink per head.
            let bias =
                if model_type.starts_with("qwen2") || attention_bias { (heads + 2 * kv_heads) * head_dim } else { 0 }
                    + if attention_bias { hidden } else { 0 }
                    + if model_type == "gpt_oss" { heads } else { 0 };
            let qk_norm =
                if model_type.starts_with("qwen3") || model_type.starts_with("gemma3") { 2 * head_dim } else { 0 };
            q + kv + o + bias + qk_norm
        }
    };
    let dense_mlp = 3 * hidden * first(&["intermediate_size", "ffn_dim", "n_inner"]).unwrap_or(4 * hidden);
    let experts = first(&["num_local_experts", "num_experts", "n_routed_experts"]).filter(|&n| n > 1);
    let per_token = first(&["num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk"]);
    let expert_size = first(&["moe_intermediate_size", "intermediate_size"]).unwrap_or(4 * hidden);
    // gpt-oss's experts and router carry biases.
    let mlp_bias = model_type == "gpt_oss";
    let per_expert = 3 * hidden * expert_size + if mlp_bias { 2 * expert_size + hidden } else { 0 };
    let shared = match (get("shared_expert_intermediate_size"), get("n_shared_experts")) {
        (Some(size), _) => 3 * hidden * size + hidden,
        (None, Some(k)) => k * per_expert,
        // Llama 4 pairs every routed layer with one shared expert of the same size.
        _ if model_type.starts_with("llama4") => per_expert,
        _ => 0,
    };
    // The router, plus a bias per expert (gpt-oss; DeepSeek-V3's score correction).
    let router_bias = mlp_bias || cfg.get("topk_method").and_then(Value::as_str) == Some("noaux_tc");
    let router = |n: u128| hidden * n + if router_bias { n } else { 0 };
    let moe = experts.map(|n| {
        (n * per_expert + router(n) + shared, per_token.unwrap_or(n).min(n) * per_expert + router(n) + shared)
    });
    // DeepSeek keeps its first layers dense.
    let dense_layers = get("first_k_dense_replace").unwrap_or(if moe.is_some() { 0 } else { layers }).min(layers);
    // Gemma 2 and 3 norm before and after both attention and MLP.
    let norms =
        if model_type.starts_with("gemma2") || model_type.starts_with("gemma3") { 4 * hidden } else { 2 * hidden };
    let embeddings = vocab * hidden * if tied { 1 } else { 2 };
    let narrow = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
    if let Some(pattern) = cfg.get("hybrid_override_pattern").and_then(Value::as_str) {
        let (all, active) = hybrid_blocks(&get, pattern, hidden, attention, experts, per_token)?;
        return Some((narrow(embeddings + all + hidden), narrow(embeddings + active + hidden)));
    }
    let total = |mlp: u128| {
        dense_layers * (attention + dense_mlp + norms) + (layers - dense_layers) * (attention + mlp + norms)
    };
    let (all, routed) = moe.unwrap_or((dense_mlp, dense_mlp));
    Some((narrow(embeddings + total(all) + hidden), narrow(embeddings + total(routed) + hidden)))
}

/// A vision encoder's parameters (the ViT of Gemma 3, Qwen-VL, Llama 3.2
/// Vision, ...), from its `vision_config`, plus the projector into the language
/// model: the weights vLLM loads beside the language model. An estimate
/// (biases and norms as a standard ViT has them); 0 when sizes are missing.
pub(super) fn vision_tower(vision: &Value) -> u64 {
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| vision.get(*k).and_then(Value::as_u64))
            .filter(|n| *n <= super::defaults::MAX_SIZE)
            .map(u128::from)
    };
    let (Some(h), Some(layers)) =
        (get(&["hidden_size", "embed_dim", "width"]), get(&["num_hidden_layers", "depth", "num_layers"]))
    else {
        return 0;
    };
    let i = get(&["intermediate_size"]).unwrap_or(4 * h);
    let patch = get(&["patch_size"]).unwrap_or(14);
    let image = get(&["image_size"]).unwrap_or(336);
    let channels = get(&["num_channels", "in_channels", "in_chans"]).unwrap_or(3);
    let per_layer = 4 * h * h + 4 * h + 2 * h * i + h + i + 4 * h;
    let positions = (image / patch.max(1)).pow(2) * h;
    let out = get(&["out_hidden_size", "projection_dim", "output_dim"]).unwrap_or(h);
    u64::try_from(layers * per_layer + channels * patch * patch * h + h + positions + 2 * h + h * out)
        .unwrap_or(u64::MAX)
}

/// Nemotron-H's layers, one block each as `hybrid_override_pattern` spells
/// them: `M` a Mamba-2 mixer, `*` attention, `E` a mixture of experts, `-` an
/// MLP, each behind one norm. Its MLPs and experts are two matrices (a
/// squared-ReLU up and down projection), not a gated three. (all, active).
fn hybrid_blocks(
    get: &dyn Fn(&str) -> Option<u128>,
    pattern: &str,
    hidden: u128,
    attention: u128,
    experts: Option<u128>,
    per_token: Option<u128>,
) -> Option<(u128, u128)> {
    let count = |c: char| pattern.chars().filter(|&x| x == c).count() as u128;
    let mlp = |size: u128| 2 * hidden * size;
    let mamba = {
        let heads = get("mamba_num_heads").unwrap_or(0);
        let inner =
            get("mamba_head_dim").map(|d| d * heads).or(get("expand").map(|e| e * hidden)).unwrap_or(2 * hidden);
        let groups = get("n_groups").unwrap_or(1);
        let state = get("ssm_state_size").unwrap_or(128);
        let conv_channels = inner + 2 * groups * state;
        let kernel = get("conv_kernel").unwrap_or(4);
        // in_proj (z, x, B, C, dt), the depthwise conv with its bias, dt bias,
        // A and D per head, the gated norm, out_proj.
        hidden * (inner + conv_channels + heads) + conv_channels * (kernel + 1) + 3 * heads + inner + inner * hidden
    };
    let moe = match (experts, get("moe_intermediate_size")) {
        (Some(n), Some(size)) => {
            let shared =
                get("moe_shared_expert_intermediate_size").map_or(0, |s| get("n_shared_experts").unwrap_or(1) * mlp(s));
            // The router and its score-correction bias.
            let router = hidden * n + n;
            let k = per_token.unwrap_or(n).min(n);
            (n * mlp(size) + shared + router, k * mlp(size) + shared + router)
        }
        _ if count('E') > 0 => return None,
        _ => (0, 0),
    };
    let dense = mlp(get("intermediate_size").unwrap_or(4 * hidden));
    let norms = pattern.chars().count() as u128 * hidden;
    let fixed = count('M') * mamba + count('*') * attention + count('-') * dense + norms;
    Some((fixed + count('E') * moe.0, fixed + count('E') * moe.1))
}
