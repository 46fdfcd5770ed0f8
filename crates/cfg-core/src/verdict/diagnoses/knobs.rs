//! Advice that changes a knob is simulated before it is given: the verdict
//! names the new value with its predicted effect, or says nothing.

use crate::verdict::Facts;

/// "max_num_seqs N: TTFT p99 A -> B ms, throughput +X%", when the simulator,
/// driven by this run's traffic mix and concurrency, predicts a lower value
/// cuts P99 TTFT by at least a tenth; `None` otherwise.
///
/// At most `concurrency` requests run at once, so when the run's concurrency
/// is not above `max_num_seqs` a lower cap cannot shorten any prefill wait:
/// it only makes requests queue before theirs. Then no advice is given at all
/// (the run's own figures rule it out) and nothing is simulated.
pub(super) fn lower_max_num_seqs(f: &Facts<'_>) -> Option<String> {
    let config = f.config?;
    let current = crate::sim::instance(config).ok()?.engine.max_num_seqs;
    let concurrency = f.settings.concurrency;
    if concurrency <= current {
        return None;
    }
    let mut values = vec![current];
    values.extend([current / 2, current / 4].into_iter().filter(|&v| v >= 1 && v < current));
    values.dedup();
    let points = crate::sim::sweep_max_num_seqs(config, f.settings, &values, 60.0).ok()?;
    let now = &points[0];
    let (now_ttft, now_tput) = (now.ttft_p99_ms?, now.output_tokens_per_sec);
    let (best, ttft) =
        points[1..].iter().filter_map(|p| Some((p, p.ttft_p99_ms?))).min_by(|a, b| a.1.total_cmp(&b.1))?;
    if ttft > 0.9 * now_ttft {
        return None;
    }
    let change = (best.output_tokens_per_sec / now_tput.max(1e-9) - 1.0) * 100.0;
    Some(format!(
        "max_num_seqs {}: TTFT p99 {now_ttft:.0} -> {ttft:.0} ms, throughput {change:+.0}% (simulated at {}, from {current})",
        best.value,
        crate::sim::load_description(f.settings)
    ))
}
