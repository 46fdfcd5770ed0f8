//! The warm-up: `warmup_requests` sent before the measured phase and excluded
//! from every statistic. What the first ones saw tells about cold start.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cfg_core::verdict::ColdStart;

use super::{Live, Phase, Shared, stopped};

/// Sends schedule indices `0..count` on up to `concurrency` streams; returns what
/// the first requests saw (the first one's TTFT, failures among the first five).
pub(super) async fn run(
    shared: &Arc<Shared>,
    count: u64,
    concurrency: u32,
    stop: &Arc<AtomicBool>,
    live: &Live,
) -> Option<ColdStart> {
    let cold: Arc<Mutex<Option<ColdStart>>> = Arc::new(Mutex::new(None));
    live.snapshot.lock().expect("not poisoned").phase = Phase::Warmup;
    if count == 0 {
        return None;
    }
    let next = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..concurrency.min(count as u32) {
        let (shared, next, cold, stop) = (shared.clone(), next.clone(), cold.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= count || stop.load(Ordering::SeqCst) {
                    break;
                }
                let ignored = AtomicU64::new(0);
                let (_, _, r, _) =
                    tokio::select! { x = shared.one(i, None, &ignored) => x, _ = stopped(&stop) => break };
                let mut cold = cold.lock().expect("not poisoned");
                match r {
                    Ok(t) if i == 0 => cold.get_or_insert_with(ColdStart::default).first_ttft_ms = t.ttft * 1000.0,
                    Err(_) if i < 5 => cold.get_or_insert_with(ColdStart::default).first_failures += 1,
                    _ => {}
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    *cold.lock().expect("not poisoned")
}
