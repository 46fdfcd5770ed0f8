use crate::diagnostic::{Severity, Target};
use crate::rules::ConfigContext;

declare_rule! {
    /// # `gpu_memory_utilization` leaves no room for the CUDA context
    ///
    /// **What:** `gpu_memory_utilization` of 1.0, or 0.98 and above.
    ///
    /// **Why:** vLLM measures free memory *after* creating the CUDA context,
    /// NCCL and cuBLAS, which take a few hundred MiB (more with tensor
    /// parallelism). At 1.0 it always stops with `Free memory on device ... on
    /// startup is less than desired GPU memory utilization`; close to 1.0 it
    /// fails as soon as anything else holds GPU memory.
    ///
    /// **Example:** `gpu_memory_utilization = 1.0`
    ///
    /// **Fix:** use 0.90 to 0.95.
    pub static RULE = { code: "CFG206", name: "gpu-memory-utilization-too-high", severity: Error, config }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let Some(util) = config.model.gpu_memory_utilization else { return };
    let target = Target::config("/model/gpu_memory_utilization");
    if util >= 1.0 {
        out.push(
            RULE.finding(
                "gpu_memory_utilization = 1.0 always fails: the CUDA context already holds memory when vLLM checks",
                target,
            )
            .label("vLLM refuses to start")
            .help("use 0.90 to 0.95"),
        );
    } else if util >= 0.98 {
        let mut f = RULE
            .finding(
                format!(
                    "gpu_memory_utilization = {util} leaves under 2% for the CUDA context, NCCL and other processes"
                ),
                target,
            )
            .help("use 0.90 to 0.95 unless you have measured the head-room");
        f.severity = Severity::Warning;
        out.push(f);
    }
}
