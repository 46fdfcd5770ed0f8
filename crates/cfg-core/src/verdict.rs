//! Judging a result: the SLA checks (with the seed's 1.5 x rule for P99
//! TTFT), the seed's diagnoses as structured findings with their advice, and
//! the capacity plan. Pure functions of the result and the inputs, so the
//! runner, the report and the browser judge alike.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{BenchResult, LoadTestSettings, ServerConfig};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    /// True when every SLA check passed (and there was something to check).
    pub sla_met: bool,
    pub sla: Vec<SlaCheck>,
    pub findings: Vec<Diagnosis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityPlan>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SlaCheck {
    /// `ttft_p99_ms`, `tpot_p99_ms` or `error_rate`.
    pub name: String,
    pub limit: f64,
    pub actual: Option<f64>,
    pub pass: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Diagnosis {
    /// Stable identifier, e.g. `ttft-far-above-sla`.
    pub code: String,
    /// "error", "warning" or "info".
    pub severity: String,
    pub title: String,
    /// The figures that triggered it.
    pub evidence: String,
    /// What to do, in order.
    pub advice: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CapacityPlan {
    pub target_qps: f64,
    pub redundancy: f64,
    /// Successful requests per second one instance sustained in this test.
    pub per_instance_requests_per_sec: f64,
    /// ceil(target_qps x redundancy / per_instance_requests_per_sec).
    pub instances: u64,
    /// Requests per second each instance carries at the target with all instances up.
    pub load_per_instance: f64,
    /// Whether P99 TTFT stays inside the SLA at that load (null without a TTFT SLA).
    pub ttft_p99_holds: Option<bool>,
    pub explanation: String,
}

/// What the runner saw of the first requests, for the cold-start diagnosis.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ColdStart {
    /// TTFT of the very first request, in ms.
    pub first_ttft_ms: f64,
    /// How many of the first requests timed out or failed.
    pub first_failures: u64,
}

fn diag(code: &str, severity: &str, title: &str, evidence: String, advice: &[&str]) -> Diagnosis {
    Diagnosis {
        code: code.into(),
        severity: severity.into(),
        title: title.into(),
        evidence,
        advice: advice.iter().map(|a| a.to_string()).collect(),
    }
}

/// Judges a result against the settings' SLA and target.
pub fn judge(
    r: &BenchResult,
    settings: &LoadTestSettings,
    config: Option<&ServerConfig>,
    cold: Option<ColdStart>,
) -> Verdict {
    let sla = settings.sla.clone().unwrap_or_default();
    let ttft_p99 = r.ttft_ms.get("p99");
    let tpot_p99 = r.tpot_ms.get("p99");
    let mut checks = Vec::new();
    if let Some(limit) = sla.ttft_p99_ms {
        checks.push(SlaCheck {
            name: "ttft_p99_ms".into(),
            limit,
            actual: ttft_p99,
            pass: ttft_p99.is_some_and(|v| v <= limit),
        });
    }
    if let Some(limit) = sla.tpot_p99_ms {
        checks.push(SlaCheck {
            name: "tpot_p99_ms".into(),
            limit,
            actual: tpot_p99,
            pass: tpot_p99.is_some_and(|v| v <= limit),
        });
    }
    let error_limit = sla.error_rate.unwrap_or(0.01);
    checks.push(SlaCheck {
        name: "error_rate".into(),
        limit: error_limit,
        actual: Some(r.error_rate),
        pass: r.error_rate <= error_limit,
    });
    let sla_met = checks.iter().all(|c| c.pass) && r.requests.succeeded > 0;

    let mut findings = Vec::new();
    let max_num_seqs = config.and_then(|c| c.batching().max_num_seqs);

    if let (Some(limit), Some(p99)) = (sla.ttft_p99_ms, ttft_p99) {
        if p99 > 1.5 * limit {
            findings.push(diag(
                "ttft-far-above-sla",
                "error",
                "P99 TTFT is more than 1.5 x the SLA",
                format!("P99 TTFT {p99:.0} ms against an SLA of {limit:.0} ms ({:.1} x)", p99 / limit),
                &[
                    "lower max_num_seqs: fewer requests share each batch, so prefill waits less",
                    "or add instances: the load per instance is too high",
                ],
            ));
        }
        let tpot_ok = match (sla.tpot_p99_ms, tpot_p99) {
            (Some(l), Some(v)) => v <= l,
            _ => true,
        };
        if p99 > limit && tpot_ok && r.error_rate <= error_limit {
            let tail = r
                .per_class
                .iter()
                .filter_map(|(name, c)| Some((name.clone(), c.ttft_ms.get("p99")?)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let mut d = diag(
                "ttft-high-throughput-fine",
                "warning",
                "TTFT is high while decoding keeps up: prefill queueing",
                format!("P99 TTFT {p99:.0} ms over the {limit:.0} ms SLA while TPOT is within its limit"),
                &[
                    "max_num_seqs is too large for this mix: lower it so new prompts are prefilled sooner",
                    "or route long prompts to a separate instance pool so they stop blocking short ones",
                ],
            );
            if let Some((name, v)) = tail {
                d.evidence.push_str(&format!("; the slowest class is `{name}` (P99 TTFT {v:.0} ms)"));
            }
            findings.push(d);
        }
    }

    if let Some(util) = r.gpu_utilization_avg {
        if util < 0.5 {
            findings.push(diag(
                "gpu-idle",
                "warning",
                "Throughput is low while the GPU idles: batches are not full",
                format!("mean GPU utilisation {:.0}%", util * 100.0),
                &[
                    "raise max_num_batched_tokens so each step carries more work",
                    "or raise the test's concurrency: at this load the server is never busy enough to tell",
                ],
            ));
        }
    } else if let (Some(server), Some(mns)) = (&r.server, max_num_seqs) {
        let running: Vec<f64> = server.points.iter().filter_map(|p| p.running).collect();
        let waiting: Vec<f64> = server.points.iter().filter_map(|p| p.waiting).collect();
        if !running.is_empty() {
            let avg = running.iter().sum::<f64>() / running.len() as f64;
            let waiting_avg = waiting.iter().sum::<f64>() / waiting.len().max(1) as f64;
            if avg < 0.25 * f64::from(mns) && waiting_avg < 1.0 {
                findings.push(diag(
                    "batches-not-full",
                    "info",
                    "Batches are far from full",
                    format!("{avg:.1} requests running on average of max_num_seqs {mns}, nothing waiting"),
                    &[
                        "raise the test's concurrency (or rate) to find the server's real capacity",
                        "GPU utilisation was not available to confirm (give gpu_metrics_url)",
                    ],
                ));
            }
        }
    }

    // Below a hundred gaps the share says little.
    let together = r.tokens.itl_gaps_in_one_read as f64 / r.tokens.itl_gaps.max(1) as f64;
    if r.tokens.itl_gaps >= 100 && together >= 0.05 {
        findings.push(diag(
            "chunks-read-together",
            "warning",
            "Many tokens arrived in one read with the token before: ITL and TPOT understate",
            format!(
                "{:.0}% of the {} gaps between content chunks were inside one read (ITL 0)",
                together * 100.0,
                r.tokens.itl_gaps
            ),
            &[
                "if the runner shares its CPU with the server or is busy, give it cores of its own (--threads, --shard)",
                "if the server sends several tokens per write (a stream interval, a buffering gateway), \
                 the gaps are the server's and TPOT is still right on average",
            ],
        ));
    }

    if r.error_rate > 0.01 {
        let top: Vec<String> = r.errors.iter().take(3).map(|e| format!("{} x{}", e.kind, e.count)).collect();
        findings.push(diag(
            "error-rate-high",
            "error",
            "Error rate above 1%",
            format!("{:.2}% of requests failed ({})", r.error_rate * 100.0, top.join(", ")),
            &[
                "read the error classes and their samples below",
                "timeouts and 429/503 under load mean too little capacity; 4xx on every request mean a wrong request",
            ],
        ));
    }

    if let Some(server) = &r.server
        && server.queue_growing
    {
        findings.push(diag(
            "queue-growing",
            "error",
            "The server queue kept growing: not enough capacity",
            "vllm:num_requests_waiting rose steadily through the run".into(),
            &["add instances, or lower the load per instance", "check the capacity plan below"],
        ));
    }

    if let (Some(c), Some(p50)) = (cold, r.ttft_ms.get("p50"))
        && (c.first_failures > 0 || (p50 > 0.0 && c.first_ttft_ms > 5.0 * p50 && c.first_ttft_ms > 1000.0))
    {
        findings.push(diag(
            "cold-start",
            "warning",
            "The first requests were slow: cold start",
            format!(
                "first request TTFT {:.0} ms vs P50 {p50:.0} ms; {} of the first requests failed",
                c.first_ttft_ms, c.first_failures
            ),
            &[
                "keep warm spare instances: model load takes tens of seconds to minutes",
                "send warm-up requests before routing traffic to a new instance",
                "shift 5-10% of traffic first (canary), never all at once",
            ],
        ));
    }

    let auth: u64 = r.errors.iter().filter(|e| e.kind == "http_401" || e.kind == "http_403").map(|e| e.count).sum();
    if auth > 0 {
        let mut d = diag(
            "auth-rejected",
            "error",
            "Requests rejected with 401/403",
            format!("{auth} request(s) got 401/403"),
            &[
                "check the key is read from the environment (the variable named by api_key_env is set in this shell)",
                "check the key is not revoked",
                "check it is sent as `Authorization: Bearer <key>` (some gateways want another header)",
                "check the model name is mapped on the gateway side",
            ],
        );
        if let Some(env) = &settings.api_key_env {
            d.advice[0] = format!("check the key is read from the environment (${env} is set and is the right key)");
        }
        findings.push(d);
    }

    let classes = &settings.request_distribution;
    let max_in = classes.values().map(|c| c.input_tokens + c.output_tokens).max().unwrap_or(0);
    let min_in = classes.values().map(|c| c.input_tokens + c.output_tokens).min().unwrap_or(0);
    let no_bursts = settings.bursts.is_empty();
    if classes.len() < 2 || max_in < 4 * min_in.max(1) {
        findings.push(diag(
            "traffic-too-uniform",
            "info",
            "The test traffic is close to uniform",
            format!("{} class(es), longest request {} tokens vs shortest {}{}", classes.len(), max_in, min_in, if no_bursts { ", no bursts" } else { "" }),
            &["a beautiful test can hide a production collapse: raise the tail class's weight and add bursts, then test again"],
        ));
    }

    let capacity = settings.target.as_ref().and_then(|t| {
        // requests_per_sec already counts successful requests only.
        let per = r.throughput.requests_per_sec;
        if per <= 0.0 {
            return None;
        }
        let instances = (t.qps * t.redundancy / per).ceil().max(1.0) as u64;
        let load = t.qps / instances as f64;
        let holds = sla.ttft_p99_ms.zip(ttft_p99).map(|(limit, v)| v <= limit && load <= per);
        Some(CapacityPlan {
            target_qps: t.qps,
            redundancy: t.redundancy,
            per_instance_requests_per_sec: per,
            instances,
            load_per_instance: load,
            ttft_p99_holds: holds,
            explanation: format!(
                "ceil({} qps x {} / {per:.2} rps per instance) = {instances}; each carries {load:.2} rps at the target, at most the {per:.2} rps measured here{}",
                t.qps,
                t.redundancy,
                match holds {
                    Some(true) => ", where P99 TTFT was inside the SLA",
                    Some(false) => ", but P99 TTFT was already over the SLA at that load: fix latency first",
                    None => "",
                }
            ),
        })
    });

    Verdict { sla_met, sla: checks, findings, capacity }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ErrorClass, Percentiles, RequestCounts, Throughput};

    fn settings(extra: serde_json::Value) -> LoadTestSettings {
        let mut v = serde_json::json!({
            "endpoint": "http://127.0.0.1:8000/v1/completions", "model": "m", "concurrency": 8, "duration_seconds": 60,
            "request_distribution": {"short": {"weight": 0.9, "input_tokens": 128, "output_tokens": 64}, "tail": {"weight": 0.1, "input_tokens": 4096, "output_tokens": 512}},
            "sla": {"ttft_p99_ms": 1000}, "target": {"qps": 30, "redundancy": 1.2}
        });
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    fn result(ttft_p99: f64, rps: f64, error_rate: f64) -> BenchResult {
        BenchResult {
            ttft_ms: Percentiles(
                [("p50".to_string(), Some(ttft_p99 / 3.0)), ("p99".to_string(), Some(ttft_p99))].into_iter().collect(),
            ),
            error_rate,
            requests: RequestCounts { total: 100, succeeded: 100, ..Default::default() },
            throughput: Throughput { requests_per_sec: rps, ..Default::default() },
            ..Default::default()
        }
    }

    #[test]
    fn capacity_is_ceil_of_target_times_redundancy_over_measured_rate() {
        let v = judge(&result(500.0, 9.0, 0.1), &settings(serde_json::json!({})), None, None);
        let plan = v.capacity.unwrap();
        // ceil(30 x 1.2 / 9) = 4; the 10% errors are already out of the 9 rps.
        assert_eq!(plan.instances, 4);
        assert_eq!(plan.ttft_p99_holds, Some(true));
    }

    #[test]
    fn the_seeds_rules_fire() {
        let v = judge(&result(1600.0, 5.0, 0.0), &settings(serde_json::json!({})), None, None);
        assert!(!v.sla_met);
        assert!(v.findings.iter().any(|f| f.code == "ttft-far-above-sla"), "1.6 x the SLA");
        let cold = ColdStart { first_ttft_ms: 0.0, first_failures: 2 };
        let mut r = result(500.0, 5.0, 0.02);
        r.errors = vec![ErrorClass { kind: "http_401".into(), count: 2, sample: "HTTP 401".into() }];
        let v = judge(&r, &settings(serde_json::json!({"api_key_env": "GATEWAY_API_KEY"})), None, Some(cold));
        let codes: Vec<&str> = v.findings.iter().map(|f| f.code.as_str()).collect();
        assert!(
            codes.contains(&"cold-start") && codes.contains(&"auth-rejected") && codes.contains(&"error-rate-high"),
            "{codes:?}"
        );
        let auth = v.findings.iter().find(|f| f.code == "auth-rejected").unwrap();
        assert!(auth.advice[0].contains("$GATEWAY_API_KEY") && auth.advice[2].contains("Bearer"));
    }

    #[test]
    fn tokens_read_together_are_flagged_only_when_they_are_many() {
        let flagged = |gaps: u64, together: u64| {
            let mut r = result(500.0, 5.0, 0.0);
            r.tokens.itl_gaps = gaps;
            r.tokens.itl_gaps_in_one_read = together;
            let v = judge(&r, &settings(serde_json::json!({})), None, None);
            v.findings.iter().any(|f| f.code == "chunks-read-together")
        };
        assert!(flagged(1000, 50), "5% of the gaps");
        assert!(!flagged(1000, 49));
        assert!(!flagged(99, 99), "too few gaps to tell");
    }
}
