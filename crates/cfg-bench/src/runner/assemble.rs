//! The result of a run: the collector's figures over the measured window, the
//! server's series, the metadata, and the verdict.

use cfg_core::model::{
    BenchResult, IntendedLatency, LoadTestSettings, Metadata, RequestCounts, ServerConfig, ServerSeries, Throughput,
    TokenCounts,
};
use cfg_core::verdict::ColdStart;

use super::scraper::{Scraped, which};
use super::{Shared, percentile_list};
use crate::scrape;
use crate::stats::{Collector, percentiles};

pub(super) fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

pub fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Everything a run measured, before it becomes a [`BenchResult`].
pub(super) struct Measured<'a> {
    pub settings: &'a LoadTestSettings,
    pub settings_text: &'a str,
    pub config: Option<&'a (ServerConfig, String)>,
    pub shared: &'a Shared,
    pub collector: &'a mut Collector,
    pub scraped: Scraped,
    pub started_at: String,
    /// Seconds from the first measured request to the last one's end.
    pub elapsed: f64,
    /// The measured window in seconds: the rates are what streamed and finished in it.
    pub window: f64,
    pub stopped_reason: Option<String>,
    /// Warm-up, measured, drain or stopped, on the time series' clock.
    pub phases: Vec<cfg_core::model::RunPhase>,
    /// Requests cancelled unfinished after a stop's grace period.
    pub abandoned: u64,
    pub open_loop: bool,
    pub dropped: u64,
    pub cold: Option<ColdStart>,
    pub shard: Option<(crate::shard::Shard, u64)>,
}

impl Measured<'_> {
    pub fn result(self) -> BenchResult {
        let s = self.settings;
        let ps = &percentile_list(s);
        let window = self.collector.window(self.window);
        let per_sec = |n: f64| n / window.seconds;
        let config = self.config;
        let server = self.server_series();
        let (gpu_avg, gpu_reason) = self.gpu_utilization();
        let c = self.collector;
        let total = c.overall.requests;
        let succeeded = total - c.overall.failed;
        let mut result = BenchResult {
            ttft_ms: percentiles(&c.overall.ttft, ps),
            tpot_ms: percentiles(&c.overall.tpot, ps),
            throughput_tokens_per_sec: per_sec(window.output_tokens),
            error_rate: if total > 0 { c.overall.failed as f64 / total as f64 } else { 0.0 },
            gpu_utilization_avg: gpu_avg,
            gpu_utilization_reason: gpu_reason,
            format_version: 1,
            complete: self.stopped_reason.is_none(),
            stopped_reason: self.stopped_reason,
            simulated: c.simulated,
            metadata: Some(Metadata {
                tool: "cfg-bench".into(),
                tool_version: env!("CARGO_PKG_VERSION").into(),
                settings_sha256: sha256(self.settings_text),
                config_sha256: config.map(|(_, t)| sha256(t)),
                endpoint: s.endpoint.clone(),
                model: s.model.clone(),
                gpu: config.and_then(|(c, _)| c.hardware.as_ref().and_then(|h| h.gpu.clone())),
                quantization: config.and_then(|(c, _)| c.model.quantization.map(|q| q.as_str().to_string())),
                started_at: self.started_at,
                ended_at: now_rfc3339(),
                duration_seconds: window.seconds,
                drain_seconds: Some((self.elapsed - window.seconds).max(0.0)),
                concurrency: s.concurrency.max(1),
                arrival: s.arrival.as_ref().map_or("closed".into(), |a| format!("{:?}", a.mode).to_lowercase()),
                seed: self.shared.seed,
                shards: None,
                timestamps: Some(self.shared.http.clock(&s.endpoint).into()),
            }),
            requests: RequestCounts {
                total,
                succeeded,
                failed: c.overall.failed,
                warmup: u64::from(s.warmup_requests.unwrap_or(0)),
                good: c.good,
                abandoned: self.abandoned,
            },
            e2e_ms: percentiles(&c.overall.e2e, ps),
            itl_ms: percentiles(&c.overall.itl, ps),
            intended: self.open_loop.then(|| IntendedLatency {
                ttft_ms: percentiles(&c.intended_ttft, ps),
                e2e_ms: percentiles(&c.intended_e2e, ps),
                late_sends: c.late_sends,
                dropped_sends: self.dropped,
            }),
            throughput: Throughput {
                requests_per_sec: per_sec(window.completed),
                output_tokens_per_sec: per_sec(window.output_tokens),
                total_tokens_per_sec: per_sec(window.output_tokens + window.prompt_tokens),
                goodput_requests_per_sec: per_sec(window.good),
            },
            tokens: TokenCounts {
                prompt_total: c.prompt_tokens,
                completion_total: c.completion_tokens,
                prompt_target_total: c.prompt_target,
                completion_target_total: c.completion_target,
                prompt_deviation_pct: if c.prompt_target > 0 {
                    (c.prompt_tokens as f64 - c.prompt_target as f64) / c.prompt_target as f64 * 100.0
                } else {
                    0.0
                },
                requests_without_usage: c.without_usage,
                prompts_calibrated: self.shared.prompts_calibrated,
                itl_gaps: c.itl_gaps,
                itl_gaps_in_one_read: c.itl_gaps_in_one_read,
            },
            per_class: c.per_class(ps, &window),
            errors: c.error_classes(),
            server,
            timeseries: c.timeseries(&self.scraped.in_flight),
            phases: self.phases,
            verdict: None,
            shard: self.shard.map(|(shard, base_seed)| crate::shard::info(c, shard, base_seed, self.open_loop)),
        };
        result.verdict = Some(cfg_core::verdict::judge(&result, s, config.map(|(c, _)| c), self.cold));
        result
    }

    /// vLLM's side of the run, when its `/metrics` was scraped.
    fn server_series(&self) -> Option<ServerSeries> {
        let seen = &self.scraped;
        let u = seen.url.as_ref()?;
        let waiting: Vec<(f64, f64)> = seen.points.iter().filter_map(|p| Some((p.t, p.waiting?))).collect();
        Some(ServerSeries {
            source: match (&seen.failure, seen.first.is_some()) {
                (None, _) | (Some(_), true) => u.clone(),
                (Some(e), false) => format!("{u}: not available ({e})"),
            },
            queue_growing: scrape::growing(&waiting),
            preemptions: seen.delta(scrape::PREEMPTIONS),
            prompt_tokens_delta: seen.delta(scrape::PROMPT_TOKENS),
            generation_tokens_delta: seen.delta(scrape::GENERATION_TOKENS),
            points: seen.points.clone(),
        })
    }

    /// The mean GPU utilisation, or why there is none.
    fn gpu_utilization(&self) -> (Option<f64>, Option<String>) {
        let gpu: Vec<f64> = self.scraped.points.iter().filter_map(|p| p.gpu_utilization).collect();
        let reason = if !gpu.is_empty() {
            return (Some(gpu.iter().sum::<f64>() / gpu.len() as f64), None);
        } else if self.collector.simulated {
            "the target is cfg-bench's simulator: there is no GPU to measure"
        } else if self.settings.gpu_metrics_url.is_some() {
            "gpu_metrics_url gave no DCGM_FI_DEV_GPU_UTIL samples"
        } else if which("nvidia-smi") {
            "the endpoint is not on this machine, so the local nvidia-smi cannot see its GPU; give gpu_metrics_url (a DCGM exporter)"
        } else {
            "no gpu_metrics_url (DCGM exporter) in settings.json and no nvidia-smi on this machine"
        };
        (None, Some(reason.to_string()))
    }
}
