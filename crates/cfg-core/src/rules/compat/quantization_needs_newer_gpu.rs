use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::quantization::capability_refusal;

declare_rule! {
    /// # The quantization method needs a newer GPU
    ///
    /// **What:** the minimum compute capability of the method `quantization`
    /// resolves to is above the GPU's. vLLM checks the resolved name
    /// (`VllmConfig._get_quantization_config` in `vllm/config/vllm.py`, with
    /// each method's `get_min_capability()`): `quantization = "gptq"` on a GPTQ
    /// checkpoint runs as `auto_gptq`. For example `mxfp4` and `modelopt` need
    /// 8.0 (Ampere), `fp_quant` 10.0 (Blackwell), `awq` and `fp8` 7.5. A
    /// checkpoint's own method is CFG316's.
    ///
    /// **Why:** vLLM refuses to start: `The quantization method X is not
    /// supported for the current GPU. Minimum capability: 80. Current
    /// capability: 75.`
    ///
    /// **Example:** `quantization = "experts_int8"` on a `T4` (7.5).
    ///
    /// **Fix:** pick a method the GPU supports (`gptq_marlin` runs from 6.0,
    /// `awq_marlin` and `fp8` weight-only from 7.5), or a newer GPU.
    pub static RULE = { code: "CFG303", name: "quantization-needs-newer-gpu", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (Ok(Some(method)), Some(gpu)) = (&d.quantization, &d.gpu) else { return };
    let (Some(cap), false) = (gpu.capability_code(), method.from_checkpoint) else { return };
    let Some(vllm_says) = capability_refusal(&method.name, cap) else { return };
    out.push(
        RULE.finding(format!("{} cannot run {} quantization", gpu.name, method.name), Target::config("/model/quantization"))
            .label(format!("vLLM refuses to start: \"{vllm_says}\""))
            .help("choose a method this GPU supports (gptq_marlin from 6.0, awq_marlin and fp8 weight-only from 7.5) or a newer GPU"),
    );
}
