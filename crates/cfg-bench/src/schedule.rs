//! What a run sends and when: each request's class and prompt, fixed by the
//! seed, and the open-loop arrival times. Shared by the runner and the shards,
//! so a shard's slice of the schedule is exactly the whole run's.

use cfg_core::model::{Arrival, ArrivalMode, LoadTestSettings};
use cfg_core::sim::rng::SplitMix64;
use cfg_core::sim::{Class, draw_class};

use crate::client::RequestSpec;
use crate::prompt;

/// The open-loop rate when settings.json gives none.
pub const DEFAULT_RATE_QPS: f64 = 1.0;

/// The open-loop rate this process sends at.
pub fn open_loop_rate(arrival: &Arrival) -> f64 {
    arrival.rate_qps.unwrap_or(DEFAULT_RATE_QPS).max(1e-6)
}

/// The request for schedule index `i`: its class and prompt seed, fixed by the seed.
pub fn scheduled(seed: u64, i: u64, classes: &[Class]) -> (usize, u64) {
    let mut rng = SplitMix64::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ i);
    (draw_class(&mut rng, classes), rng.next_u64())
}

/// Request `i` of the schedule: its class and what to send.
pub fn request(
    settings: &LoadTestSettings,
    classes: &[Class],
    words: &[u32],
    seed: u64,
    i: u64,
) -> (usize, RequestSpec) {
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
