use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # KV heads and `tensor_parallel_size` do not divide
    ///
    /// **What:** with grouped-query attention the KV heads are split across
    /// GPUs (when `tp < kv_heads`, `kv_heads % tp` must be 0) or replicated
    /// (when `tp >= kv_heads`, `tp % kv_heads` must be 0).
    ///
    /// **Why:** model construction fails in `QKVParallelLinear` with
    /// `AssertionError: 8 is not divisible by 6`, after the process started.
    ///
    /// **Example:** Llama-3.1-8B (8 KV heads) with `tensor_parallel_size = 16`
    /// works (replicated), with a model of 40 heads and 8 KV heads and
    /// `tensor_parallel_size = 5` it does not.
    ///
    /// **Fix:** choose a size that divides the KV heads, or a multiple of them.
    pub static RULE = { code: "CFG309", name: "kv-heads-not-divisible", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    if d.arch.is_mla() {
        return;
    }
    let Some(kv) = d.arch.num_key_value_heads else { return };
    let tp = config.tensor_parallel_size();
    let ok = if tp >= kv { tp.is_multiple_of(kv) } else { kv.is_multiple_of(tp) };
    if tp <= 1 || ok {
        return;
    }
    let (a, b) = if tp >= kv { (tp, kv) } else { (kv, tp) };
    out.push(
        RULE.finding(
            format!("{kv} KV heads cannot be split over tensor_parallel_size {tp}: {a} is not divisible by {b}"),
            Target::config("/parallel/tensor_parallel_size"),
        )
        .label("vLLM fails while building the model")
        .help(format!("use a tensor_parallel_size that divides {kv} or is a multiple of it")),
    );
}
