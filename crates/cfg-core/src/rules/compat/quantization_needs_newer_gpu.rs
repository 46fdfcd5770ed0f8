use super::min_capability;
use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # The quantization method needs a newer GPU
    ///
    /// **What:** the method's minimum compute capability (vLLM's
    /// `get_min_capability()`) is above the GPU's: for example `mxfp4` and
    /// `modelopt` need 8.0 (Ampere), `fp_quant` needs 10.0 (Blackwell), `awq`
    /// and `fp8` need 7.5.
    ///
    /// **Why:** vLLM refuses to start: `The quantization method X is not
    /// supported for the current GPU. Minimum capability: 80. Current
    /// capability: 75.`
    ///
    /// **Example:** `quantization = "mxfp4"` on a `T4` (7.5).
    ///
    /// **Fix:** pick a method the GPU supports (`awq`/`gptq` run from 7.5/6.0),
    /// or a newer GPU.
    pub static RULE = { code: "CFG303", name: "quantization-needs-newer-gpu", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let (Some(q), Some(gpu)) = (config.model.quantization, &d.gpu) else { return };
    let Some(cap) = gpu.capability_code() else { return };
    let min = min_capability(q);
    if cap >= min {
        return;
    }
    out.push(
        RULE.finding(
            format!("the quantization method {} is not supported on the {}: minimum capability {min}, current capability {cap}", q.as_str(), gpu.name),
            Target::config("/model/quantization"),
        )
        .label("vLLM refuses to start")
        .help("choose a method this GPU supports (gptq_marlin from 6.0, awq_marlin and fp8 weight-only from 7.5) or a newer GPU"),
    );
}
