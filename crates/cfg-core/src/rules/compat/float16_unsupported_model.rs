use crate::diagnostic::Target;
use crate::model::Dtype;
use crate::resolve::FLOAT16_UNSUPPORTED;
use crate::rules::ConfigContext;

declare_rule! {
    /// # float16 on a model that forbids it
    ///
    /// **What:** `dtype = "float16"` (or `"half"`) for a Gemma 2, Gemma 3 or
    /// GLM-4 model.
    ///
    /// **Why:** vLLM refuses to start: `The model type 'gemma2' does not
    /// support float16. Reason: Numerical instability. Please use bfloat16 or
    /// float32 instead.`
    ///
    /// **Example:** `name = "google/gemma-2-9b"` with `dtype = "float16"`.
    ///
    /// **Fix:** use `bfloat16` (needs compute capability 8.0) or `float32`.
    pub static RULE = { code: "CFG307", name: "float16-unsupported-model", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(model_type) = d.arch.model_type.as_deref() else { return };
    if !matches!(config.model.dtype, Some(Dtype::Float16 | Dtype::Half)) || !FLOAT16_UNSUPPORTED.contains(&model_type) {
        return;
    }
    out.push(
        RULE.finding(
            format!("the model type '{model_type}' does not support float16 (numerical instability)"),
            Target::config("/model/dtype"),
        )
        .label("vLLM refuses to start")
        .help("set dtype = \"bfloat16\" (compute capability 8.0+) or \"float32\""),
    );
}
