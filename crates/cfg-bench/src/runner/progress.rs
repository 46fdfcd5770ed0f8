//! Live figures, four times a second, for the progress line on the terminal
//! and for the browser.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cfg_core::model::LoadTestSettings;
use tokio::task::JoinHandle;

use super::Clock;
use crate::stats::Collector;

/// Live state shared with the progress line and the browser.
#[derive(Default)]
pub struct Live {
    pub in_flight: AtomicU64,
    /// Content chunks received in the measured phase, counted as they arrive.
    pub streamed_chunks: AtomicU64,
    /// The latest figures, four times a second, for the progress line and the browser.
    pub snapshot: Mutex<Snapshot>,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    #[default]
    Warmup,
    Measuring,
    Draining,
}

/// What a run looks like right now.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Snapshot {
    pub phase: Phase,
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

/// The task that keeps the snapshot (and the progress bar) current.
pub(super) struct Progress {
    task: JoinHandle<()>,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub fn finish(self) {
        self.task.abort();
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

pub(super) fn spawn(
    show_bar: bool,
    s: &LoadTestSettings,
    collector: Arc<Mutex<Collector>>,
    clock: Clock,
    stop: Arc<AtomicBool>,
    live: Arc<Live>,
) -> Progress {
    let duration = f64::from(s.duration_seconds);
    let bar = show_bar.then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(s.duration_seconds));
        bar.set_style(
            indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len}s {msg}")
                .expect("valid template"),
        );
        bar
    });
    let shown = bar.clone();
    let task = tokio::spawn(async move {
        let mut last_tokens = 0u64;
        let mut last_t = 0.0;
        let mut rate = 0.0;
        while !stop.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let elapsed = clock.start.elapsed().as_secs_f64();
            let (done, errors, p50, p99) = {
                let c = collector.lock().expect("not poisoned");
                let (done, errors, p99) = c.live();
                let p50 = (!c.overall.ttft.is_empty()).then(|| c.overall.ttft.value_at_quantile(0.5) as f64 / 1000.0);
                (done, errors, p50, p99)
            };
            // What streamed, chunk by chunk as it arrived (one token each, as vLLM
            // sends them): counting finished requests' outputs would draw a saw.
            let tokens = live.streamed_chunks.load(Ordering::Relaxed);
            if elapsed - last_t >= 1.0 {
                rate = (tokens - last_tokens) as f64 / (elapsed - last_t);
                last_tokens = tokens;
                last_t = elapsed;
            }
            let in_flight = live.in_flight.load(Ordering::Relaxed);
            {
                let mut snap = live.snapshot.lock().expect("not poisoned");
                snap.phase = if Instant::now() < clock.deadline { Phase::Measuring } else { Phase::Draining };
                snap.elapsed_s = elapsed;
                snap.duration_s = duration;
                snap.completed = done;
                snap.errors = errors;
                snap.output_tokens_per_sec = rate;
                snap.ttft_p50_ms = p50;
                snap.ttft_p99_ms = p99;
                snap.in_flight = in_flight;
            }
            if let Some(bar) = &shown {
                bar.set_position((elapsed as u64).min(duration as u64));
                bar.set_message(format!(
                    "{done} ok, {errors} errors, {rate:.0} tok/s, TTFT p99 {}, {in_flight} in flight",
                    p99.map_or("-".into(), |v| format!("{v:.0} ms")),
                ));
            }
        }
    });
    Progress { task, bar }
}
