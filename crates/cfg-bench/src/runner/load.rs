//! The measured phase's load: closed loop (N streams, each sending its next
//! request when the last one finished) or open loop (arrivals on a schedule,
//! at most N in flight), and the wait for it to end, with a grace period on
//! Ctrl-C.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cfg_core::model::LoadTestSettings;
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::task::JoinSet;

use super::{Clock, Live, Shared, stopped};
use crate::stats::Outcome;

/// What the load needs: the shared request state, where outcomes go, and the clock.
pub(super) struct Load {
    pub shared: Arc<Shared>,
    pub tx: mpsc::UnboundedSender<Outcome>,
    pub live: Arc<Live>,
    pub stop: Arc<AtomicBool>,
    pub clock: Clock,
    /// Schedule index of the first measured request (the warm-up sent the ones before).
    pub first: u64,
}

/// The load under way.
pub(super) struct Running {
    workers: JoinSet<()>,
    /// Open loop: arrivals never sent (the deadline or a stop came first).
    pub dropped: u64,
    /// Cancels every request still in flight once the grace period is over.
    hard_stop: Arc<Notify>,
    live: Arc<Live>,
    clock: Clock,
}

/// How the load ended.
pub(super) struct Ended {
    /// Seconds after the start at which a stop (Ctrl-C, SIGTERM, the circuit
    /// breaker, the browser) was seen; `None` when the run went its full length.
    pub stopped_at: Option<f64>,
    /// Requests still in flight when the grace period ran out, cancelled unfinished.
    pub abandoned: u64,
}

impl Load {
    /// `concurrency` streams until the deadline.
    pub fn closed_loop(self, concurrency: u32) -> Running {
        let hard_stop = Arc::new(Notify::new());
        let next = Arc::new(AtomicU64::new(self.first));
        let Clock { start, deadline } = self.clock;
        let mut workers = JoinSet::new();
        for _ in 0..concurrency {
            let (shared, tx, live, hard, next, stop) = (
                self.shared.clone(),
                self.tx.clone(),
                self.live.clone(),
                hard_stop.clone(),
                next.clone(),
                self.stop.clone(),
            );
            workers.spawn(async move {
                while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    live.in_flight.fetch_add(1, Ordering::Relaxed);
                    let sent_at = start.elapsed().as_secs_f64();
                    let (cancelled, back_off) = tokio::select! {
                        (class, spec, r, _) = shared.one(i, None, &live.streamed_chunks) => {
                            let c = &shared.classes[class];
                            let back_off = r.as_ref().err().and_then(|f| f.retry_after);
                            let _ = tx.send(Outcome { class, sent_at, at: start.elapsed().as_secs_f64(), result: r, send_delay: None, prompt_target: c.input_tokens, output_target: spec.max_tokens });
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
        Running { workers, dropped: 0, hard_stop, live: self.live, clock: self.clock }
    }

    /// Arrivals on the schedule until the deadline, at most `concurrency` in
    /// flight; returns once the last arrival is sent (or dropped).
    pub async fn open_loop(self, s: &LoadTestSettings, duration: f64, offset: f64, concurrency: u32) -> Running {
        let hard_stop = Arc::new(Notify::new());
        let Clock { start, deadline } = self.clock;
        let sem = Arc::new(Semaphore::new(concurrency as usize));
        let times = crate::schedule::arrival_times(s, duration, offset);
        let total = times.len();
        let mut dropped = 0u64;
        let mut workers = JoinSet::new();
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
                _ = stopped(&self.stop) => { dropped += (total - k) as u64; break; }
            };
            let i = self.first + k as u64;
            let (shared, tx, live, hard) = (self.shared.clone(), self.tx.clone(), self.live.clone(), hard_stop.clone());
            workers.spawn(async move {
                live.in_flight.fetch_add(1, Ordering::Relaxed);
                let sent_at = start.elapsed().as_secs_f64();
                tokio::select! {
                    (class, spec, r, delay) = shared.one(i, Some(intended), &live.streamed_chunks) => {
                        let c = &shared.classes[class];
                        let _ = tx.send(Outcome { class, sent_at, at: start.elapsed().as_secs_f64(), result: r, send_delay: delay, prompt_target: c.input_tokens, output_target: spec.max_tokens });
                    }
                    _ = hard.notified() => {}
                }
                live.in_flight.fetch_sub(1, Ordering::Relaxed);
                drop(permit);
            });
        }
        Running { workers, dropped, hard_stop, live: self.live, clock: self.clock }
    }
}

impl Running {
    /// Waits for every request; after a stop, in-flight requests get 5 s, then
    /// are cancelled and counted as abandoned.
    pub async fn wait(mut self, stop: &AtomicBool) -> Ended {
        let workers = &mut self.workers;
        let wait_all = async { while workers.join_next().await.is_some() {} };
        tokio::pin!(wait_all);
        loop {
            tokio::select! {
                _ = &mut wait_all => {
                    let stopped = stop.load(Ordering::SeqCst);
                    break Ended { stopped_at: stopped.then(|| self.clock.start.elapsed().as_secs_f64()), abandoned: 0 };
                }
                _ = tokio::time::sleep(Duration::from_millis(100)) => {
                    if stop.load(Ordering::SeqCst) {
                        let stopped_at = Some(self.clock.start.elapsed().as_secs_f64());
                        let mut abandoned = 0;
                        if tokio::time::timeout(Duration::from_secs(5), &mut wait_all).await.is_err() {
                            abandoned = self.live.in_flight.load(Ordering::SeqCst);
                            self.hard_stop.notify_waiters();
                            let _ = tokio::time::timeout(Duration::from_secs(2), &mut wait_all).await;
                        }
                        break Ended { stopped_at, abandoned };
                    }
                }
            }
        }
    }
}
