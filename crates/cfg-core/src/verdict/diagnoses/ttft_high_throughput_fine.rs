use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # TTFT is high while decoding keeps up: prefill queueing
    ///
    /// **What:** P99 TTFT is over its SLA while TPOT is within its limit and the
    /// error rate is fine.
    ///
    /// **Why:** decoding keeps pace, so the time goes into waiting for prefill:
    /// too many sequences share each step, or long prompts block short ones.
    ///
    /// **Advice:** a lower `max_num_seqs` with its simulated effect (only when
    /// the simulator predicts it helps at this run's load), or route long
    /// prompts to an instance pool of their own. The evidence names the slowest
    /// class.
    pub static DIAGNOSIS = { code: "ttft-high-throughput-fine", severity: Warning, title: "TTFT is high while decoding keeps up: prefill queueing", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let (limit, p99) = (f.sla.ttft_p99_ms?, f.ttft_p99?);
    let tpot_ok = match (f.sla.tpot_p99_ms, f.tpot_p99) {
        (Some(l), Some(v)) => v <= l,
        _ => true,
    };
    if !(p99 > limit && tpot_ok && f.result.error_rate <= f.error_limit) {
        return None;
    }
    let mut advice: Vec<String> = super::knobs::lower_max_num_seqs(f).into_iter().collect();
    advice.push("route long prompts to a separate instance pool so they stop blocking short ones".into());
    let mut found = Found {
        evidence: format!("P99 TTFT {p99:.0} ms over the {limit:.0} ms SLA while TPOT is within its limit"),
        advice,
    };
    let slowest = f
        .result
        .per_class
        .iter()
        .filter_map(|(name, c)| Some((name, c.ttft_ms.get("p99")?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((name, v)) = slowest {
        found.evidence.push_str(&format!("; the slowest class is `{name}` (P99 TTFT {v:.0} ms)"));
    }
    Some(found)
}
