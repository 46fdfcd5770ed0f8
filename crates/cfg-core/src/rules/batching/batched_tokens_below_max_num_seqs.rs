use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `max_num_batched_tokens` is smaller than `max_num_seqs`
    ///
    /// **What:** a step may hold more sequences than tokens, but every running
    /// sequence needs at least one token per step.
    ///
    /// **Why:** vLLM refuses to start: `max_num_batched_tokens (512) must be
    /// greater than or equal to max_num_seqs (1024).` vLLM never clamps values
    /// you set explicitly, so this fires even though its defaults would not.
    ///
    /// **Example:** `max_num_batched_tokens = 512` with `max_num_seqs = 1024`.
    ///
    /// **Fix:** raise `max_num_batched_tokens` or lower `max_num_seqs`.
    pub static RULE = { code: "CFG102", name: "batched-tokens-below-max-num-seqs", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let b = d.batch;
    if b.max_num_batched_tokens >= b.max_num_seqs || !(b.tokens_explicit || b.seqs_explicit) {
        return;
    }
    let pointer = if b.tokens_explicit { "/batching/max_num_batched_tokens" } else { "/batching/max_num_seqs" };
    let default = ", vLLM's default for this GPU";
    let tokens_note = if b.tokens_explicit { "" } else { default };
    let seqs_note = if b.seqs_explicit { "" } else { default };
    out.push(
        RULE.finding(
            format!("max_num_batched_tokens ({}{tokens_note}) must be greater than or equal to max_num_seqs ({}{seqs_note})", b.max_num_batched_tokens, b.max_num_seqs),
            Target::config(pointer),
        )
        .label("vLLM refuses to start")
        .help(format!("raise max_num_batched_tokens to at least {} or lower max_num_seqs to {}", b.max_num_seqs, b.max_num_batched_tokens)),
    );
}
