//! Judging a result: the SLA checks (with the seed's 1.5 x rule for P99
//! TTFT), the diagnoses and the capacity plan. Pure functions of the result
//! and the inputs, so the runner, the report and the browser judge alike.
//!
//! Each diagnosis is a small module under `diagnoses/`, shaped like a lint
//! rule: a stable code, a severity, a title and a doc comment that is its
//! documentation, and a check that returns its evidence and advice.

mod capacity;
mod diagnoses;

pub use diagnoses::{DIAGNOSES, DiagnosisRule};

use crate::model::{BenchResult, LoadTestSettings, ServerConfig, Sla, SlaCheck, Verdict};

/// What the runner saw of the first requests, for the cold-start diagnosis.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ColdStart {
    /// TTFT of the very first request, in ms.
    pub first_ttft_ms: f64,
    /// How many of the first requests timed out or failed.
    pub first_failures: u64,
}

/// Everything a diagnosis may look at.
pub struct Facts<'a> {
    pub result: &'a BenchResult,
    pub settings: &'a LoadTestSettings,
    pub config: Option<&'a ServerConfig>,
    pub cold: Option<ColdStart>,
    pub sla: Sla,
    /// The error-rate limit: the SLA's, else 1%.
    pub error_limit: f64,
    pub ttft_p99: Option<f64>,
    pub tpot_p99: Option<f64>,
}

/// Judges a result against the settings' SLA and target.
pub fn judge(
    r: &BenchResult,
    settings: &LoadTestSettings,
    config: Option<&ServerConfig>,
    cold: Option<ColdStart>,
) -> Verdict {
    let sla = settings.sla.clone().unwrap_or_default();
    let facts = Facts {
        result: r,
        settings,
        config,
        cold,
        error_limit: sla.error_rate.unwrap_or(0.01),
        ttft_p99: r.ttft_ms.get("p99"),
        tpot_p99: r.tpot_ms.get("p99"),
        sla,
    };
    let checks = sla_checks(&facts);
    // An interrupted run measured less than it was asked to: it neither meets the
    // SLA nor sizes a deployment.
    let sla_met = checks.iter().all(|c| c.pass) && r.requests.succeeded > 0 && r.complete;
    let findings = DIAGNOSES.iter().filter_map(|d| d.run(&facts)).collect();
    let capacity = if r.complete { capacity::plan(&facts) } else { None };
    Verdict { sla_met, sla: checks, findings, capacity }
}

/// One check per SLA limit the settings give; the error rate always (1% by default).
fn sla_checks(f: &Facts<'_>) -> Vec<SlaCheck> {
    let check = |name: &str, limit: f64, actual: Option<f64>| SlaCheck {
        name: name.into(),
        limit,
        actual,
        pass: actual.is_some_and(|v| v <= limit),
    };
    let mut checks = Vec::new();
    if let Some(limit) = f.sla.ttft_p99_ms {
        checks.push(check("ttft_p99_ms", limit, f.ttft_p99));
    }
    if let Some(limit) = f.sla.tpot_p99_ms {
        checks.push(check("tpot_p99_ms", limit, f.tpot_p99));
    }
    checks.push(check("error_rate", f.error_limit, Some(f.result.error_rate)));
    checks
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
            complete: true,
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
        assert!(v.findings.iter().all(|f| DIAGNOSES.iter().any(|d| d.code == f.code && d.severity == f.severity)));
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

    /// At concurrency 32 with max_num_seqs 64 no lower cap can shorten a
    /// prefill wait: the advice is not given. Far above the cap, the advice is
    /// given only with the simulator's figures.
    #[test]
    fn max_num_seqs_advice_is_simulated_or_not_given() {
        let config: ServerConfig = toml::from_str(
            "[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nmax_model_len = 8192\n[batching]\nmax_num_seqs = 64\n[hardware]\ngpu = \"L40S\"\n",
        )
        .unwrap();
        let advice = |concurrency: u32| {
            let s = settings(serde_json::json!({"concurrency": concurrency}));
            let v = judge(&result(1600.0, 5.0, 0.0), &s, Some(&config), None);
            let f = v.findings.iter().find(|f| f.code == "ttft-far-above-sla").expect("1.6 x the SLA").clone();
            f.advice
        };
        let below = advice(32);
        assert!(!below.iter().any(|a| a.contains("max_num_seqs")), "{below:?}");
        // Far above it the simulator decides: here a lower cap only lengthens the
        // queue (predicted), so the fixed "lower max_num_seqs" text is gone too.
        let above = advice(256);
        assert!(!above.iter().any(|a| a.starts_with("lower max_num_seqs")), "{above:?}");
        assert!(above.iter().any(|a| a.contains("add instances")), "{above:?}");
        for a in above.iter().filter(|a| a.contains("max_num_seqs")) {
            assert!(a.contains("simulated") && a.contains(" -> ") && a.contains("throughput"), "{a}");
        }
    }

    #[test]
    fn an_interrupted_run_meets_no_sla_and_plans_no_capacity() {
        let mut r = result(500.0, 9.0, 0.0);
        assert!(judge(&r, &settings(serde_json::json!({})), None, None).sla_met);
        r.complete = false;
        r.stopped_reason = Some("stopped by SIGTERM, 3.0 s into the measured phase".into());
        r.requests.abandoned = 4;
        let v = judge(&r, &settings(serde_json::json!({})), None, None);
        assert!(!v.sla_met && v.capacity.is_none());
        let d = v.findings.iter().find(|f| f.code == "run-incomplete").expect("run-incomplete");
        assert!(d.evidence.contains("SIGTERM") && d.evidence.contains("4 abandoned"), "{}", d.evidence);
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

#[cfg(test)]
mod registry {
    use super::DIAGNOSES;

    #[test]
    fn codes_are_unique_and_every_doc_has_what_why_and_advice() {
        for (i, d) in DIAGNOSES.iter().enumerate() {
            assert!(DIAGNOSES[..i].iter().all(|o| o.code != d.code), "{} twice", d.code);
            for section in ["**What:**", "**Why:**", "**Advice:**"] {
                assert!(d.doc.contains(section), "{} lacks {section}", d.code);
            }
        }
    }
}
