use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # More GPUs needed than the node has
    ///
    /// **What:** `tensor_parallel_size x pipeline_parallel_size` (vLLM's world
    /// size) is larger than `[hardware] gpu_count`.
    ///
    /// **Why:** vLLM refuses to start: `World size (8) is larger than the
    /// number of available GPUs (4) in this node.`
    ///
    /// **Example:** `tensor_parallel_size = 8` with `gpu_count = 4`.
    ///
    /// **Fix:** lower the parallel sizes, or use a node with more GPUs
    /// (multi-node runs need Ray and `--distributed-executor-backend ray`).
    pub static RULE = { code: "CFG310", name: "world-size-exceeds-gpus", severity: Error, config }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let Some(count) = config.hardware.as_ref().and_then(|h| h.gpu_count) else { return };
    let (tp, pp) = (config.tensor_parallel_size(), config.pipeline_parallel_size());
    let world = tp * pp;
    if world <= count {
        return;
    }
    let pointer = if c.has("/parallel/tensor_parallel_size") {
        "/parallel/tensor_parallel_size"
    } else {
        "/parallel/pipeline_parallel_size"
    };
    out.push(
        RULE.finding(format!("world size {world} (tensor {tp} x pipeline {pp}) is larger than the {count} GPU(s) in this node"), Target::config(pointer))
            .label("vLLM refuses to start")
            .help(format!("make tensor_parallel_size x pipeline_parallel_size at most {count}, or raise hardware.gpu_count if the node has more GPUs")),
    );
}
