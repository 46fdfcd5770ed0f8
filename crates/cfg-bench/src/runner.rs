//! The load test: warm-up, then a measured phase in closed loop (N requests
//! always in flight) or open loop (arrivals at a rate, with bursts and a
//! concurrency cap), while a side task scrapes the server's metrics.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cfg_core::model::{
    ArrivalMode, BenchResult, IntendedLatency, LoadTestSettings, Metadata, RequestCounts, ServerConfig, ServerPoint,
    ServerSeries, Throughput, TokenCounts,
};
use cfg_core::sim::rng::SplitMix64;
use cfg_core::sim::{Class, draw_class};
use tokio::sync::{Semaphore, mpsc};

use crate::client::{self, Api, RequestSpec};
use crate::prompt;
use crate::scrape;
use crate::stats::{Collector, Outcome, percentiles};

/// Everything a run needs.
pub struct RunInput {
    pub settings: LoadTestSettings,
    pub settings_text: String,
    pub config: Option<(ServerConfig, String)>,
    pub key: Option<String>,
    /// Set by Ctrl-C: stop sending, give in-flight requests a grace period.
    pub stop: Arc<AtomicBool>,
    pub show_progress: bool,
    /// Set when this process is one shard of a larger run: the shard and the run's seed
    /// (the settings above already carry this shard's share and seed).
    pub shard: Option<(crate::shard::Shard, u64)>,
    pub transport: client::Transport,
}

/// Live state shared with the progress line and the browser.
#[derive(Default)]
pub struct Live {
    pub in_flight: AtomicU64,
    /// The latest figures, four times a second, for the progress line and the browser.
    pub snapshot: Mutex<Snapshot>,
}

/// What a run looks like right now.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Snapshot {
    /// "warmup", "measuring" or "draining".
    pub phase: String,
    pub elapsed_s: f64,
    pub duration_s: f64,
    pub completed: u64,
    pub errors: u64,
    pub output_tokens_per_sec: f64,
    pub ttft_p50_ms: Option<f64>,
    pub ttft_p99_ms: Option<f64>,
    pub in_flight: u64,
    pub waiting: Option<f64>,
    pub running: Option<f64>,
    pub kv_cache_usage: Option<f64>,
}

/// The request for schedule index `i`: its class and prompt, fixed by the seed.
pub fn scheduled(seed: u64, i: u64, classes: &[Class]) -> (usize, u64) {
    let mut rng = SplitMix64::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ i);
    (draw_class(&mut rng, classes), rng.next_u64())
}

fn spec_for(settings: &LoadTestSettings, classes: &[Class], words: &[u32], seed: u64, i: u64) -> (usize, RequestSpec) {
    let (class, prompt_seed) = scheduled(seed, i, classes);
    let c = &classes[class];
    let spec = RequestSpec {
        model: settings.model.clone(),
        prompt: prompt::synthesize(words[class], prompt_seed),
        max_tokens: c.output_tokens,
        force_output_length: settings.force_output_length.unwrap_or(true),
    };
    (class, spec)
}

pub fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn metrics_url(settings: &LoadTestSettings) -> Option<String> {
    settings.metrics_url.clone().or_else(|| {
        let u = cfg_core::url::Url::parse(&settings.endpoint)?;
        Some(format!("{}://{}/metrics", u.scheme, u.authority))
    })
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// The open-loop rate when settings.json gives none.
pub const DEFAULT_RATE_QPS: f64 = 1.0;

/// The open-loop rate this process sends at.
fn open_loop_rate(arrival: &cfg_core::model::Arrival) -> f64 {
    arrival.rate_qps.unwrap_or(DEFAULT_RATE_QPS).max(1e-6)
}

/// The gaps between open-loop arrivals, honouring bursts, up to `duration`.
/// A constant-rate clock starts `offset` seconds in (a shard's slot, see
/// [`crate::shard::Shard::arrival_offset`]).
pub fn arrival_times(settings: &LoadTestSettings, duration: f64, offset: f64) -> Vec<f64> {
    let Some(arrival) = &settings.arrival else { return Vec::new() };
    let rate = open_loop_rate(arrival);
    let mut rng = SplitMix64::new(settings.seed.unwrap_or(0) ^ 0xA11A_5EED);
    let mut t = if arrival.mode == ArrivalMode::Constant { offset } else { 0.0 };
    let mut out = Vec::new();
    while t < duration && out.len() < 10_000_000 {
        let mult = settings
            .bursts
            .iter()
            .filter(|b| t >= b.start_seconds && t < b.start_seconds + b.duration_seconds)
            .map(|b| b.multiplier)
            .fold(1.0, f64::max);
        let r = rate * mult;
        let gap = match arrival.mode {
            ArrivalMode::Constant | ArrivalMode::Closed => 1.0 / r,
            ArrivalMode::Poisson => rng.exponential(r),
            ArrivalMode::Gamma => {
                let shape = arrival.burstiness.unwrap_or(1.0);
                rng.gamma(shape, 1.0 / (shape * r))
            }
        };
        t += gap;
        if t < duration {
            out.push(t);
        }
    }
    out
}

/// Class, request, outcome and (open loop) send delay of one request.
type Sent = (usize, RequestSpec, Result<client::Timing, client::Failure>, Option<f64>);

struct Shared {
    http: client::Http,
    endpoint: String,
    api: Api,
    key: Option<String>,
    timeout: Duration,
    settings: LoadTestSettings,
    classes: Vec<Class>,
    /// Words per prompt for each class: calibrated by the server's tokenizer, or the target.
    prompt_words: Vec<u32>,
    seed: u64,
}

impl Shared {
    /// Sends request `i`. For open loop, `intended` is when it should have
    /// been sent: the delay is taken just before sending, after the prompt is built.
    async fn one(&self, i: u64, intended: Option<Instant>) -> Sent {
        let (class, spec) = spec_for(&self.settings, &self.classes, &self.prompt_words, self.seed, i);
        let delay = intended.map(|t| t.elapsed().as_secs_f64());
        let r =
            client::send(&self.http, &self.endpoint, self.api, self.key.as_deref(), &spec, self.timeout, |_| {}).await;
        (class, spec, r, delay)
    }
}

/// Runs the whole test and returns the result (complete = false if stopped early).
pub async fn run(input: RunInput, live: Arc<Live>) -> BenchResult {
    let s = input.settings.clone();
    let classes = cfg_core::sim::classes(&s);
    let class_names: Vec<String> = classes.iter().map(|c| c.name.clone()).collect();
    let seed = s.seed.unwrap_or(0);
    let concurrency = s.concurrency.max(1);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency as usize)
        .tcp_nodelay(true)
        .build()
        .expect("the HTTP client builds");
    let api = Api::from_endpoint(&s.endpoint);
    let targets: Vec<u32> = classes.iter().map(|c| c.input_tokens).collect();
    let calibrated = prompt::calibrate(&client, &s.endpoint, api, input.key.as_deref(), &s.model, &targets).await;
    let prompts_calibrated = calibrated.is_some();
    if let Some(words) = &calibrated
        && input.show_progress
    {
        let pairs: Vec<String> = classes
            .iter()
            .zip(words)
            .map(|(c, w)| format!("{} {} tokens = {w} words", c.name, c.input_tokens))
            .collect();
        eprintln!("prompts sized by the server's /tokenize: {}", pairs.join(", "));
    }
    let http = client::Http::new(client.clone(), input.transport);
    let shared = Arc::new(Shared {
        http,
        endpoint: s.endpoint.clone(),
        api,
        prompt_words: calibrated.unwrap_or(targets),
        key: input.key.clone(),
        timeout: Duration::from_secs_f64(s.request_timeout_seconds.unwrap_or(300.0)),
        settings: s.clone(),
        classes: classes.clone(),
        seed,
    });
    let stop = input.stop.clone();
    let hard_stop = Arc::new(tokio::sync::Notify::new());

    // Warm-up: excluded from every statistic; its first request tells about cold start.
    let warmup = u64::from(s.warmup_requests.unwrap_or(0));
    let next = Arc::new(AtomicU64::new(0));
    let cold = Arc::new(Mutex::new((None::<f64>, 0u64)));
    live.snapshot.lock().expect("not poisoned").phase = "warmup".into();
    if warmup > 0 {
        let mut tasks = Vec::new();
        for _ in 0..concurrency.min(warmup as u32) {
            let (shared, next, cold, stop) = (shared.clone(), next.clone(), cold.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= warmup || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let (_, _, r, _) = tokio::select! { x = shared.one(i, None) => x, _ = stopped(&stop) => break };
                    let mut c = cold.lock().expect("not poisoned");
                    match r {
                        Ok(t) if i == 0 => c.0 = Some(t.ttft * 1000.0),
                        Err(_) if i < 5 => c.1 += 1,
                        _ => {}
                    }
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
        next.store(warmup, Ordering::SeqCst);
    }

    let percentile_list = percentile_list(&s);
    let sla = s.sla.clone().unwrap_or_default();
    let collector = Arc::new(Mutex::new(Collector::new(&class_names, sla.ttft_p99_ms, sla.tpot_p99_ms)));
    let duration = f64::from(s.duration_seconds);
    // The counters' baseline is read before the first measured request, once the
    // warm-up's last tokens have reached them: a request already under way at the
    // first read would be missing from the delta.
    let metrics = metrics_url(&s);
    let baseline = match &metrics {
        Some(u) => settled(&client, u).await,
        None => None,
    };
    let started_at = now_rfc3339();
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(duration);
    let (tx, mut rx) = mpsc::unbounded_channel::<Outcome>();

    // Aggregator, and the circuit breaker that watches what it aggregates.
    let tripped: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let agg = {
        let (collector, stop, tripped) = (collector.clone(), stop.clone(), tripped.clone());
        let mut breaker = s.circuit_breaker.clone().map(Breaker::new);
        tokio::spawn(async move {
            while let Some(o) = rx.recv().await {
                // Requests draining after the deadline no longer decide whether the run was whole.
                if let Some(b) = breaker.as_mut()
                    && Instant::now() < deadline
                    && let Some(reason) = b.observe(o.result.is_err())
                    && !stop.swap(true, Ordering::SeqCst)
                {
                    *tripped.lock().expect("not poisoned") = Some(reason);
                }
                collector.lock().expect("not poisoned").add(o);
            }
        })
    };

    // Scraper and in-flight sampler, once a second.
    let scrape_task = {
        let (client, stop, live) = (client.clone(), stop.clone(), live.clone());
        let url = metrics.clone();
        let gpu_url = s.gpu_metrics_url.clone();
        // A local nvidia-smi only describes the server's GPU when the server is here.
        let local_gpu = gpu_url.is_none()
            && cfg_core::url::Url::parse(&s.endpoint).is_some_and(|u| u.is_loopback())
            && which("nvidia-smi");
        tokio::spawn(async move {
            let mut points = Vec::new();
            let mut in_flight = Vec::new();
            let mut first: Option<std::collections::HashMap<String, f64>> = baseline;
            let mut last = None;
            let mut failure: Option<String> = None;
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let t = start.elapsed().as_secs_f64();
                in_flight.push(live.in_flight.load(Ordering::Relaxed));
                let mut point = ServerPoint { t, ..Default::default() };
                if let Some(url) = &url {
                    match fetch(&client, url).await {
                        Ok(m) => {
                            point.waiting = m.get(scrape::WAITING).copied();
                            point.running = m.get(scrape::RUNNING).copied();
                            point.kv_cache_usage = m.get(scrape::KV_USAGE).copied();
                            if first.is_none() {
                                first = Some(m.clone());
                            }
                            last = Some(m);
                        }
                        Err(e) => failure = Some(e),
                    }
                }
                if let Some(gurl) = &gpu_url {
                    if let Ok(m) = fetch(&client, gurl).await {
                        point.gpu_utilization = m.get(scrape::DCGM_UTIL).map(|v| v / 100.0);
                    }
                } else if local_gpu {
                    point.gpu_utilization = nvidia_smi_utilization().await;
                }
                {
                    let mut snap = live.snapshot.lock().expect("not poisoned");
                    snap.waiting = point.waiting;
                    snap.running = point.running;
                    snap.kv_cache_usage = point.kv_cache_usage;
                }
                points.push(point);
                if stop.load(Ordering::SeqCst) || Instant::now() >= deadline {
                    break;
                }
            }
            (points, in_flight, first, last, failure, url)
        })
    };

    // Progress line.
    // Live figures for the progress line and the browser.
    let bar = input.show_progress.then(|| {
        let bar = indicatif::ProgressBar::new(s.duration_seconds as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len}s {msg}")
                .expect("valid template"),
        );
        bar
    });
    let progress_task = {
        let (collector, stop, live, bar) = (collector.clone(), stop.clone(), live.clone(), bar.clone());
        tokio::spawn(async move {
            let mut last_tokens = 0u64;
            let mut last_t = 0.0;
            let mut rate = 0.0;
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let elapsed = start.elapsed().as_secs_f64();
                let (done, errors, p50, p99, tokens) = {
                    let c = collector.lock().expect("not poisoned");
                    let (done, errors, p99) = c.live();
                    let p50 =
                        (!c.overall.ttft.is_empty()).then(|| c.overall.ttft.value_at_quantile(0.5) as f64 / 1000.0);
                    (done, errors, p50, p99, c.overall.output_tokens)
                };
                if elapsed - last_t >= 1.0 {
                    rate = (tokens - last_tokens) as f64 / (elapsed - last_t);
                    last_tokens = tokens;
                    last_t = elapsed;
                }
                let in_flight = live.in_flight.load(Ordering::Relaxed);
                {
                    let mut snap = live.snapshot.lock().expect("not poisoned");
                    snap.phase = if Instant::now() < deadline { "measuring".into() } else { "draining".into() };
                    snap.elapsed_s = elapsed;
                    snap.duration_s = duration;
                    snap.completed = done;
                    snap.errors = errors;
                    snap.output_tokens_per_sec = rate;
                    snap.ttft_p50_ms = p50;
                    snap.ttft_p99_ms = p99;
                    snap.in_flight = in_flight;
                }
                if let Some(bar) = &bar {
                    bar.set_position((elapsed as u64).min(duration as u64));
                    bar.set_message(format!(
                        "{done} ok, {errors} errors, {rate:.0} tok/s, TTFT p99 {}, {in_flight} in flight",
                        p99.map_or("-".into(), |v| format!("{v:.0} ms")),
                    ));
                }
            }
        })
    };

    let open_loop = s.arrival.as_ref().is_some_and(|a| a.mode != ArrivalMode::Closed);
    let mut dropped = 0u64;
    let mut workers = tokio::task::JoinSet::new();
    if open_loop {
        let sem = Arc::new(Semaphore::new(concurrency as usize));
        let offset = match (input.shard, s.arrival.as_ref()) {
            (Some((shard, _)), Some(a)) => shard.arrival_offset(open_loop_rate(a)),
            _ => 0.0,
        };
        let times = arrival_times(&s, duration, offset);
        let total = times.len();
        for (k, at) in times.into_iter().enumerate() {
            // Finished tasks are reaped as we go, so memory stays flat on long runs.
            while workers.try_join_next().is_some() {}
            let intended = start + Duration::from_secs_f64(at);
            let permit = tokio::select! {
                p = async {
                    tokio::time::sleep_until(intended.into()).await;
                    sem.clone().acquire_owned().await
                } => p.expect("semaphore open"),
                _ = tokio::time::sleep_until(deadline.into()) => { dropped += (total - k) as u64; break; }
                _ = stopped(&stop) => { dropped += (total - k) as u64; break; }
            };
            let i = warmup + k as u64;
            let (shared, tx, live, hard) = (shared.clone(), tx.clone(), live.clone(), hard_stop.clone());
            workers.spawn(async move {
                live.in_flight.fetch_add(1, Ordering::Relaxed);
                tokio::select! {
                    (class, spec, r, delay) = shared.one(i, Some(intended)) => {
                        let c = &shared.classes[class];
                        let _ = tx.send(Outcome { class, at: start.elapsed().as_secs_f64(), result: r, send_delay: delay, prompt_target: c.input_tokens, output_target: spec.max_tokens });
                    }
                    _ = hard.notified() => {}
                }
                live.in_flight.fetch_sub(1, Ordering::Relaxed);
                drop(permit);
            });
        }
    } else {
        for _ in 0..concurrency {
            let (shared, tx, live, hard, next, stop) =
                (shared.clone(), tx.clone(), live.clone(), hard_stop.clone(), next.clone(), stop.clone());
            workers.spawn(async move {
                while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    live.in_flight.fetch_add(1, Ordering::Relaxed);
                    let (cancelled, back_off) = tokio::select! {
                        (class, spec, r, _) = shared.one(i, None) => {
                            let c = &shared.classes[class];
                            let back_off = r.as_ref().err().and_then(|f| f.retry_after);
                            let _ = tx.send(Outcome { class, at: start.elapsed().as_secs_f64(), result: r, send_delay: None, prompt_target: c.input_tokens, output_target: spec.max_tokens });
                            (false, back_off)
                        }
                        _ = hard.notified() => (true, None),
                    };
                    live.in_flight.fetch_sub(1, Ordering::Relaxed);
                    if cancelled {
                        break;
                    }
                    // A 429 with Retry-After: this stream waits as asked (a closed loop that
                    // ignored it would only measure the rate limiter).
                    if let Some(wait) = back_off {
                        let until = (Instant::now() + Duration::from_secs_f64(wait)).min(deadline);
                        tokio::select! {
                            _ = tokio::time::sleep_until(until.into()) => {}
                            _ = stopped(&stop) => {}
                        }
                    }
                }
            });
        }
    }
    drop(tx);

    // Wait for the workers; on Ctrl-C give in-flight requests a short grace.
    let wait_all = async { while workers.join_next().await.is_some() {} };
    tokio::pin!(wait_all);
    let interrupted = loop {
        tokio::select! {
            _ = &mut wait_all => break stop.load(Ordering::SeqCst),
            _ = tokio::time::sleep(Duration::from_millis(100)) => {
                if stop.load(Ordering::SeqCst) {
                    if tokio::time::timeout(Duration::from_secs(5), &mut wait_all).await.is_err() {
                        hard_stop.notify_waiters();
                        let _ = tokio::time::timeout(Duration::from_secs(2), &mut wait_all).await;
                    }
                    break true;
                }
            }
        }
    };
    let elapsed = start.elapsed().as_secs_f64().max(1e-9);
    let _ = agg.await;
    stop.store(true, Ordering::SeqCst);
    let (points, in_flight, first, mut last, failure, url) =
        scrape_task.await.unwrap_or((Vec::new(), Vec::new(), None, None, Some("scraper failed".into()), None));
    // Requests finishing after the deadline still count: read the counters once more,
    // once they have settled (the server may count a request's last tokens just
    // after it sent them).
    if let Some(u) = &url
        && let Some(m) = settled(&client, u).await
    {
        last = Some(m);
    }
    progress_task.abort();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }

    let mut c = collector.lock().expect("not poisoned");
    let ps = &percentile_list;
    let total = c.overall.requests;
    let succeeded = total - c.overall.failed;
    let window = if interrupted { elapsed } else { elapsed.max(duration) };
    let output_tokens = c.overall.output_tokens;
    let delta = |name: &str| Some(last.as_ref()?.get(name)? - first.as_ref()?.get(name)?);
    let server = url.map(|u| {
        let waiting: Vec<(f64, f64)> = points.iter().filter_map(|p| Some((p.t, p.waiting?))).collect();
        ServerSeries {
            source: match (&failure, first.is_some()) {
                (None, _) | (Some(_), true) => u.clone(),
                (Some(e), false) => format!("{u}: not available ({e})"),
            },
            queue_growing: scrape::growing(&waiting),
            preemptions: delta(scrape::PREEMPTIONS),
            prompt_tokens_delta: delta(scrape::PROMPT_TOKENS),
            generation_tokens_delta: delta(scrape::GENERATION_TOKENS),
            points: points.clone(),
        }
    });
    let gpu: Vec<f64> = points.iter().filter_map(|p| p.gpu_utilization).collect();
    let (gpu_avg, gpu_reason) = if !gpu.is_empty() {
        (Some(gpu.iter().sum::<f64>() / gpu.len() as f64), None)
    } else if c.simulated {
        (None, Some("the target is cfg-bench's simulator: there is no GPU to measure".to_string()))
    } else if s.gpu_metrics_url.is_some() {
        (None, Some("gpu_metrics_url gave no DCGM_FI_DEV_GPU_UTIL samples".to_string()))
    } else if which("nvidia-smi") {
        (None, Some("the endpoint is not on this machine, so the local nvidia-smi cannot see its GPU; give gpu_metrics_url (a DCGM exporter)".to_string()))
    } else {
        (
            None,
            Some("no gpu_metrics_url (DCGM exporter) in settings.json and no nvidia-smi on this machine".to_string()),
        )
    };
    let config = input.config.as_ref();
    let mut result = BenchResult {
        ttft_ms: percentiles(&c.overall.ttft, ps),
        tpot_ms: percentiles(&c.overall.tpot, ps),
        throughput_tokens_per_sec: output_tokens as f64 / window,
        error_rate: if total > 0 { c.overall.failed as f64 / total as f64 } else { 0.0 },
        gpu_utilization_avg: gpu_avg,
        gpu_utilization_reason: gpu_reason,
        format_version: 1,
        complete: !interrupted,
        stopped_reason: interrupted.then(|| {
            tripped
                .lock()
                .expect("not poisoned")
                .clone()
                .unwrap_or_else(|| "stopped early (Ctrl-C or a stop request)".into())
        }),
        simulated: c.simulated,
        metadata: Some(Metadata {
            tool: "cfg-bench".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            settings_sha256: sha256(&input.settings_text),
            config_sha256: config.map(|(_, t)| sha256(t)),
            endpoint: s.endpoint.clone(),
            model: s.model.clone(),
            gpu: config.and_then(|(c, _)| c.hardware.as_ref().and_then(|h| h.gpu.clone())),
            quantization: config.and_then(|(c, _)| c.model.quantization.map(|q| q.as_str().to_string())),
            started_at,
            ended_at: now_rfc3339(),
            duration_seconds: elapsed,
            concurrency,
            arrival: s.arrival.as_ref().map_or("closed".into(), |a| format!("{:?}", a.mode).to_lowercase()),
            seed,
            shards: None,
            timestamps: Some(shared.http.clock(&s.endpoint).into()),
        }),
        requests: RequestCounts { total, succeeded, failed: c.overall.failed, warmup, good: c.good },
        e2e_ms: percentiles(&c.overall.e2e, ps),
        itl_ms: percentiles(&c.overall.itl, ps),
        intended: open_loop.then(|| IntendedLatency {
            ttft_ms: percentiles(&c.intended_ttft, ps),
            e2e_ms: percentiles(&c.intended_e2e, ps),
            late_sends: c.late_sends,
            dropped_sends: dropped,
        }),
        throughput: Throughput {
            requests_per_sec: succeeded as f64 / window,
            output_tokens_per_sec: output_tokens as f64 / window,
            total_tokens_per_sec: (output_tokens + c.prompt_tokens) as f64 / window,
            goodput_requests_per_sec: c.good as f64 / window,
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
            prompts_calibrated,
            itl_gaps: c.itl_gaps,
            itl_gaps_in_one_read: c.itl_gaps_in_one_read,
        },
        per_class: c.per_class(ps, window),
        errors: c.error_classes(),
        server,
        timeseries: c.timeseries(&in_flight),
        verdict: None,
        shard: input.shard.map(|(shard, base_seed)| crate::shard::info(&c, shard, base_seed, open_loop)),
    };
    let cold = cold.lock().expect("not poisoned");
    let cold_start = (cold.0.is_some() || cold.1 > 0)
        .then(|| cfg_core::verdict::ColdStart { first_ttft_ms: cold.0.unwrap_or(0.0), first_failures: cold.1 });
    result.verdict = Some(cfg_core::verdict::judge(&result, &s, config.map(|(c, _)| c), cold_start));
    result
}

/// Trips when at least `error_rate` of the last `window` requests failed.
struct Breaker {
    limit: f64,
    window: usize,
    recent: std::collections::VecDeque<bool>,
    failed: usize,
}

impl Breaker {
    fn new(c: cfg_core::model::CircuitBreaker) -> Self {
        let window = c.window.max(1) as usize;
        Breaker { limit: c.error_rate, window, recent: std::collections::VecDeque::with_capacity(window), failed: 0 }
    }

    /// Records one finished request; returns the reason once the breaker trips.
    fn observe(&mut self, failed: bool) -> Option<String> {
        self.recent.push_back(failed);
        self.failed += usize::from(failed);
        if self.recent.len() > self.window {
            self.failed -= usize::from(self.recent.pop_front().unwrap_or(false));
        }
        let rate = self.failed as f64 / self.window as f64;
        (self.recent.len() == self.window && rate >= self.limit).then(|| {
            format!(
                "circuit breaker: {} of the last {} requests failed ({:.0}%, the limit is {:.0}%)",
                self.failed,
                self.window,
                rate * 100.0,
                self.limit * 100.0
            )
        })
    }
}

/// The settings' percentiles, plus P99 always: the verdict judges it even when not listed.
pub fn percentile_list(s: &LoadTestSettings) -> Vec<f64> {
    let mut list = s.metrics().percentiles.clone();
    if !list.contains(&99.0) {
        list.push(99.0);
    }
    list
}

/// The server's metrics once its token counters hold still for 100 ms, or the latest
/// read after 3 s (a server with other traffic never holds still).
async fn settled(client: &reqwest::Client, url: &str) -> Option<std::collections::HashMap<String, f64>> {
    let counters = |m: &std::collections::HashMap<String, f64>| {
        (m.get(scrape::PROMPT_TOKENS).copied(), m.get(scrape::GENERATION_TOKENS).copied())
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    let mut prev = tokio::time::timeout_at(deadline, fetch(client, url)).await.ok()?.ok()?;
    while tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let Some(now) = tokio::time::timeout_at(deadline, fetch(client, url)).await.ok().and_then(Result::ok) else {
            return Some(prev);
        };
        if counters(&now) == counters(&prev) {
            return Some(now);
        }
        prev = now;
    }
    Some(prev)
}

/// Resolves once Ctrl-C has set the stop flag.
async fn stopped(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Mean utilisation of the local GPUs, 0..1, from `nvidia-smi`.
async fn nvidia_smi_utilization() -> Option<f64> {
    let out = tokio::process::Command::new("nvidia-smi")
        .args(["--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"])
        .output()
        .await
        .ok()
        .filter(|o| o.status.success())?;
    let values: Vec<f64> = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64 / 100.0)
}

async fn fetch(client: &reqwest::Client, url: &str) -> Result<std::collections::HashMap<String, f64>, String> {
    let resp = client.get(url).timeout(Duration::from_secs(2)).send().await.map_err(|e| client::classify(&e).kind)?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status().as_u16()));
    }
    let text = resp.text().await.map_err(|e| e.to_string())?;
    Ok(scrape::parse(&text))
}
