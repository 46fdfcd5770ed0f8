use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Attention heads not divisible by `tensor_parallel_size`
    ///
    /// **What:** tensor parallelism splits the attention heads evenly across
    /// GPUs, so their number must divide by `tensor_parallel_size`.
    ///
    /// **Why:** vLLM refuses to start: `Total number of attention heads (40)
    /// must be divisible by tensor parallel size (3).`
    ///
    /// **Example:** `Qwen/Qwen2.5-14B-Instruct` (40 heads) with
    /// `tensor_parallel_size = 3`.
    ///
    /// **Fix:** choose a size that divides the head count (usually 1, 2, 4 or 8).
    pub static RULE = { code: "CFG308", name: "attention-heads-not-divisible", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(heads) = d.arch.num_attention_heads else { return };
    let tp = config.tensor_parallel_size();
    if tp <= 1 || heads % tp == 0 {
        return;
    }
    let valid: Vec<String> =
        (1..=heads.min(64)).filter(|n| heads % n == 0 && n.is_power_of_two()).map(|n| n.to_string()).collect();
    out.push(
        RULE.finding(
            format!("total number of attention heads ({heads}) must be divisible by tensor parallel size ({tp})"),
            Target::config("/parallel/tensor_parallel_size"),
        )
        .label("vLLM refuses to start")
        .help(format!("use a tensor_parallel_size that divides {heads}: {}", valid.join(", "))),
    );
}
