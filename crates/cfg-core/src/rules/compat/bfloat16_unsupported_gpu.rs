use crate::diagnostic::Target;
use crate::model::Dtype;
use crate::rules::ConfigContext;

declare_rule! {
    /// # bfloat16 on a GPU older than compute capability 8.0
    ///
    /// **What:** `dtype = "bfloat16"` on a Turing or Volta GPU (T4, V100,
    /// RTX 20xx).
    ///
    /// **Why:** the worker stops at start-up (`CudaPlatformBase.check_if_supports_dtype`,
    /// `vllm/platforms/cuda.py`): `Bfloat16 is only supported on GPUs with
    /// compute capability of at least 8.0. Your Tesla T4 GPU has compute
    /// capability 7.5. You can use float16 instead by explicitly setting the
    /// `dtype` flag in CLI, for example: --dtype=half.` With `dtype = "auto"`
    /// vLLM falls back to float16 by itself.
    ///
    /// **Example:** `dtype = "bfloat16"` with `[hardware] gpu = "T4"`.
    ///
    /// **Fix:** set `dtype = "float16"` (or `"auto"`).
    pub static RULE = { code: "CFG301", name: "bfloat16-unsupported-gpu", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(gpu) = &d.gpu else { return };
    let (Some(cap), Some((major, minor))) = (gpu.capability_code(), gpu.compute_capability) else { return };
    if config.model.dtype != Some(Dtype::Bfloat16) || cap >= 80 {
        return;
    }
    out.push(
        RULE.finding(format!("the {} cannot run bfloat16 (compute capability {major}.{minor}, below 8.0)", gpu.name), Target::config("/model/dtype"))
            .label(format!("vLLM refuses to start: \"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your {} GPU has compute capability {major}.{minor}. You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half.\"", gpu.name))
            .help("set dtype = \"float16\" (or \"auto\", which falls back to float16 on this GPU)"),
    );
}
