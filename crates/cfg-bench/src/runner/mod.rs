//! The load test: warm-up, then a measured phase in closed loop (N requests
//! always in flight) or open loop (arrivals at a rate, with bursts and a
//! concurrency cap), while side tasks aggregate the outcomes, scrape the
//! server's metrics and keep the live figures. Each step is a module:
//! [`warmup`], [`aggregate`], [`scraper`], [`progress`], [`load`], and
//! [`assemble`] for the result.

mod aggregate;
mod assemble;
mod load;
mod progress;
mod scraper;
mod warmup;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cfg_core::model::{ArrivalMode, BenchResult, LoadTestSettings, ServerConfig};
use cfg_core::sim::Class;
use tokio::sync::mpsc;

pub use assemble::sha256;
pub use progress::{Live, Phase, Snapshot};

use crate::client::{self, Api, RequestSpec};
use crate::stats::Collector;

/// Everything a run needs.
pub struct RunInput {
    pub settings: LoadTestSettings,
    pub settings_text: String,
    pub config: Option<(ServerConfig, String)>,
    pub key: Option<String>,
    /// Set by Ctrl-C, SIGTERM or the browser: stop sending, give in-flight
    /// requests a grace period.
    pub stop: Arc<AtomicBool>,
    /// What set `stop` ("Ctrl-C", "SIGTERM", ...), for the result.
    pub stop_reason: Arc<Mutex<Option<String>>>,
    pub show_progress: bool,
    /// Set when this process is one shard of a larger run: the shard and the run's seed
    /// (the settings above already carry this shard's share and seed).
    pub shard: Option<(crate::shard::Shard, u64)>,
    /// When the measured phase may begin (shards begin together); `None`: at once.
    pub start_gate: Option<crate::start::StartGate>,
    pub transport: client::Transport,
}

/// What every request of a run shares.
struct Shared {
    client: reqwest::Client,
    http: client::Http,
    endpoint: String,
    api: Api,
    key: Option<String>,
    timeout: Duration,
    settings: LoadTestSettings,
    classes: Vec<Class>,
    /// Words per prompt for each class: calibrated by the server's tokenizer, or the target.
    prompt_words: Vec<u32>,
    prompts_calibrated: bool,
    seed: u64,
}

/// Class, request, outcome and (open loop) send delay of one request.
type Sent = (usize, RequestSpec, Result<client::Timing, client::Failure>, Option<f64>);

impl Shared {
    /// The client, the route and the prompt lengths: calibrated by the server's
    /// `/tokenize` when it has one.
    async fn prepare(input: &RunInput) -> Shared {
        let s = &input.settings;
        let classes = cfg_core::sim::classes(s);
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(s.concurrency.max(1) as usize)
            .tcp_nodelay(true)
            .build()
            .expect("the HTTP client builds");
        let api = Api::from_endpoint(&s.endpoint);
        let targets: Vec<u32> = classes.iter().map(|c| c.input_tokens).collect();
        // A run stopped before it began sends nothing more.
        let calibrated = if input.stop.load(Ordering::SeqCst) {
            None
        } else {
            // Bounded as a whole: a server that answers /tokenize slowly (or never)
            // costs the run at most this before it falls back to words.
            let calibrating =
                crate::prompt::calibrate(&client, &s.endpoint, api, input.key.as_deref(), &s.model, &targets);
            let stopped = async {
                while !input.stop.load(Ordering::SeqCst) {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            };
            tokio::select! {
                words = tokio::time::timeout(crate::prompt::CALIBRATION_LIMIT, calibrating) => words.ok().flatten(),
                () = stopped => None,
            }
        };
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
        Shared {
            http: client::Http::new(client.clone(), input.transport),
            client,
            endpoint: s.endpoint.clone(),
            api,
            prompts_calibrated: calibrated.is_some(),
            prompt_words: calibrated.unwrap_or(targets),
            key: input.key.clone(),
            timeout: Duration::from_secs_f64(s.request_timeout_seconds.unwrap_or(300.0)),
            settings: s.clone(),
            classes,
            seed: s.seed.unwrap_or(0),
        }
    }

    /// Sends request `i`. For open loop, `intended` is when it should have
    /// been sent: the delay is taken just before sending, after the prompt is built.
    /// Each content chunk that arrives is counted in `streamed` at once, for
    /// the live figures (the collector sees a request only when it ends).
    async fn one(&self, i: u64, intended: Option<Instant>, streamed: &AtomicU64) -> Sent {
        let (class, spec) = crate::schedule::request(&self.settings, &self.classes, &self.prompt_words, self.seed, i);
        let delay = intended.map(|t| t.elapsed().as_secs_f64());
        let count = |_: &str| {
            streamed.fetch_add(1, Ordering::Relaxed);
        };
        let r =
            client::send(&self.http, &self.endpoint, self.api, self.key.as_deref(), &spec, self.timeout, count).await;
        (class, spec, r, delay)
    }
}

/// When the measured phase started and when it ends.
#[derive(Clone, Copy)]
struct Clock {
    start: Instant,
    deadline: Instant,
}

/// Runs the whole test and returns the result (complete = false if stopped early).
pub async fn run(input: RunInput, live: Arc<Live>) -> BenchResult {
    let s = input.settings.clone();
    let shared = Arc::new(Shared::prepare(&input).await);
    let stop = input.stop.clone();
    let concurrency = s.concurrency.max(1);
    let warmup = u64::from(s.warmup_requests.unwrap_or(0));
    let warming = Instant::now();
    let cold = warmup::run(&shared, warmup, concurrency, &stop, &live).await;

    let sla = s.sla.clone().unwrap_or_default();
    let class_names: Vec<String> = shared.classes.iter().map(|c| c.name.clone()).collect();
    // A request ends within its timeout (plus the time to notice): older seconds' TTFTs are final.
    let horizon = shared.timeout.as_secs_f64() + 5.0;
    let collector =
        Arc::new(Mutex::new(Collector::new(&class_names, sla.ttft_p99_ms, sla.tpot_p99_ms).with_horizon(horizon)));
    let duration = f64::from(s.duration_seconds);
    if let Some(gate) = &input.start_gate
        && let Err(e) = gate.wait(&stop).await
    {
        eprintln!("error: {e}");
        *input.stop_reason.lock().expect("not poisoned") = Some(e);
        stop.store(true, Ordering::SeqCst);
    }
    // The counters' baseline is read before the first measured request, once the
    // warm-up's last tokens have reached them: a request already under way at the
    // first read would be missing from the delta. Shards begin together, so they
    // read at once (other shards' traffic never lets the counters settle).
    let metrics = scraper::metrics_url(&s);
    let baseline = match &metrics {
        Some(u) if input.start_gate.is_none() => scraper::settled(&shared.client, u).await,
        Some(u) => scraper::once(&shared.client, u).await,
        None => None,
    };
    let started_at = assemble::now_rfc3339();
    let start = Instant::now();
    // The warm-up phase runs from its first request to this start: the wait for
    // the counters to settle (and for other shards) is part of it.
    let warmup_seconds = if warmup > 0 { start.duration_since(warming).as_secs_f64() } else { 0.0 };
    let clock = Clock { start, deadline: start + Duration::from_secs_f64(duration) };
    let (tx, rx) = mpsc::unbounded_channel();

    let tripped: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let agg = aggregate::spawn(rx, collector.clone(), s.circuit_breaker.clone(), clock, stop.clone(), tripped.clone());
    let scrape = scraper::spawn(&shared.client, metrics, &s, baseline, clock, stop.clone(), live.clone());
    let progress = progress::spawn(input.show_progress, &s, collector.clone(), clock, stop.clone(), live.clone());

    let load = load::Load { shared: shared.clone(), tx, live: live.clone(), stop: stop.clone(), clock, first: warmup };
    let open_loop = s.arrival.as_ref().is_some_and(|a| a.mode != ArrivalMode::Closed);
    let running = if open_loop {
        let offset = match (input.shard, s.arrival.as_ref()) {
            (Some((shard, _)), Some(a)) => shard.arrival_offset(crate::schedule::open_loop_rate(a)),
            _ => 0.0,
        };
        load.open_loop(&s, duration, offset, concurrency).await
    } else {
        load.closed_loop(concurrency)
    };
    let dropped = running.dropped;
    let ended = running.wait(&stop).await;
    let elapsed = start.elapsed().as_secs_f64().max(1e-9);
    let _ = agg.await;
    stop.store(true, Ordering::SeqCst);
    let scraped = scraper::finish(scrape, &shared.client).await;
    progress.finish();

    let tripped = tripped.lock().expect("not poisoned").clone();
    let stop_reason = input.stop_reason.lock().expect("not poisoned").clone();
    let stopped_by = ended.stopped_at.map(|_| tripped.or(stop_reason).unwrap_or_else(|| "a stop request".into()));
    let stopped_reason =
        stopped_by.as_ref().zip(ended.stopped_at).map(|(why, at)| format!("{why}, {at:.1} s into the measured phase"));
    // The measured window: the configured duration, or up to the stop.
    let window = ended.stopped_at.map_or(duration, |at| at.min(duration)).max(1e-9);
    let mut c = collector.lock().expect("not poisoned");
    assemble::Measured {
        settings: &s,
        settings_text: &input.settings_text,
        config: input.config.as_ref(),
        shared: &shared,
        collector: &mut c,
        scraped,
        started_at,
        elapsed,
        window,
        phases: cfg_core::model::run_phases(warmup_seconds, window, elapsed, stopped_by.as_deref()),
        stopped_reason,
        abandoned: ended.abandoned,
        open_loop,
        dropped,
        cold,
        shard: input.shard,
    }
    .result()
}

/// The settings' percentiles, plus P99 always: the verdict judges it even when not listed.
pub fn percentile_list(s: &LoadTestSettings) -> Vec<f64> {
    let mut list = s.metrics().percentiles.clone();
    if !list.contains(&99.0) {
        list.push(99.0);
    }
    list
}

/// Resolves once Ctrl-C has set the stop flag.
async fn stopped(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
