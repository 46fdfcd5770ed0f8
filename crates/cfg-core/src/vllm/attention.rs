//! Which attention backend vLLM 0.33 picks for an fp8 KV cache on CUDA, and
//! when none takes it (`CudaPlatformBase.get_attn_backend_cls` in
//! `vllm/platforms/cuda.py`; each backend's `validate_configuration` and
//! constructor under `vllm/v1/attention/backends/`).
//!
//! FlashAttention takes fp8 only on SM90 and SM100 (FA3/FA4); FlashInfer from
//! 8.0 for head sizes 64, 128, 256 and 512 with a 16-bit model and no attention
//! sinks; everything else falls to Triton, whose constructor refuses fp8 below
//! SM89. MLA models end on Triton MLA below 8.9, with the same refusal.

use crate::catalog::Vendor;
use crate::model::KvCacheDtype;
use crate::resolve::{Arch, Gpu, ResolvedDtype};

/// vLLM's refusal of an fp8 KV cache on this GPU and model, if it refuses.
pub fn fp8_kv_refusal(arch: &Arch, gpu: &Gpu, dtype: ResolvedDtype, kv: KvCacheDtype) -> Option<String> {
    use KvCacheDtype::*;
    if !matches!(kv, Fp8 | Fp8E4m3 | Fp8E5m2 | Fp8PerTokenHead) || gpu.vendor != Vendor::Nvidia {
        return None;
    }
    let (major, minor) = gpu.compute_capability?;
    let cap = u32::from(major) * 10 + u32::from(minor);
    if cap >= 89 {
        return None;
    }
    let flashinfer = cap >= 80
        && !arch.is_mla()
        && matches!(kv, Fp8 | Fp8E4m3 | Fp8E5m2)
        && arch.head_dim().is_some_and(|h| matches!(h, 64 | 128 | 256 | 512))
        && dtype != ResolvedDtype::Float32
        && !has_attention_sinks(arch);
    if flashinfer {
        return None;
    }
    let backend = if arch.is_mla() { "Triton MLA" } else { "Triton attention" };
    let suggested = if cap < 80 { "float16" } else { "bfloat16" };
    Some(format!(
        "FP8 KV cache is not supported by the {backend} backend on {} (compute capability {major}.{minor}); native FP8 \
         (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype {suggested}.",
        gpu.name
    ))
}

/// Models whose attention has learned sinks (gpt-oss), which FlashInfer takes
/// only on 9.0, 10.x and 12.x.
fn has_attention_sinks(arch: &Arch) -> bool {
    arch.model_type.as_deref() == Some("gpt_oss")
}
