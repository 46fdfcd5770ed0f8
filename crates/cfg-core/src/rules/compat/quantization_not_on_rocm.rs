use crate::catalog::Vendor;
use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::quantization::refused_on_rocm;

declare_rule! {
    /// # The quantization method is not available on ROCm
    ///
    /// **What:** an AMD GPU, and a quantization method (written, or the
    /// checkpoint's, as vLLM resolves it) outside ROCm's allow-list
    /// (`ROCmPlatform.supported_quantization` in `vllm/platforms/rocm.py`,
    /// checked by `Platform.verify_quantization` from
    /// `ModelConfig._verify_quantization`): `gptq_marlin`, `moe_wna16`,
    /// `experts_int8`, `humming`, `fp_quant`, `int8_per_channel_weight_only` and
    /// `nvfp4_per_token`. `gptq_marlin` on a GPTQ checkpoint resolves to
    /// `auto_gptq` and is accepted.
    ///
    /// **Why:** vLLM refuses to start: `moe_wna16 quantization is currently not
    /// supported in rocm.`
    ///
    /// **Example:** `quantization = "experts_int8"` on an `MI300X`.
    ///
    /// **Fix:** use a method ROCm supports (`fp8`, `awq`, `gptq`,
    /// `compressed-tensors`, `quark`, ...).
    pub static RULE = { code: "CFG317", name: "quantization-not-on-rocm", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (Ok(Some(method)), Some(gpu)) = (&d.quantization, &d.gpu) else { return };
    if gpu.vendor != Vendor::Amd || !refused_on_rocm(&method.name) {
        return;
    }
    let pointer = if method.from_checkpoint { "/model/name" } else { "/model/quantization" };
    out.push(
        RULE.finding(
            format!("{} quantization does not run on the {} (ROCm)", method.name, gpu.name),
            Target::config(pointer),
        )
        .label(format!("vLLM refuses to start: \"{} quantization is currently not supported in rocm.\"", method.name))
        .help("use a method ROCm supports: fp8, awq, gptq, compressed-tensors, quark, mxfp4, ..."),
    );
}
