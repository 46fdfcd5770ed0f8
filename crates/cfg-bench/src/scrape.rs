//! Reads Prometheus text exposition: the vLLM gauges and counters the runner
//! watches, summed over label sets (one series per engine or model).

use std::collections::HashMap;

/// Sums every sample of each metric name (labels ignored).
pub fn parse(text: &str) -> HashMap<String, f64> {
    let mut out: HashMap<String, f64> = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name_part, rest) = match line.find('{') {
            Some(i) => {
                let close = line[i..].find('}').map(|j| i + j + 1).unwrap_or(line.len());
                (&line[..i], &line[close..])
            }
            None => match line.split_once(char::is_whitespace) {
                Some((n, r)) => (n, r),
                None => continue,
            },
        };
        let Some(value) = rest.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()) else { continue };
        *out.entry(name_part.to_string()).or_insert(0.0) += value;
    }
    out
}

pub const WAITING: &str = "vllm:num_requests_waiting";
pub const RUNNING: &str = "vllm:num_requests_running";
pub const KV_USAGE: &str = "vllm:kv_cache_usage_perc";
pub const PREEMPTIONS: &str = "vllm:num_preemptions_total";
pub const PROMPT_TOKENS: &str = "vllm:prompt_tokens_total";
pub const GENERATION_TOKENS: &str = "vllm:generation_tokens_total";
pub const DCGM_UTIL: &str = "DCGM_FI_DEV_GPU_UTIL";

/// Whether a queue kept growing: the last third clearly above the first and
/// a positive least-squares slope.
pub fn growing(points: &[(f64, f64)]) -> bool {
    if points.len() < 6 {
        return false;
    }
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let num: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let den: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = if den > 0.0 { num / den } else { 0.0 };
    let third = points.len() / 3;
    let mean = |s: &[(f64, f64)]| s.iter().map(|p| p.1).sum::<f64>() / s.len().max(1) as f64;
    let (first, last) = (mean(&points[..third]), mean(&points[points.len() - third..]));
    slope > 0.05 && last > 2.0 * first + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_label_sets_and_skips_comments() {
        let m = parse(
            "# HELP x\nvllm:num_requests_waiting{model_name=\"a\"} 3\nvllm:num_requests_waiting{model_name=\"b\"} 2.5\nvllm:prompt_tokens_total 100 1700000000\n",
        );
        assert_eq!(m[WAITING], 5.5);
        assert_eq!(m[PROMPT_TOKENS], 100.0);
    }

    #[test]
    fn growth_detection() {
        let rising: Vec<(f64, f64)> = (0..30).map(|i| (i as f64, i as f64)).collect();
        let flat: Vec<(f64, f64)> = (0..30).map(|i| (i as f64, (i % 3) as f64)).collect();
        assert!(growing(&rising));
        assert!(!growing(&flat));
    }
}
