//! The aggregator: every finished request goes into the collector, and the
//! optional circuit breaker watches the failures and stops a failing run.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cfg_core::model::CircuitBreaker;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Clock;
use crate::stats::{Collector, Outcome};

/// Collects outcomes until every sender is gone. A tripped breaker sets `stop`
/// and leaves its reason in `tripped`.
pub(super) fn spawn(
    mut rx: mpsc::UnboundedReceiver<Outcome>,
    collector: Arc<Mutex<Collector>>,
    breaker: Option<CircuitBreaker>,
    clock: Clock,
    stop: Arc<AtomicBool>,
    tripped: Arc<Mutex<Option<String>>>,
) -> JoinHandle<()> {
    let mut breaker = breaker.map(Breaker::new);
    tokio::spawn(async move {
        while let Some(o) = rx.recv().await {
            // Requests draining after the deadline no longer decide whether the run was whole.
            if let Some(b) = breaker.as_mut()
                && Instant::now() < clock.deadline
                && let Some(reason) = b.observe(o.result.is_err())
                && !stop.swap(true, Ordering::SeqCst)
            {
                *tripped.lock().expect("not poisoned") = Some(reason);
            }
            collector.lock().expect("not poisoned").add(o);
        }
    })
}

/// Trips when at least `error_rate` of the last `window` requests failed.
struct Breaker {
    limit: f64,
    window: usize,
    recent: VecDeque<bool>,
    failed: usize,
}

impl Breaker {
    fn new(c: CircuitBreaker) -> Self {
        let window = c.window.max(1) as usize;
        Breaker { limit: c.error_rate, window, recent: VecDeque::with_capacity(window), failed: 0 }
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
