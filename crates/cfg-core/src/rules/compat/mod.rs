//! Model, GPU and parallelism compatibility: vLLM 0.33's start-up checks on
//! dtype, quantization, KV-cache dtype and tensor/pipeline sizes.

pub mod attention_heads_not_divisible;
pub mod bfloat16_unsupported_gpu;
pub mod checkpoint_quantization_unsupported;
pub mod float16_unsupported_model;
pub mod fp8_kv_cache_no_backend;
pub mod kv_cache_dtype_invalid;
pub mod kv_cache_dtype_mismatch;
pub mod kv_heads_not_divisible;
pub mod no_vllm_equivalent;
pub mod pipeline_exceeds_layers;
pub mod pipeline_parallel_unsupported;
pub mod quantization_dtype_mismatch;
pub mod quantization_needs_newer_gpu;
pub mod quantization_not_on_rocm;
pub mod quantization_unsupported;
pub mod unknown_gpu;
pub mod unknown_model;
pub mod world_size_exceeds_gpus;
