//! How vLLM 0.33 lays out the KV cache (`v1/core/kv_cache_planning.py`,
//! `v1/kv_cache_interface.py`): layers are grouped by attention kind, all groups
//! draw blocks from one pool whose block is the largest group's page, and a
//! request holds blocks in every group: a whole-context share in full-attention
//! groups, a window's worth in sliding-window groups, a fixed few in
//! linear-attention (Mamba-style) groups. So the token count vLLM prints follows
//! `blocks x block_size` only for models whose every layer attends fully.

use crate::model::KvCacheDtype;
use crate::resolve::{Arch, ResolvedDtype};

/// vLLM's default KV block size on CUDA.
pub const BLOCK_SIZE: u64 = 16;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Full,
    /// Attends within this many tokens.
    Sliding(u32),
    /// A fixed recurrent state per request: 3 blocks with prefix caching
    /// ("align" mode: 2 plus a prefill checkpoint for Qwen's GDN), else 1.
    Linear,
}

/// The KV cache layout of one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Tokens per block (raised above 16 for linear-attention hybrids, so that an
    /// attention page holds at least a Mamba state).
    pub block_size: u64,
    /// Bytes of one block in the shared pool.
    pub bytes_per_block: f64,
    /// KV bytes one token costs across the GPU's attention layers, full and
    /// sliding (what a request pays per token of context, up to the windows).
    pub bytes_per_token: f64,
    /// Recurrent state one request holds across the GPU's linear-attention
    /// and Mamba layers (0 without them): read and written every step.
    pub state_bytes_per_request: f64,
    /// Kinds of layer group, with how many groups of each.
    groups: Vec<(Kind, u64)>,
    in_flight_tokens: u64,
    prefix_caching: bool,
}

impl Layout {
    /// Blocks one request of `len` tokens holds (`max_memory_usage_bytes` over the
    /// groups, in pages).
    pub fn blocks_per_request(&self, len: u64) -> u64 {
        let bs = self.block_size;
        self.groups
            .iter()
            .map(|(kind, count)| {
                let each = match kind {
                    Kind::Full => len.div_ceil(bs),
                    Kind::Sliding(w) => {
                        (u64::from(*w) - 1).saturating_add(self.in_flight_tokens).min(len).div_ceil(bs) + 1
                    }
                    // Qwen's gated delta net; other state-space layers are close.
                    Kind::Linear => {
                        if self.prefix_caching {
                            3
                        } else {
                            1
                        }
                    }
                };
                each.saturating_mul(*count)
            })
            .fold(0u64, u64::saturating_add)
            .max(1)
    }

    /// The longest request `available` bytes hold beside the null block (vLLM's
    /// binary search in `_estimate_max_model_len_from_groups`), up to `limit`.
    pub fn longest_request(&self, available: f64, limit: u64) -> u64 {
        let room = available - self.bytes_per_block;
        let fits = |len: u64| self.bytes_per_block * self.blocks_per_request(len) as f64 <= room;
        if !fits(1) {
            return 0;
        }
        let (mut lo, mut hi) = (1u64, limit.max(1));
        if fits(hi) {
            return hi;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// What the scheduler does that shapes the cache: batches in flight and prefix caching.
#[derive(Debug, Clone, Copy)]
pub struct Serving {
    pub max_num_batched_tokens: u32,
    pub pipeline_parallel_size: u32,
    /// On by default for generative models (config.toml has no switch for it).
    pub prefix_caching: bool,
}

/// The layout for `layers_here` layers of `arch` on one of `tp` tensor-parallel
/// GPUs. `None` when the architecture lacks the sizes it needs (the name of the
/// missing field).
pub fn layout(
    arch: &Arch,
    layers_here: u32,
    tp: u32,
    kv_dtype: Option<KvCacheDtype>,
    model_dtype: ResolvedDtype,
    serving: Serving,
) -> Result<Layout, &'static str> {
    let elem = kv_dtype.and_then(KvCacheDtype::bytes).unwrap_or(model_dtype.bytes());
    let per_token_per_layer = match arch.kv_lora_rank {
        // Latent attention caches one compressed vector per token, on every GPU.
        Some(rank) => match kv_dtype {
            Some(KvCacheDtype::Fp8DsMla) => 656.0,
            Some(KvCacheDtype::Nvfp4DsMla) => 352.0,
            _ => (f64::from(rank) + f64::from(arch.qk_rope_head_dim.unwrap_or(64))) * elem,
        },
        None => {
            let kv_heads = arch.kv_heads().ok_or("num_key_value_heads")?;
            let head_dim = arch.head_dim().ok_or("head_dim")?;
            // Each GPU holds its share of the KV heads, at least one.
            let per_rank = (kv_heads / tp.max(1)).max(1);
            2.0 * f64::from(per_rank) * f64::from(head_dim) * elem
        }
    };
    if !(per_token_per_layer.is_finite() && per_token_per_layer > 0.0) {
        return Err("head_dim");
    }
    let share = |n: u32| {
        let all = u64::from(arch.num_hidden_layers.unwrap_or(layers_here).max(1));
        u32::try_from((u64::from(n) * u64::from(layers_here)).div_ceil(all)).unwrap_or(u32::MAX)
    };
    let (full, sliding, linear) = match (arch.layer_kinds, arch.sliding_window) {
        (Some(k), _) => (share(k.full), share(k.sliding), share(k.linear)),
        // A window on every layer (Mistral-7B-v0.1): one sliding group.
        (None, Some(_)) => (0, layers_here, 0),
        (None, None) => (layers_here, 0, 0),
    };
    let window = arch.sliding_window.unwrap_or(u32::MAX);
    let buckets: Vec<(Kind, u32)> = [(Kind::Full, full), (Kind::Sliding(window), sliding), (Kind::Linear, linear)]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect();
    if buckets.is_empty() {
        return Err("num_hidden_layers");
    }
    // `_get_kv_cache_groups_uniform_page_size`: groups of the smallest bucket's
    // size (or the largest's, when within 1.5x of it); a bucket splits into
    // cdiv(layers, group_size) groups.
    let min = buckets.iter().map(|b| b.1).min().unwrap_or(1);
    let max = buckets.iter().map(|b| b.1).max().unwrap_or(1);
    let group_size = if f64::from(max) < 1.5 * f64::from(min) { max } else { min };
    let groups: Vec<(Kind, u64)> = buckets.iter().map(|(kind, n)| (*kind, u64::from(n.div_ceil(group_size)))).collect();
    let mut block_size = BLOCK_SIZE;
    if linear > 0
        && let Some(state) = linear_state_bytes(arch, tp, elem)
    {
        // `_align_hybrid_block_size`: attention pages grow to hold a state.
        let tokens = (state / per_token_per_layer).ceil().min(f64::from(1u32 << 24)) as u64;
        block_size = tokens.div_ceil(BLOCK_SIZE).max(1) * BLOCK_SIZE;
    }
    let attention_layers = full + sliding;
    let state = if linear > 0 { linear_state_bytes(arch, tp, elem).unwrap_or(0.0) } else { 0.0 };
    Ok(Layout {
        state_bytes_per_request: state * f64::from(linear),
        block_size,
        bytes_per_block: f64::from(group_size) * per_token_per_layer * block_size as f64,
        bytes_per_token: per_token_per_layer * f64::from(attention_layers.max(1)),
        groups,
        // Batches in flight with async scheduling on Model Runner V2 (both vLLM
        // 0.33's defaults): pipeline stages + 1 (`max_concurrent_batches`).
        in_flight_tokens: u64::from(serving.pipeline_parallel_size.max(1) + 1)
            * u64::from(serving.max_num_batched_tokens),
        prefix_caching: serving.prefix_caching,
    })
}

/// One linear-attention layer's state per request (Qwen3-Next / Qwen3.5 gated
/// delta net, Nemotron-H's Mamba-2): the recurrent state (value heads x key
/// dim x value dim, at its own dtype where the config fixes one) and the
/// convolution's last `kernel - 1` inputs, at the cache's dtype, split by TP.
fn linear_state_bytes(arch: &Arch, tp: u32, elem: f64) -> Option<f64> {
    let l = arch.linear.as_ref()?;
    let tp = f64::from(tp.max(1));
    let state = f64::from(l.value_heads) * f64::from(l.key_dim) * f64::from(l.value_dim);
    let conv = (2.0 * f64::from(l.key_heads) * f64::from(l.key_dim)
        + f64::from(l.value_heads) * f64::from(l.value_dim))
        * f64::from(l.conv_kernel.saturating_sub(1));
    let state_elem = l.state_dtype.map_or(elem, crate::model::CheckpointDtype::bytes);
    Some((state * state_elem + conv * elem) / tp)
}
