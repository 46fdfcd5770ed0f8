use crate::diagnostic::Target;
use crate::rules::{ConfigContext, SettingsContext};

declare_rule! {
    /// # Concurrency above `max_num_seqs`: the test measures queueing
    ///
    /// **What:** the load test keeps more requests in flight than the server
    /// runs at once (`max_num_seqs`, per instance).
    ///
    /// **Why:** the extra requests wait in vLLM's queue, so their TTFT includes
    /// queueing time. That is right if you mean to measure overload, misleading
    /// if you meant to measure the server's own speed.
    ///
    /// **Example:** `"concurrency": 512` against `max_num_seqs = 256`.
    ///
    /// **Fix:** keep `concurrency` at or below `max_num_seqs` to measure the
    /// server, or keep it above on purpose and read TTFT as queue + prefill.
    pub static RULE = { code: "CFG503", name: "concurrency-above-max-num-seqs", severity: Warning, pair }
}

fn check(d: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let seqs = d.batch.max_num_seqs;
    if settings.concurrency <= seqs {
        return;
    }
    let origin = if d.batch.seqs_explicit { "max_num_seqs" } else { "vLLM's default max_num_seqs" };
    out.push(
        RULE.finding(format!("concurrency {} is above {origin} ({seqs}): {} requests wait in the server queue, and TTFT includes that wait", settings.concurrency, settings.concurrency - seqs), Target::settings("/concurrency"))
            .help(format!("lower concurrency to {seqs} to measure the server itself, or keep it to measure queueing under overload")),
    );
}
