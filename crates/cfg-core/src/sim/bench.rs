//! A load as `vllm bench serve` sends it, in virtual time: `num_prompts`
//! requests of the stated lengths (or lengths varied around them, as a
//! conversation data set's are), at most `max_concurrency` in flight, arriving at
//! `request_rate` per second (Poisson) or all at once, and the figures it
//! prints: output throughput over the whole benchmark, mean and median TTFT
//! and TPOT. It is what a public benchmark row is replayed with.

use super::engine::{BLOCK_SIZE, Engine, EngineConfig, EngineRequest, TokenEvent};
use super::rng::SplitMix64;

/// What `vllm bench serve` was asked to send.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchLoad {
    pub num_prompts: u32,
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// `--max-concurrency`; `None`: no limit.
    pub max_concurrency: Option<u32>,
    /// `--request-rate` in requests per second; `None`: all at once (`inf`).
    pub request_rate: Option<f64>,
    /// Prompts, and outputs, whose lengths vary from request to request around
    /// the stated means, as a conversation data set's do (ShareGPT):
    /// exponential, capped at four times the mean and at the context. With
    /// equal lengths every request of a concurrency-limited run finishes, and
    /// the next ones arrive, in lockstep, which a real data set never does.
    pub varied_prompts: bool,
    pub varied_outputs: bool,
    pub seed: u64,
}

/// What it would print.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchFigures {
    /// From the first request sent to the last one finished.
    pub duration_s: f64,
    pub completed: u32,
    pub output_tokens_per_sec: f64,
    pub requests_per_sec: f64,
    pub mean_ttft_ms: f64,
    pub median_ttft_ms: f64,
    /// Per request, (E2E - TTFT) / (output tokens - 1); requests with one token left out.
    pub mean_tpot_ms: f64,
    pub median_tpot_ms: f64,
}

/// Why a replay gave no figures.
#[derive(Debug, Clone, PartialEq)]
pub enum NoFigures {
    /// The prompt is as long as the context: vLLM refuses every request.
    TooLong { prompt: u32, max_model_len: u32 },
    /// One request needs more KV cache than the instance has: it never starts.
    DoesNotFit { tokens: u64, kv_capacity_tokens: u64 },
    /// The engine could schedule nothing: a prompt over the step's token
    /// budget with chunked prefill off, or blocks that never free up.
    Stalled,
    /// The work bound ran out first (an absurd load).
    TooMuchWork,
}

impl std::fmt::Display for NoFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoFigures::TooLong { prompt, max_model_len } => write!(
                f,
                "a {prompt}-token prompt leaves no room in max_model_len {max_model_len}: vLLM refuses every request"
            ),
            NoFigures::DoesNotFit { tokens, kv_capacity_tokens } => write!(
                f,
                "one request needs {tokens} tokens of KV cache and the instance has {kv_capacity_tokens}: it never starts"
            ),
            NoFigures::Stalled => write!(
                f,
                "the engine could schedule nothing (a prompt over max_num_batched_tokens with chunked prefill off, or a cache too small for the batch)"
            ),
            NoFigures::TooMuchWork => write!(f, "the simulation's work bound ran out before the load finished"),
        }
    }
}

struct Request {
    sent: f64,
    first: Option<f64>,
    finished: Option<f64>,
    tokens: u32,
}

/// Replays `load` against one instance in virtual time.
pub fn run(engine: EngineConfig, load: &BenchLoad) -> Result<BenchFigures, NoFigures> {
    if load.input_tokens >= engine.max_model_len {
        return Err(NoFigures::TooLong { prompt: load.input_tokens, max_model_len: engine.max_model_len });
    }
    let lengths = lengths(load, engine.max_model_len);
    let needed = lengths.iter().map(|&(i, o)| u64::from(i) + u64::from(o)).max().unwrap_or(0);
    // The cache is handed out in whole blocks.
    let needed = needed.min(u64::from(engine.max_model_len)).div_ceil(BLOCK_SIZE) * BLOCK_SIZE;
    if needed > engine.kv_capacity_tokens / BLOCK_SIZE * BLOCK_SIZE {
        return Err(NoFigures::DoesNotFit { tokens: needed, kv_capacity_tokens: engine.kv_capacity_tokens });
    }
    // vLLM's API server takes each request in turn (HTTP, tokenisation) before
    // the engine sees it: a queue with one server. At low load it adds its time
    // to TTFT; a burst of hundreds waits in it.
    let api_time = engine.cost.request_overhead_s;
    let mut e = Engine::new(engine);
    let mut rng = SplitMix64::new(load.seed);
    let mut at = 0.0;
    let arrivals: Vec<f64> = (0..load.num_prompts)
        .map(|_| {
            let t = at;
            if let Some(rate) = load.request_rate.filter(|r| r.is_finite() && *r > 0.0) {
                at += rng.exponential(rate);
            }
            t
        })
        .collect();
    let cap = load.max_concurrency.unwrap_or(u32::MAX).max(1);
    let mut requests: Vec<Request> = Vec::with_capacity(arrivals.len());
    // Requests through the API server, in order, with when the engine gets each.
    let mut entering: std::collections::VecDeque<(f64, u64)> = std::collections::VecDeque::new();
    let mut api_free = 0.0f64;
    let (mut next, mut in_flight, mut now) = (0usize, 0u32, 0.0f64);
    let mut idle_steps = 0;
    for _ in 0..20_000_000u64 {
        // Arrived requests start while there is a free slot (the benchmark's
        // semaphore: a request's clock starts when it gets one).
        while next < arrivals.len() && arrivals[next] <= now && in_flight < cap {
            // With no limit a request goes out when it arrives; with one, when a
            // slot frees (seen at the end of the step that freed it).
            let sent = if cap == u32::MAX { arrivals[next] } else { arrivals[next].max(now) };
            let ready = sent.max(api_free) + api_time;
            api_free = ready;
            entering.push_back((ready, requests.len() as u64));
            requests.push(Request { sent, first: None, finished: None, tokens: 0 });
            next += 1;
            in_flight += 1;
        }
        while let Some(&(ready, id)) = entering.front() {
            if ready > now {
                break;
            }
            entering.pop_front();
            e.add(EngineRequest {
                id,
                prompt_tokens: lengths[id as usize].0,
                output_tokens: lengths[id as usize].1,
                priority: 0,
            });
        }
        if e.is_idle() {
            let arrival = (next < arrivals.len() && in_flight < cap).then(|| arrivals[next]);
            match (entering.front().map(|f| f.0), arrival) {
                (None, None) if next >= arrivals.len() => return Ok(figures(&requests)),
                (None, None) => return Err(NoFigures::TooMuchWork),
                (a, b) => now = now.max(a.unwrap_or(f64::INFINITY).min(b.unwrap_or(f64::INFINITY))),
            }
            continue;
        }
        let out = e.step();
        // A step that only preempted schedules nothing, and the next one goes on;
        // several in a row with nothing done mean nothing ever will be.
        idle_steps = if out.seconds == 0.0 && out.events.is_empty() { idle_steps + 1 } else { 0 };
        if idle_steps > 3 {
            return Err(NoFigures::Stalled);
        }
        now += out.seconds;
        for (id, ev) in out.events {
            let r = &mut requests[id as usize];
            match ev {
                TokenEvent::First => {
                    r.first = Some(now);
                    r.tokens += 1;
                }
                TokenEvent::Next => r.tokens += 1,
                TokenEvent::Done | TokenEvent::Rejected => {
                    if ev == TokenEvent::Done {
                        r.tokens += 1;
                        r.first.get_or_insert(now);
                        r.finished = Some(now);
                    }
                    in_flight -= 1;
                }
            }
        }
    }
    Err(NoFigures::TooMuchWork)
}

/// Each request's (prompt, output) tokens: the stated lengths, or varied
/// around them (with a stream of its own, so the arrivals stay the same).
fn lengths(load: &BenchLoad, max_model_len: u32) -> Vec<(u32, u32)> {
    let (input, output) = (load.input_tokens.max(1), load.output_tokens.max(1));
    if !load.varied_prompts && !load.varied_outputs {
        return vec![(input, output); load.num_prompts as usize];
    }
    let mut rng = SplitMix64::new(load.seed ^ 0x5eed_1e79);
    let mut draw = |mean: u32, varied: bool| {
        if !varied {
            return mean;
        }
        let x = rng.exponential(1.0 / f64::from(mean)).round();
        (x as u32).clamp(1, mean.saturating_mul(4).max(1))
    };
    (0..load.num_prompts)
        .map(|_| {
            let o = draw(output, load.varied_outputs).min(max_model_len.saturating_sub(2).max(1));
            // Room for the output: the prompt gives way to it, as a data set
            // filtered by the context length would.
            let i = draw(input, load.varied_prompts).min(max_model_len.saturating_sub(o + 1).max(1));
            (i, o)
        })
        .collect()
}

fn figures(requests: &[Request]) -> BenchFigures {
    let done: Vec<&Request> = requests.iter().filter(|r| r.finished.is_some()).collect();
    let duration = done.iter().filter_map(|r| r.finished).fold(0.0, f64::max).max(1e-9);
    let mut ttft: Vec<f64> = done.iter().filter_map(|r| Some((r.first? - r.sent) * 1000.0)).collect();
    let mut tpot: Vec<f64> = done
        .iter()
        .filter(|r| r.tokens > 1)
        .filter_map(|r| Some((r.finished? - r.first?) * 1000.0 / f64::from(r.tokens - 1)))
        .collect();
    let tokens: f64 = done.iter().map(|r| f64::from(r.tokens)).sum();
    BenchFigures {
        duration_s: duration,
        completed: done.len() as u32,
        output_tokens_per_sec: tokens / duration,
        requests_per_sec: done.len() as f64 / duration,
        mean_ttft_ms: mean(&ttft),
        median_ttft_ms: median(&mut ttft),
        mean_tpot_ms: mean(&tpot),
        median_tpot_ms: median(&mut tpot),
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// The median as numpy takes it (the mean of the middle two of an even count).
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::engine::CostModel;

    fn engine(kv: u64) -> EngineConfig {
        EngineConfig {
            max_num_seqs: 64,
            max_num_batched_tokens: 2048,
            max_model_len: 4096,
            chunked_prefill: true,
            priority_scheduling: false,
            kv_capacity_tokens: kv,
            cost: CostModel {
                flops_per_token: 1e9,
                attention_flops_per_pair: 0.0,
                flops_per_sec: 1e12,
                weight_bytes: 1e9,
                expert_bytes: 0.0,
                expert_share_per_token: 0.0,
                kv_bytes_per_token: 0.0,
                state_bytes_per_sequence: 0.0,
                bytes_per_sec: 1e12,
                expert_bytes_per_sec: 1e12,
                step_overhead_s: 0.0,
                comm_seconds_per_token: 0.0,
                request_overhead_s: 0.010,
                pipeline_stages: 1,
            },
        }
    }

    #[test]
    fn one_stream_decodes_at_the_memory_bound() {
        let load = BenchLoad {
            num_prompts: 4,
            input_tokens: 100,
            output_tokens: 11,
            max_concurrency: Some(1),
            request_rate: None,
            varied_prompts: false,
            varied_outputs: false,
            seed: 1,
        };
        let f = run(engine(100_000), &load).unwrap();
        // Each decode step reads 1 GB at 1 TB/s: 1 ms a token.
        assert!((f.median_tpot_ms - 1.0).abs() < 1e-6, "{f:?}");
        // Prefill: 100 tokens x 1 GFLOP at 1 TFLOP/s = 0.1 s, plus the request's 10 ms.
        assert!((f.median_ttft_ms - 110.0).abs() < 1e-6, "{f:?}");
        assert_eq!(f.completed, 4);
        assert!(f.output_tokens_per_sec.is_finite() && f.output_tokens_per_sec > 0.0);
    }

    #[test]
    fn varied_lengths_keep_their_means_and_fit_the_context() {
        let load = BenchLoad {
            num_prompts: 4000,
            input_tokens: 220,
            output_tokens: 190,
            max_concurrency: Some(16),
            request_rate: None,
            varied_prompts: true,
            varied_outputs: true,
            seed: 7,
        };
        let v = lengths(&load, 4096);
        let mean = |f: fn(&(u32, u32)) -> u32| v.iter().map(|x| f64::from(f(x))).sum::<f64>() / v.len() as f64;
        // Capped at four times the mean, the means come out a little under
        // the stated ones.
        assert!((175.0..=195.0).contains(&mean(|x| x.1)), "output mean {}", mean(|x| x.1));
        assert!((200.0..=225.0).contains(&mean(|x| x.0)), "prompt mean {}", mean(|x| x.0));
        assert!(v.iter().all(|&(i, o)| (1..=880).contains(&i) && (1..=760).contains(&o)));
        let distinct: std::collections::HashSet<u32> = v.iter().map(|x| x.1).collect();
        assert!(distinct.len() > 100, "lengths vary");
        // A short context: every request still fits it.
        assert!(lengths(&load, 300).iter().all(|&(i, o)| i >= 1 && o >= 1 && i + o < 300));
        // The same seed gives the same lengths; equal lengths stay equal.
        assert_eq!(v, lengths(&load, 4096));
        let fixed = BenchLoad { varied_prompts: false, varied_outputs: false, ..load.clone() };
        assert!(lengths(&fixed, 4096).iter().all(|&x| x == (220, 190)));
        let f = run(engine(1_000_000), &BenchLoad { num_prompts: 200, ..fixed.clone() }).unwrap();
        // Varied prompts alone: every output is the stated one.
        let prompts_only = BenchLoad { varied_outputs: false, ..load.clone() };
        let p = lengths(&prompts_only, 4096);
        assert!(p.iter().all(|x| x.1 == 190) && p.iter().any(|x| x.0 != 220));
        // In a concurrency-capped run, equal lengths finish together and the
        // next sixteen all wait for one prefill: varied ones are staggered.
        let g = run(engine(1_000_000), &BenchLoad { num_prompts: 200, ..load }).unwrap();
        assert_eq!((f.completed, g.completed), (200, 200));
        assert!(g.median_ttft_ms < f.median_ttft_ms, "{} vs {}", g.median_ttft_ms, f.median_ttft_ms);
    }

    #[test]
    fn loads_that_cannot_run_say_why() {
        let load = BenchLoad {
            num_prompts: 2,
            input_tokens: 500,
            output_tokens: 10,
            max_concurrency: None,
            request_rate: None,
            varied_prompts: false,
            varied_outputs: false,
            seed: 1,
        };
        assert_eq!(run(engine(256), &load), Err(NoFigures::DoesNotFit { tokens: 512, kv_capacity_tokens: 256 }));
        // 1000 tokens of cache are 62 whole blocks: a 1000-token request does not fit.
        let exact = BenchLoad { input_tokens: 900, output_tokens: 100, ..load.clone() };
        assert!(matches!(run(engine(1000), &exact), Err(NoFigures::DoesNotFit { tokens: 1008, .. })));
        // A prompt over the step budget with chunked prefill off never starts: said at once.
        let mut unchunked = engine(100_000);
        unchunked.chunked_prefill = false;
        let big = BenchLoad { input_tokens: 3000, output_tokens: 10, ..load.clone() };
        assert_eq!(run(unchunked, &big), Err(NoFigures::Stalled));
        let long = BenchLoad { input_tokens: 5000, ..load };
        assert!(matches!(run(engine(100_000), &long), Err(NoFigures::TooLong { .. })));
    }
}
