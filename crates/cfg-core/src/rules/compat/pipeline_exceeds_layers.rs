use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # More pipeline stages than layers
    ///
    /// **What:** `pipeline_parallel_size` is larger than the model's number of
    /// layers, so some stages would hold no layer at all.
    ///
    /// **Why:** vLLM splits `num_hidden_layers // pp` layers per stage; stages
    /// without layers waste GPUs, and vLLM's behaviour there is untested.
    ///
    /// **Example:** `pipeline_parallel_size = 32` for a 16-layer model.
    ///
    /// **Fix:** use at most as many stages as layers (in practice far fewer).
    pub static RULE = { code: "CFG313", name: "pipeline-exceeds-layers", severity: Warning, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(layers) = d.arch.num_hidden_layers else { return };
    let pp = config.pipeline_parallel_size();
    if pp <= layers {
        return;
    }
    out.push(
        RULE.finding(
            format!("pipeline_parallel_size ({pp}) is larger than the model's {layers} layers"),
            Target::config("/parallel/pipeline_parallel_size"),
        )
        .help(format!("use at most {layers} pipeline stages")),
    );
}
