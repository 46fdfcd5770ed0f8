//! What a run sends and when: each request's class and prompt, fixed by the
//! seed, and the open-loop arrival times. Shared by the runner and the shards,
//! so a shard's slice of the schedule is exactly the whole run's.

use cfg_core::model::LoadTestSettings;
use cfg_core::sim::rng::SplitMix64;
use cfg_core::sim::{Class, draw_class};

// The arrival times are the core's, so the virtual-time sweep sends on the same clock.
pub use cfg_core::sim::arrivals::{DEFAULT_RATE_QPS, arrival_times, open_loop_rate};

use crate::client::RequestSpec;
use crate::prompt;

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
