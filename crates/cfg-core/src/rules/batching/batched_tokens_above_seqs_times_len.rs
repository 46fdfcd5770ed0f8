use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_num_batched_tokens` exceeds `max_num_seqs x max_model_len`
    ///
    /// **What:** a step may schedule more tokens than all running sequences
    /// together could ever hold.
    ///
    /// **Why:** vLLM warns `max_num_batched_tokens exceeds max_num_seqs *
    /// max_model_len. This may lead to unexpected behavior.` The extra budget
    /// is never used but still sizes the profiling run, so activation memory is
    /// reserved for nothing and the KV cache shrinks.
    ///
    /// **Example:** `max_num_seqs = 2`, `max_model_len = 1024`,
    /// `max_num_batched_tokens = 8192`.
    ///
    /// **Fix:** lower `max_num_batched_tokens` to at most
    /// `max_num_seqs x max_model_len`.
    pub static RULE = { code: "CFG103", name: "batched-tokens-above-seqs-times-len", severity: Warning, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let b = d.batch;
    let cap = u64::from(b.max_num_seqs) * u64::from(b.declared_max_model_len);
    if !b.tokens_explicit || u64::from(b.max_num_batched_tokens) <= cap {
        return;
    }
    out.push(
        RULE.finding(
            format!("max_num_batched_tokens ({}) exceeds max_num_seqs * max_model_len ({cap})", b.max_num_batched_tokens),
            Target::config("/batching/max_num_batched_tokens"),
        )
        .help(format!("lower max_num_batched_tokens to {cap} or less; the excess only inflates the activation memory vLLM reserves")),
    );
}
