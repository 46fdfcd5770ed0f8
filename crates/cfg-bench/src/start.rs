//! When the measured phase begins. A single run begins once its warm-up is
//! done; the shards of one run must begin together, or the server never
//! carries their combined load and the merged figures describe a load that
//! never happened. Either every shard is given the same wall-clock instant
//! (`--start-at`), or they agree on one through a folder they all see
//! (`--barrier`): each writes that it is ready, and all begin two seconds after
//! the last one was.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::shard::Shard;

/// How long a shard waits at the barrier for the others.
pub const BARRIER_TIMEOUT: Duration = Duration::from_secs(600);
/// The margin after the last shard is ready, so every shard sees it in time.
const MARGIN: Duration = Duration::from_secs(2);

#[derive(Debug, Clone)]
pub enum StartGate {
    /// Begin at this instant (or at once, with a note, if it has passed).
    At(SystemTime),
    /// Agree on the instant with the other shards through files in `dir`.
    Barrier { dir: PathBuf, shard: Shard, run: String },
}

impl StartGate {
    /// Waits for the agreed instant; returns early (with `false`) on a stop.
    pub async fn wait(&self, stop: &AtomicBool) -> Result<bool, String> {
        let at = match self {
            StartGate::At(at) => *at,
            StartGate::Barrier { dir, shard, run } => match barrier(dir, *shard, run, stop).await? {
                Some(at) => at,
                None => return Ok(false),
            },
        };
        match at.duration_since(SystemTime::now()) {
            Ok(wait) => {
                eprintln!("starting the measured phase in {:.1} s, with the other shards", wait.as_secs_f64());
                let deadline = tokio::time::Instant::now() + wait;
                while tokio::time::Instant::now() < deadline {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(false);
                    }
                    tokio::time::sleep(Duration::from_millis(20).min(deadline - tokio::time::Instant::now())).await;
                }
            }
            Err(late) => eprintln!(
                "warning: the agreed start passed {:.1} s ago (the warm-up took longer): starting now; merge checks the overlap",
                late.duration().as_secs_f64()
            ),
        }
        Ok(true)
    }
}

fn unix(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Writes this shard's ready file, waits for all N, and returns the agreed
/// instant: two seconds after the last shard was ready (the same for every
/// shard, since all read the same files). `None` when stopped first.
async fn barrier(
    dir: &std::path::Path,
    shard: Shard,
    run: &str,
    stop: &AtomicBool,
) -> Result<Option<SystemTime>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the barrier folder {}: {e}", dir.display()))?;
    let name = |i: u32| format!("ready-{run}-{i}-of-{}", shard.count);
    let mine = dir.join(name(shard.index));
    let tmp = dir.join(format!(".{}.tmp", name(shard.index)));
    std::fs::write(&tmp, format!("{:.3}\n", unix(SystemTime::now())))
        .and_then(|()| std::fs::rename(&tmp, &mine))
        .map_err(|e| format!("cannot write {}: {e}", mine.display()))?;
    eprintln!("shard {}/{}: ready; waiting at {} for the other shards", shard.index, shard.count, dir.display());
    let give_up = tokio::time::Instant::now() + BARRIER_TIMEOUT;
    loop {
        let times: Vec<Option<f64>> = (0..shard.count)
            .map(|i| std::fs::read_to_string(dir.join(name(i))).ok().and_then(|t| t.trim().parse().ok()))
            .collect();
        if times.iter().all(Option::is_some) {
            let last = times.into_iter().flatten().fold(0.0, f64::max);
            return Ok(Some(UNIX_EPOCH + Duration::from_secs_f64(last) + MARGIN));
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        if tokio::time::Instant::now() >= give_up {
            let missing: Vec<String> = times
                .iter()
                .enumerate()
                .filter(|(_, t)| t.is_none())
                .map(|(i, _)| format!("{i}/{}", shard.count))
                .collect();
            return Err(format!(
                "no sign of shard(s) {} at {} after {} s: start every shard with the same --barrier folder",
                missing.join(", "),
                dir.display(),
                BARRIER_TIMEOUT.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
