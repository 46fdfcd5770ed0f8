//! The server's side of the run, once a second: vLLM's `/metrics` (queue,
//! running, KV usage, token counters), GPU utilisation (a DCGM exporter, or a
//! local nvidia-smi when the server is on this machine) and the runner's own
//! in-flight count.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cfg_core::model::{LoadTestSettings, ServerPoint};
use tokio::task::JoinHandle;

use super::{Clock, Live};
use crate::scrape;

/// One scrape of a Prometheus endpoint: metric name to value.
pub(super) type Metrics = HashMap<String, f64>;

/// What the scraper saw.
#[derive(Default)]
pub(super) struct Scraped {
    pub points: Vec<ServerPoint>,
    /// The runner's requests in flight, once a second.
    pub in_flight: Vec<u64>,
    /// The counters before the first measured request, and after the last.
    pub first: Option<Metrics>,
    pub last: Option<Metrics>,
    /// Why a scrape failed, if one did.
    pub failure: Option<String>,
    pub url: Option<String>,
}

impl Scraped {
    /// How much a counter grew over the run.
    pub fn delta(&self, name: &str) -> Option<f64> {
        Some(self.last.as_ref()?.get(name)? - self.first.as_ref()?.get(name)?)
    }
}

/// The endpoint's `/metrics`, unless settings.json names another.
pub(super) fn metrics_url(settings: &LoadTestSettings) -> Option<String> {
    settings.metrics_url.clone().or_else(|| {
        let u = cfg_core::url::Url::parse(&settings.endpoint)?;
        Some(format!("{}://{}/metrics", u.scheme, u.authority))
    })
}

pub(super) fn spawn(
    client: &reqwest::Client,
    url: Option<String>,
    s: &LoadTestSettings,
    baseline: Option<Metrics>,
    clock: Clock,
    stop: Arc<AtomicBool>,
    live: Arc<Live>,
) -> JoinHandle<Scraped> {
    let client = client.clone();
    let gpu_url = s.gpu_metrics_url.clone();
    // A local nvidia-smi only describes the server's GPU when the server is here.
    let local_gpu = gpu_url.is_none()
        && cfg_core::url::Url::parse(&s.endpoint).is_some_and(|u| u.is_loopback())
        && which("nvidia-smi");
    tokio::spawn(async move {
        let mut seen = Scraped { first: baseline, url, ..Scraped::default() };
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let t = clock.start.elapsed().as_secs_f64();
            seen.in_flight.push(live.in_flight.load(Ordering::Relaxed));
            let mut point = ServerPoint { t, ..Default::default() };
            if let Some(url) = &seen.url {
                match fetch(&client, url).await {
                    Ok(m) => {
                        point.waiting = m.get(scrape::WAITING).copied();
                        point.running = m.get(scrape::RUNNING).copied();
                        point.kv_cache_usage = m.get(scrape::KV_USAGE).copied();
                        if seen.first.is_none() {
                            seen.first = Some(m.clone());
                        }
                        seen.last = Some(m);
                    }
                    Err(e) => seen.failure = Some(e),
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
            seen.points.push(point);
            // Through the drain too: the server's side of the requests still finishing.
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        seen
    })
}

/// What the scraper saw, with the counters read once more: requests finishing
/// after the deadline still count, and the server may count a request's last
/// tokens just after it sent them.
pub(super) async fn finish(task: JoinHandle<Scraped>, client: &reqwest::Client) -> Scraped {
    let mut seen =
        task.await.unwrap_or_else(|_| Scraped { failure: Some("scraper failed".into()), ..Scraped::default() });
    if let Some(u) = &seen.url
        && let Some(m) = settled(client, u).await
    {
        seen.last = Some(m);
    }
    seen
}

/// The server's metrics once its token counters hold still for 100 ms, or the latest
/// read after 3 s (a server with other traffic never holds still).
pub(super) async fn settled(client: &reqwest::Client, url: &str) -> Option<Metrics> {
    let counters = |m: &Metrics| (m.get(scrape::PROMPT_TOKENS).copied(), m.get(scrape::GENERATION_TOKENS).copied());
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

/// One read of the server's metrics (within 2 s), if it answers.
pub(super) async fn once(client: &reqwest::Client, url: &str) -> Option<Metrics> {
    fetch(client, url).await.ok()
}

pub(super) fn which(program: &str) -> bool {
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

/// Largest /metrics page read.
const MAX_METRICS_BYTES: usize = 8 << 20;

async fn fetch(client: &reqwest::Client, url: &str) -> Result<Metrics, String> {
    let mut resp = client
        .get(url)
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .map_err(|e| crate::client::classify(&e).kind.name())?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status().as_u16()));
    }
    // vLLM's /metrics is tens of kilobytes; a server that streams more is not one.
    let body = crate::client::read_capped(&mut resp, MAX_METRICS_BYTES).await?;
    Ok(scrape::parse(&String::from_utf8_lossy(&body)))
}
