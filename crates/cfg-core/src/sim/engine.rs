//! A step-level model of one vLLM V1 instance: continuous batching with
//! `max_num_seqs` and `max_num_batched_tokens` per step, chunked prefill,
//! fcfs/priority admission, a paged KV cache (16-token blocks) with
//! preemption by recomputation when it is full, and step times from a
//! roofline cost model of the GPU. It has no clock of its own: a driver
//! calls [`Engine::step`] and either sleeps for the returned duration (the
//! HTTP simulator) or adds it to a virtual clock (what-if sweeps).

use std::collections::VecDeque;

/// Static description of the simulated instance.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub max_model_len: u32,
    pub chunked_prefill: bool,
    pub priority_scheduling: bool,
    /// KV cache capacity in tokens (a multiple of the block size).
    pub kv_capacity_tokens: u64,
    pub cost: CostModel,
}

/// Roofline step-time model: a step costs the larger of its compute time and
/// its memory time, plus a fixed scheduling/sampling overhead.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// FLOPs per token through the model (2 x active parameters), per GPU.
    pub flops_per_token: f64,
    /// Dense FLOP/s one GPU sustains (peak x achievable fraction).
    pub flops_per_sec: f64,
    /// Weight bytes every step streams from memory, per GPU.
    pub weight_bytes: f64,
    /// KV bytes read per token of context, per GPU.
    pub kv_bytes_per_token: f64,
    /// Bytes per second one GPU sustains (peak x achievable fraction).
    pub bytes_per_sec: f64,
    /// Fixed cost of a step in seconds (scheduler, sampler, launch).
    pub step_overhead_s: f64,
}

impl CostModel {
    /// Seconds for a step that processes `tokens` new tokens while reading
    /// `context_tokens` of KV cache.
    pub fn step_seconds(&self, tokens: u64, context_tokens: u64) -> f64 {
        let compute = tokens as f64 * self.flops_per_token / self.flops_per_sec;
        let memory = (self.weight_bytes + context_tokens as f64 * self.kv_bytes_per_token) / self.bytes_per_sec;
        compute.max(memory) + self.step_overhead_s
    }
}

pub const BLOCK_SIZE: u64 = 16;

/// A request as the engine sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineRequest {
    pub id: u64,
    pub prompt_tokens: u32,
    pub output_tokens: u32,
    /// Lower is served first under priority scheduling.
    pub priority: i32,
}

/// What happened to a request during a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenEvent {
    /// The first output token (prefill finished).
    First,
    /// A later output token.
    Next,
    /// The last output token; the request is finished.
    Done,
    /// Rejected: longer than max_model_len.
    Rejected,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    pub seconds: f64,
    pub events: Vec<(u64, TokenEvent)>,
    pub prefill_tokens: u64,
    pub decode_tokens: u64,
}

#[derive(Debug, Clone)]
struct Running {
    req: EngineRequest,
    /// Prompt tokens already prefilled.
    prefilled: u32,
    /// Output tokens already produced.
    generated: u32,
    blocks: u64,
}

impl Running {
    fn context(&self) -> u64 {
        u64::from(self.prefilled) + u64::from(self.generated)
    }
}

/// Engine state. Counters mirror vLLM's Prometheus metrics.
#[derive(Debug, Clone)]
pub struct Engine {
    pub config: EngineConfig,
    waiting: VecDeque<EngineRequest>,
    running: Vec<Running>,
    free_blocks: u64,
    pub preemptions_total: u64,
    pub prompt_tokens_total: u64,
    pub generation_tokens_total: u64,
    pub requests_finished_total: u64,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Self {
        let free_blocks = config.kv_capacity_tokens / BLOCK_SIZE;
        Engine {
            config,
            waiting: VecDeque::new(),
            running: Vec::new(),
            free_blocks,
            preemptions_total: 0,
            prompt_tokens_total: 0,
            generation_tokens_total: 0,
            requests_finished_total: 0,
        }
    }

    pub fn add(&mut self, req: EngineRequest) {
        self.waiting.push_back(req);
    }

    pub fn num_waiting(&self) -> usize {
        self.waiting.len()
    }

    pub fn num_running(&self) -> usize {
        self.running.len()
    }

    pub fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.running.is_empty()
    }

    /// Fraction of KV blocks in use, 0..1 (vLLM's `kv_cache_usage_perc`).
    pub fn kv_usage(&self) -> f64 {
        let total = (self.config.kv_capacity_tokens / BLOCK_SIZE).max(1);
        1.0 - self.free_blocks as f64 / total as f64
    }

    /// Removes a request (the client went away), freeing its KV blocks.
    pub fn abort(&mut self, id: u64) {
        self.waiting.retain(|r| r.id != id);
        if let Some(i) = self.running.iter().position(|r| r.req.id == id) {
            let r = self.running.remove(i);
            self.free_blocks += r.blocks;
        }
    }

    fn blocks_for(tokens: u64) -> u64 {
        tokens.div_ceil(BLOCK_SIZE)
    }

    /// Frees the most recently admitted request's KV and puts it back at the
    /// front of the queue (vLLM V1 preempts by recomputation).
    fn preempt_last(&mut self) -> bool {
        let Some(victim) = self.running.pop() else { return false };
        self.free_blocks += victim.blocks;
        self.preemptions_total += 1;
        self.waiting.push_front(victim.req);
        true
    }

    /// Runs one engine step: schedules decodes first, then continues or
    /// starts prefills within the token budget; returns how long the step
    /// takes and which requests produced tokens.
    pub fn step(&mut self) -> StepOutcome {
        let mut events = Vec::new();
        let cfg = self.config.clone();
        let mut budget = u64::from(cfg.max_num_batched_tokens);

        // Reject requests that can never run.
        self.waiting.retain(|r| {
            let too_long = u64::from(r.prompt_tokens) >= u64::from(cfg.max_model_len);
            if too_long {
                events.push((r.id, TokenEvent::Rejected));
            }
            !too_long
        });

        // 1. Decodes: every fully prefilled running request gets one token,
        //    growing its KV by one slot; preempt from the back when full.
        let mut decode_ids: Vec<u64> = Vec::new();
        let mut i = 0;
        while i < self.running.len() && budget > 0 {
            let r = &self.running[i];
            if r.prefilled < r.req.prompt_tokens {
                i += 1;
                continue;
            }
            let need = Self::blocks_for(r.context() + 1);
            let extra = need.saturating_sub(r.blocks);
            if extra > self.free_blocks {
                // Preempt the newest request (possibly this one) and retry.
                let last = self.running.len() - 1;
                self.preempt_last();
                if last == i {
                    break;
                }
                continue;
            }
            self.free_blocks -= extra;
            let r = &mut self.running[i];
            r.blocks = need;
            budget -= 1;
            decode_ids.push(r.req.id);
            i += 1;
        }

        // 2. Prefill chunks of requests already running.
        let mut prefill_tokens = 0u64;
        let mut prefilled_now: Vec<(u64, bool)> = Vec::new();
        for idx in 0..self.running.len() {
            if budget == 0 {
                break;
            }
            let r = &self.running[idx];
            let remaining = u64::from(r.req.prompt_tokens - r.prefilled);
            if remaining == 0 || decode_ids.contains(&r.req.id) {
                continue;
            }
            let chunk = if cfg.chunked_prefill {
                remaining.min(budget)
            } else if remaining <= budget {
                remaining
            } else {
                0
            };
            if chunk == 0 {
                continue;
            }
            let need = Self::blocks_for(r.context() + chunk);
            let extra = need.saturating_sub(r.blocks);
            if extra > self.free_blocks {
                continue;
            }
            self.free_blocks -= extra;
            let r = &mut self.running[idx];
            r.blocks = need;
            r.prefilled += chunk as u32;
            budget -= chunk;
            prefill_tokens += chunk;
            prefilled_now.push((r.req.id, r.prefilled == r.req.prompt_tokens));
        }

        // 3. Admit waiting requests while there is room in the batch, the
        //    budget and the KV cache.
        if cfg.priority_scheduling {
            let mut v: Vec<EngineRequest> = self.waiting.drain(..).collect();
            v.sort_by_key(|r| r.priority);
            self.waiting = v.into();
        }
        while budget > 0 && (self.running.len() as u32) < cfg.max_num_seqs {
            let Some(front) = self.waiting.front() else { break };
            let prompt = u64::from(front.prompt_tokens);
            let chunk = if cfg.chunked_prefill { prompt.min(budget) } else { prompt };
            if chunk > budget {
                break;
            }
            let need = Self::blocks_for(chunk);
            if need > self.free_blocks {
                break;
            }
            let req = self.waiting.pop_front().expect("front exists");
            self.free_blocks -= need;
            budget -= chunk;
            prefill_tokens += chunk;
            let done = chunk == prompt;
            prefilled_now.push((req.id, done));
            self.running.push(Running { req, prefilled: chunk as u32, generated: 0, blocks: need });
        }

        // Cost of the step: all scheduled tokens, reading every running context.
        let decode_tokens = decode_ids.len() as u64;
        let context: u64 = self.running.iter().map(Running::context).sum();
        let seconds = if decode_tokens + prefill_tokens == 0 {
            0.0
        } else {
            cfg.cost.step_seconds(decode_tokens + prefill_tokens, context)
        };

        // Tokens come out at the end of the step.
        self.prompt_tokens_total += prefill_tokens;
        let mut finished: Vec<u64> = Vec::new();
        for r in self.running.iter_mut() {
            let id = r.req.id;
            let decoded = decode_ids.contains(&id);
            let first = prefilled_now.iter().any(|&(pid, done)| pid == id && done);
            if !(decoded || first) {
                continue;
            }
            r.generated += 1;
            self.generation_tokens_total += 1;
            let event = if r.generated >= r.req.output_tokens || r.context() >= u64::from(cfg.max_model_len) {
                finished.push(id);
                TokenEvent::Done
            } else if first {
                TokenEvent::First
            } else {
                TokenEvent::Next
            };
            // A one-token request's only token is both first and last.
            if first && event == TokenEvent::Done {
                events.push((id, TokenEvent::First));
            }
            events.push((id, event));
        }
        for id in finished {
            if let Some(i) = self.running.iter().position(|r| r.req.id == id) {
                let r = self.running.remove(i);
                self.free_blocks += r.blocks;
                self.requests_finished_total += 1;
            }
        }
        StepOutcome { seconds, events, prefill_tokens, decode_tokens }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(seqs: u32, tokens: u32, kv: u64) -> Engine {
        Engine::new(EngineConfig {
            max_num_seqs: seqs,
            max_num_batched_tokens: tokens,
            max_model_len: 4096,
            chunked_prefill: true,
            priority_scheduling: false,
            kv_capacity_tokens: kv,
            cost: CostModel {
                flops_per_token: 1e9,
                flops_per_sec: 1e12,
                weight_bytes: 1e9,
                kv_bytes_per_token: 1e5,
                bytes_per_sec: 1e12,
                step_overhead_s: 0.001,
            },
        })
    }

    fn run_to_completion(e: &mut Engine) -> Vec<(u64, TokenEvent)> {
        let mut all = Vec::new();
        for _ in 0..100_000 {
            if e.is_idle() {
                break;
            }
            all.extend(e.step().events);
        }
        all
    }

    #[test]
    fn every_request_gets_exactly_its_output_tokens() {
        let mut e = engine(4, 64, 100_000);
        for id in 0..10 {
            e.add(EngineRequest { id, prompt_tokens: 100 + id as u32, output_tokens: 5 + id as u32, priority: 0 });
        }
        let events = run_to_completion(&mut e);
        for id in 0..10u64 {
            let firsts = events.iter().filter(|(i, ev)| *i == id && *ev == TokenEvent::First).count();
            let tokens = events.iter().filter(|(i, _)| *i == id).count();
            assert_eq!(firsts, 1, "request {id}");
            let done = events.iter().filter(|(i, ev)| *i == id && *ev == TokenEvent::Done).count();
            assert_eq!(done, 1);
            assert!(tokens >= 5);
        }
        assert_eq!(e.generation_tokens_total, (5..15).sum::<u64>());
        assert_eq!(e.prompt_tokens_total, (100..110).sum::<u64>());
        assert_eq!(e.kv_usage(), 0.0, "all blocks freed");
    }

    #[test]
    fn batch_never_exceeds_max_num_seqs_and_budget() {
        let mut e = engine(3, 50, 100_000);
        for id in 0..8 {
            e.add(EngineRequest { id, prompt_tokens: 40, output_tokens: 20, priority: 0 });
        }
        for _ in 0..500 {
            if e.is_idle() {
                break;
            }
            let out = e.step();
            assert!(e.num_running() <= 3);
            assert!(out.prefill_tokens + out.decode_tokens <= 50);
        }
        assert!(e.is_idle());
    }

    #[test]
    fn full_kv_cache_preempts_and_still_finishes() {
        // 20 blocks: two requests of 100 + 200 tokens cannot both stay resident.
        let mut e = engine(8, 512, 320);
        e.add(EngineRequest { id: 1, prompt_tokens: 100, output_tokens: 200, priority: 0 });
        e.add(EngineRequest { id: 2, prompt_tokens: 100, output_tokens: 200, priority: 0 });
        let events = run_to_completion(&mut e);
        assert!(e.preemptions_total > 0);
        assert_eq!(events.iter().filter(|(_, ev)| *ev == TokenEvent::Done).count(), 2);
    }

    #[test]
    fn too_long_prompts_are_rejected() {
        let mut e = engine(8, 512, 100_000);
        e.add(EngineRequest { id: 7, prompt_tokens: 5000, output_tokens: 10, priority: 0 });
        assert_eq!(e.step().events, vec![(7, TokenEvent::Rejected)]);
        assert!(e.is_idle());
    }
}
