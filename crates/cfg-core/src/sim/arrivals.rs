//! When open-loop requests arrive: evenly spaced, Poisson or gamma gaps at
//! settings.json's rate, raised inside its bursts. One function for the runner
//! (which sends on this clock) and the virtual-time sweep (which simulates it).

use super::rng::SplitMix64;
use crate::model::{Arrival, ArrivalMode, LoadTestSettings};

/// The open-loop rate when settings.json gives none.
pub const DEFAULT_RATE_QPS: f64 = 1.0;

/// The open-loop rate this process sends at.
pub fn open_loop_rate(arrival: &Arrival) -> f64 {
    arrival.rate_qps.unwrap_or(DEFAULT_RATE_QPS).max(1e-6)
}

/// The gaps between open-loop arrivals, honouring bursts, up to `duration`.
/// A constant-rate clock starts `offset` seconds in (a shard's slot, see
/// cfg-bench's `Shard::arrival_offset`).
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
