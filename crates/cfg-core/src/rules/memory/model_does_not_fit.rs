use super::breakdown;
use crate::diagnostic::Target;
use crate::memory::{gib, quantization_suggestion, tensor_parallel_advice};
use crate::rules::ConfigContext;

declare_rule! {
    /// # The model does not fit in `gpu_memory_utilization` of the GPU
    ///
    /// **What:** per GPU, the weights (divided by tensor x pipeline parallel
    /// size), the activation peak, non-torch memory and the CUDA-graph pool leave
    /// at most one KV block within `memory x gpu_memory_utilization` (vLLM
    /// fails when the KV memory is at most one block's bytes).
    ///
    /// **Why:** when the weights alone exceed the GPU's memory, vLLM runs out of memory
    /// loading them (`torch.OutOfMemoryError`, which vLLM does not wrap); when the
    /// weights fit but the overheads leave nothing, it stops after profiling with
    /// `No available memory for the cache blocks. Try increasing
    /// gpu_memory_utilization when initializing the engine.`
    /// (`v1/core/kv_cache_planning.py::_check_enough_kv_cache_memory`). Either
    /// way, after minutes of loading.
    ///
    /// **Example:** `meta-llama/Llama-3.1-70B-Instruct` in bf16 on one
    /// `H100-80GB`: 131 GiB of weights on an 80 GiB GPU.
    ///
    /// **Fix:** split the model over more GPUs (`tensor_parallel_size`),
    /// quantize it (fp8 halves bf16 weights), use a bigger GPU, or raise
    /// `gpu_memory_utilization` if it is low. Run `cfg-lint memory` for the
    /// breakdown.
    pub static RULE = { code: "CFG201", name: "model-does-not-fit", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let (Ok(r), Some(gpu)) = (&d.memory, &d.gpu) else { return };
    if !r.no_cache_memory() && r.weights_bytes <= r.gpu_total_bytes {
        return;
    }
    let mut fixes = Vec::new();
    if let Some(advice) = tensor_parallel_advice(config, gpu, &d.arch) {
        fixes.push(advice);
    }
    if !crate::memory::is_quantized(config, &d.arch) {
        fixes.push(format!("quantize the weights (quantization = \"{}\")", quantization_suggestion(gpu).as_str()));
    }
    if r.gpu_memory_utilization < 0.9 {
        fixes.push("raise gpu_memory_utilization".into());
    }
    fixes.push("use a GPU with more memory".into());
    let short = r.weights_bytes + r.activation_bytes + r.non_torch_bytes + r.cuda_graph_bytes - r.budget_bytes;
    // Weights larger than the device never finish loading: vLLM runs out of memory
    // before it can measure anything, with PyTorch's error and no message of its own.
    // Weights that load but leave the budget nothing fail after profiling instead.
    let (message, vllm_says) = if r.weights_bytes > r.gpu_total_bytes {
        (
            format!(
                "{} of weights per GPU do not fit on the {} ({} per GPU)",
                gib(r.weights_bytes),
                r.gpu,
                gib(r.gpu_total_bytes)
            ),
            "vLLM would fail loading the weights with torch.OutOfMemoryError (CUDA out of memory)",
        )
    } else {
        (
            format!(
                "no memory left for the KV cache on the {}: weights and overheads exceed the budget by {}",
                r.gpu,
                gib(short.max(0.0))
            ),
            "vLLM would stop with \"No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\"",
        )
    };
    let pointer = if d.has("/model/gpu_memory_utilization") { "/model/gpu_memory_utilization" } else { "/model/name" };
    out.push(
        RULE.finding(message, Target::config(pointer))
            .label(breakdown(r))
            .help(format!("{}; {vllm_says}", fixes.join(", or "))),
    );
}
