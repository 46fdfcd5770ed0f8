use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::registry::without_pipeline_parallel;

declare_rule! {
    /// # Pipeline parallelism on a model that cannot be split into stages
    ///
    /// **What:** `pipeline_parallel_size` above 1 for a model whose architecture
    /// (config.json's `architectures`) does not implement vLLM's `SupportsPP`
    /// interface: Gemma 3n, Mamba 2, Zamba 2, Phi-4-multimodal, Whisper,
    /// Idefics 3, SmolVLM and most embedding models
    /// (`ModelConfig.verify_with_parallel_config` in `vllm/config/model.py`, the
    /// registry in `vllm/model_executor/models/registry.py`).
    ///
    /// **Why:** vLLM refuses to start: `Pipeline parallelism is not supported
    /// for this model. Supported models implement the `SupportsPP` interface.`
    ///
    /// **Example:** `name = "google/gemma-3n-E4B-it"` with
    /// `pipeline_parallel_size = 2`.
    ///
    /// **Fix:** use tensor parallelism instead (`tensor_parallel_size`), or one
    /// GPU per replica.
    pub static RULE = { code: "CFG318", name: "pipeline-parallel-unsupported-model", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let pp = d.config.pipeline_parallel_size();
    if pp <= 1 {
        return;
    }
    let Some(arch) = without_pipeline_parallel(&d.arch.architectures) else { return };
    out.push(
        RULE.finding(format!("{arch} cannot be split into {pp} pipeline stages"), Target::config("/parallel/pipeline_parallel_size"))
            .label("vLLM refuses to start: \"Pipeline parallelism is not supported for this model. Supported models implement the `SupportsPP` interface.\"")
            .help("use tensor_parallel_size instead, and pipeline_parallel_size = 1"),
    );
}
