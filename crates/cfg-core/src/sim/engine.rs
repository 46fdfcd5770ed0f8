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
/// its memory time, plus a fixed scheduling/sampling overhead. The constants
/// behind it, and the benchmark rows they were fitted on, are in `sim/fit.rs`.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// FLOPs per token through the model's weights (2 x active parameters), per GPU.
    pub flops_per_token: f64,
    /// Attention FLOPs per (query token, key token) pair, per GPU: 4 x layers x
    /// the query width (QK^T and AV).
    pub attention_flops_per_pair: f64,
    /// Dense FLOP/s one GPU sustains (peak x achievable fraction).
    pub flops_per_sec: f64,
    /// Weight bytes every step streams from memory, per GPU: all of a dense
    /// model, the non-expert part of a mixture of experts.
    pub weight_bytes: f64,
    /// Bytes of all routed experts, per GPU (0 for a dense model).
    pub expert_bytes: f64,
    /// Experts a token is routed to over the experts there are (k / E); a step
    /// of `n` tokens reads the share 1 - (1 - k/E)^n of `expert_bytes`.
    pub expert_share_per_token: f64,
    /// KV bytes read per token of context, per GPU.
    pub kv_bytes_per_token: f64,
    /// Bytes of recurrent state (linear-attention and Mamba layers) a running
    /// sequence has read and written back in every step, per GPU: twice its
    /// state, whatever its length.
    pub state_bytes_per_sequence: f64,
    /// Bytes per second one GPU sustains (peak x achievable fraction).
    pub bytes_per_sec: f64,
    /// Bytes per second the routed experts are read at: lower than
    /// `bytes_per_sec` where they carry a scale per block.
    pub expert_bytes_per_sec: f64,
    /// Fixed cost of a step in seconds (scheduler, sampler, launch, and the
    /// tensor-parallel all-reduces' latency).
    pub step_overhead_s: f64,
    /// Seconds each token of a step adds moving its activations between
    /// tensor-parallel GPUs (0 on one GPU): all-reduces do not overlap compute.
    pub comm_seconds_per_token: f64,
    /// Time a request spends outside the engine before its first token reaches
    /// the client: HTTP, tokenisation, the first detokenisation. It adds to TTFT
    /// and E2E, not to the engine's steps.
    pub request_overhead_s: f64,
    /// Pipeline-parallel stages (1 without pipeline parallelism). The figures
    /// above are one stage's: its GPUs hold 1/stages of the layers.
    pub pipeline_stages: u32,
}

impl CostModel {
    /// Seconds for a step that processes `tokens` new tokens while reading
    /// `context_tokens` of KV cache, with `attention_pairs` query-key pairs.
    ///
    /// With pipeline parallelism vLLM splits the batch into one micro-batch
    /// per stage and keeps every stage busy: each sequence's token passes
    /// through the stages one after another, so a step (one token for every
    /// running sequence) takes `stages` ticks of one stage on one micro-batch.
    /// With fewer `sequences` than stages, the micro-batches are the sequences.
    pub fn step_seconds(&self, tokens: u64, sequences: usize, context_tokens: u64, attention_pairs: f64) -> f64 {
        let stages = f64::from(self.pipeline_stages.max(1));
        let micro_batches = stages.min(sequences.max(1) as f64);
        let tokens = tokens as f64 / micro_batches;
        let (context_tokens, attention_pairs) =
            (context_tokens as f64 / micro_batches, attention_pairs / micro_batches);
        let states = sequences as f64 / micro_batches * self.state_bytes_per_sequence;
        let compute =
            (tokens * self.flops_per_token + attention_pairs * self.attention_flops_per_pair) / self.flops_per_sec;
        let experts = if self.expert_bytes > 0.0 {
            self.expert_bytes * (1.0 - (1.0 - self.expert_share_per_token).powf(tokens))
        } else {
            0.0
        };
        let memory = (self.weight_bytes + context_tokens * self.kv_bytes_per_token + states) / self.bytes_per_sec
            + experts / self.expert_bytes_per_sec;
        stages * (compute.max(memory) + tokens * self.comm_seconds_per_token + self.step_overhead_s)
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

/// Prefill work scheduled in a step.
#[derive(Default)]
struct Prefill {
    tokens: u64,
    /// Requests with a prefill chunk in this step.
    requests: usize,
    /// Query-key pairs of the prefill chunks: each chunk's tokens attend to
    /// what came before them and to half the chunk on average.
    attention_pairs: f64,
    /// Requests whose prompt is complete after this step: their first token comes out.
    done: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    pub seconds: f64,
    pub events: Vec<(u64, TokenEvent)>,
    pub prefill_tokens: u64,
    pub decode_tokens: u64,
}

/// A request waiting for admission, with the output it had already produced
/// if it was preempted (vLLM recomputes that on re-admission).
#[derive(Debug, Clone)]
struct Waiting {
    req: EngineRequest,
    generated: u32,
}

#[derive(Debug, Clone)]
struct Running {
    req: EngineRequest,
    /// Tokens to (re)compute before decoding: the prompt plus any output
    /// produced before a preemption.
    prefill_target: u32,
    prefilled: u32,
    /// Output tokens produced in total, across preemptions.
    generated: u32,
    /// Output tokens produced since this admission (in the KV cache after the prefill).
    decoded_here: u32,
    blocks: u64,
}

impl Running {
    fn context(&self) -> u64 {
        u64::from(self.prefilled) + u64::from(self.decoded_here)
    }

    fn prefilling(&self) -> bool {
        self.prefilled < self.prefill_target
    }
}

/// Engine state. Counters mirror vLLM's Prometheus metrics.
#[derive(Debug, Clone)]
pub struct Engine {
    pub config: EngineConfig,
    waiting: VecDeque<Waiting>,
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
        self.waiting.push_back(Waiting { req, generated: 0 });
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
        self.waiting.retain(|w| w.req.id != id);
        if let Some(i) = self.running.iter().position(|r| r.req.id == id) {
            let r = self.running.remove(i);
            self.free_blocks += r.blocks;
        }
    }

    fn blocks_for(tokens: u64) -> u64 {
        tokens.div_ceil(BLOCK_SIZE)
    }

    /// Frees the lowest-priority (then newest) running request's KV and puts
    /// it back at the front of the queue with its progress: vLLM V1 preempts
    /// by recomputation.
    fn preempt(&mut self) -> bool {
        let Some(victim) = (0..self.running.len()).rev().max_by_key(|&i| self.running[i].req.priority) else {
            return false;
        };
        let v = self.running.remove(victim);
        self.free_blocks += v.blocks;
        self.preemptions_total += 1;
        self.waiting.push_front(Waiting { req: v.req, generated: v.generated });
        true
    }

    /// Runs one engine step: decodes first, then continues or starts
    /// prefills within the token budget; returns how long the step takes and
    /// which requests produced tokens.
    /// One engine step, as vLLM V1's scheduler takes it: decodes first, then
    /// prefill chunks of running requests, then admissions, all within the
    /// step's token budget; the tokens come out when the step's time is over.
    pub fn step(&mut self) -> StepOutcome {
        let mut events = Vec::new();
        let mut budget = u64::from(self.config.max_num_batched_tokens);
        self.reject_too_long(&mut events);
        let (scheduled, preempted, decode_pairs) = self.schedule_decodes(&mut budget);
        let mut prefill = Prefill::default();
        self.schedule_prefill_chunks(&mut budget, &mut prefill);
        if !preempted {
            // As vLLM V1: a step that had to preempt admits nobody.
            self.admit(&mut budget, &mut prefill);
        }
        // Cost of the step: every scheduled token, reading every running context.
        let decode_tokens = scheduled.len() as u64;
        let context: u64 = self.running.iter().map(Running::context).sum();
        let seconds = if decode_tokens + prefill.tokens == 0 {
            0.0
        } else {
            self.config.cost.step_seconds(
                decode_tokens + prefill.tokens,
                scheduled.len() + prefill.requests,
                context,
                decode_pairs as f64 + prefill.attention_pairs,
            )
        };
        self.emit_tokens(&scheduled, &prefill.done, &mut events);
        StepOutcome { seconds, events, prefill_tokens: prefill.tokens, decode_tokens }
    }

    /// Requests that can never run: the prompt alone fills the context.
    fn reject_too_long(&mut self, events: &mut Vec<(u64, TokenEvent)>) {
        let max_model_len = u64::from(self.config.max_model_len);
        self.waiting.retain(|w| {
            let too_long = u64::from(w.req.prompt_tokens) >= max_model_len;
            if too_long {
                events.push((w.req.id, TokenEvent::Rejected));
            }
            !too_long
        });
    }

    /// Every fully prefilled request gets one token, growing its KV by one slot;
    /// when the cache is full, preempt and retry. Returns the scheduled ids and
    /// whether anything was preempted.
    fn schedule_decodes(&mut self, budget: &mut u64) -> (Vec<u64>, bool, u64) {
        let mut scheduled: Vec<u64> = Vec::new();
        let mut preempted = false;
        // Query-key pairs: each decoded token attends to its whole context.
        let mut pairs = 0;
        let mut i = 0;
        while i < self.running.len() && *budget > 0 {
            if self.running[i].prefilling() {
                i += 1;
                continue;
            }
            let need = Self::blocks_for(self.running[i].context() + 1);
            let extra = need.saturating_sub(self.running[i].blocks);
            if extra > self.free_blocks {
                let id = self.running[i].req.id;
                self.preempt();
                preempted = true;
                // Indices moved: carry on from this request, or from where it was if it was the victim.
                if let Some(pos) = self.running.iter().position(|r| r.req.id == id) {
                    i = pos;
                }
                continue;
            }
            self.free_blocks -= extra;
            self.running[i].blocks = need;
            *budget -= 1;
            scheduled.push(self.running[i].req.id);
            pairs += self.running[i].context() + 1;
            i += 1;
        }
        (scheduled, preempted, pairs)
    }

    /// The next prefill chunk of every running request still prefilling.
    fn schedule_prefill_chunks(&mut self, budget: &mut u64, prefill: &mut Prefill) {
        let chunked = self.config.chunked_prefill;
        for r in self.running.iter_mut() {
            if *budget == 0 {
                break;
            }
            if !r.prefilling() {
                continue;
            }
            let remaining = u64::from(r.prefill_target - r.prefilled);
            let chunk = if chunked {
                remaining.min(*budget)
            } else if remaining <= *budget {
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
            r.blocks = need;
            prefill.attention_pairs += chunk as f64 * (r.context() as f64 + chunk as f64 / 2.0);
            prefill.requests += 1;
            r.prefilled += chunk as u32;
            *budget -= chunk;
            prefill.tokens += chunk;
            if !r.prefilling() {
                prefill.done.push(r.req.id);
            }
        }
    }

    /// Waiting requests join the batch while the budget, `max_num_seqs` and the
    /// free KV blocks allow (by priority under the priority policy).
    fn admit(&mut self, budget: &mut u64, prefill: &mut Prefill) {
        let cfg = &self.config;
        if cfg.priority_scheduling {
            let mut v: Vec<Waiting> = self.waiting.drain(..).collect();
            v.sort_by_key(|w| w.req.priority);
            self.waiting = v.into();
        }
        let (chunked, max_num_seqs) = (cfg.chunked_prefill, cfg.max_num_seqs);
        while *budget > 0 && (self.running.len() as u32) < max_num_seqs {
            let Some(front) = self.waiting.front() else { break };
            let target = front.req.prompt_tokens + front.generated;
            let chunk = if chunked { u64::from(target).min(*budget) } else { u64::from(target) };
            if chunk > *budget {
                break;
            }
            let need = Self::blocks_for(chunk);
            if need > self.free_blocks {
                break;
            }
            let w = self.waiting.pop_front().expect("front exists");
            self.free_blocks -= need;
            *budget -= chunk;
            prefill.tokens += chunk;
            prefill.attention_pairs += chunk as f64 * chunk as f64 / 2.0;
            prefill.requests += 1;
            let r = Running {
                req: w.req,
                prefill_target: target,
                prefilled: chunk as u32,
                generated: w.generated,
                decoded_here: 0,
                blocks: need,
            };
            if !r.prefilling() {
                prefill.done.push(r.req.id);
            }
            self.running.push(r);
        }
    }

    /// The step's tokens: one for every request decoded or done prefilling;
    /// finished requests leave and free their blocks.
    fn emit_tokens(&mut self, scheduled: &[u64], prefill_done: &[u64], events: &mut Vec<(u64, TokenEvent)>) {
        let max_model_len = u64::from(self.config.max_model_len);
        let mut finished: Vec<u64> = Vec::new();
        // A set: a batch of hundreds must not cost hundreds squared.
        let producing: std::collections::HashSet<u64> = scheduled.iter().chain(prefill_done).copied().collect();
        for r in self.running.iter_mut() {
            let id = r.req.id;
            if !producing.contains(&id) {
                continue;
            }
            r.generated += 1;
            r.decoded_here += 1;
            self.generation_tokens_total += 1;
            if r.generated == 1 {
                self.prompt_tokens_total += u64::from(r.req.prompt_tokens);
            }
            // A request's only token is reported as Done alone; consumers
            // treat a Done without a First as the first token too.
            let event = if r.generated >= r.req.output_tokens || r.context() >= max_model_len {
                finished.push(id);
                TokenEvent::Done
            } else if r.generated == 1 {
                TokenEvent::First
            } else {
                TokenEvent::Next
            };
            events.push((id, event));
        }
        if !finished.is_empty() {
            let finished: std::collections::HashSet<u64> = finished.into_iter().collect();
            let mut freed = 0;
            self.running.retain(|r| {
                let done = finished.contains(&r.req.id);
                if done {
                    freed += r.blocks;
                }
                !done
            });
            self.free_blocks += freed;
            self.requests_finished_total += finished.len() as u64;
        }
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
                attention_flops_per_pair: 0.0,
                flops_per_sec: 1e12,
                weight_bytes: 1e9,
                expert_bytes: 0.0,
                expert_share_per_token: 0.0,
                kv_bytes_per_token: 1e5,
                state_bytes_per_sequence: 0.0,
                bytes_per_sec: 1e12,
                expert_bytes_per_sec: 1e12,
                step_overhead_s: 0.001,
                comm_seconds_per_token: 0.0,
                request_overhead_s: 0.0,
                pipeline_stages: 1,
            },
        })
    }

    /// A decode step of `sequences` sequences of the fixture's model: 1 GB of
    /// weights at 1 TB/s (1 ms), 1 ms of overhead, no context.
    fn decode_step(cost: &CostModel, sequences: usize) -> f64 {
        cost.step_seconds(sequences as u64, sequences, 0, 0.0)
    }

    #[test]
    fn a_pipeline_runs_one_sequence_through_every_stage_and_a_batch_in_micro_batches() {
        let mut cost = engine(1, 1, 0).config.cost;
        cost.pipeline_stages = 4;
        cost.flops_per_sec = 1e15;
        // Memory-bound: each stage reads its share of the weights (the
        // fixture's per-GPU 1 ms) and pays the overhead, one stage after
        // another, for one sequence as for 64 in four micro-batches.
        assert!((decode_step(&cost, 1) - 0.008).abs() < 1e-12);
        assert!((decode_step(&cost, 64) - 0.008).abs() < 1e-12);
        // Compute-bound (1 ms a token): a tick computes a micro-batch of 16
        // tokens, 4 x (16 + 1) ms, where one stage would take 64 + 1.
        cost.flops_per_sec = 1e12;
        assert!((decode_step(&cost, 64) - 0.068).abs() < 1e-12);
        cost.pipeline_stages = 1;
        assert!((decode_step(&cost, 64) - 0.065).abs() < 1e-12);
    }

    #[test]
    fn recurrent_state_is_read_and_written_per_sequence_and_activations_cross_the_link_per_token() {
        let mut cost = engine(1, 1, 0).config.cost;
        cost.flops_per_sec = 1e15;
        let plain = decode_step(&cost, 10);
        cost.state_bytes_per_sequence = 1e8;
        // Ten sequences move 1 GB of state at 1 TB/s: one more millisecond.
        assert!((decode_step(&cost, 10) - plain - 0.001).abs() < 1e-12);
        cost.comm_seconds_per_token = 1e-5;
        assert!((decode_step(&cost, 10) - plain - 0.001 - 1e-4).abs() < 1e-12);
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

    fn tokens_of(events: &[(u64, TokenEvent)], id: u64) -> (usize, usize, usize) {
        let of = |kind: TokenEvent| events.iter().filter(|(i, ev)| *i == id && *ev == kind).count();
        (of(TokenEvent::First), of(TokenEvent::Next), of(TokenEvent::Done))
    }

    #[test]
    fn every_request_gets_exactly_its_output_tokens() {
        let mut e = engine(4, 64, 100_000);
        for id in 0..10 {
            e.add(EngineRequest { id, prompt_tokens: 100 + id as u32, output_tokens: 1 + id as u32, priority: 0 });
        }
        let events = run_to_completion(&mut e);
        for id in 0..10u64 {
            let (first, next, done) = tokens_of(&events, id);
            assert_eq!(done, 1, "request {id}");
            assert_eq!(first + next + done, 1 + id as usize, "request {id}: one event per output token");
            assert_eq!(first, usize::from(id > 0), "a one-token request reports only Done");
        }
        assert_eq!(e.generation_tokens_total, (1..11).sum::<u64>());
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
    fn full_kv_cache_preempts_keeps_progress_and_frees_every_block() {
        // 20 blocks: two requests of 100 + 200 tokens cannot both stay resident.
        let mut e = engine(8, 512, 320);
        e.add(EngineRequest { id: 1, prompt_tokens: 100, output_tokens: 200, priority: 0 });
        e.add(EngineRequest { id: 2, prompt_tokens: 100, output_tokens: 200, priority: 0 });
        let events = run_to_completion(&mut e);
        assert!(e.preemptions_total > 0);
        for id in [1, 2] {
            assert_eq!(tokens_of(&events, id), (1, 198, 1), "request {id}: no token twice after recomputation");
        }
        assert_eq!(e.generation_tokens_total, 400);
        assert_eq!(e.kv_usage(), 0.0);
    }

    #[test]
    fn too_long_prompts_are_rejected() {
        let mut e = engine(8, 512, 100_000);
        e.add(EngineRequest { id: 7, prompt_tokens: 5000, output_tokens: 10, priority: 0 });
        assert_eq!(e.step().events, vec![(7, TokenEvent::Rejected)]);
        assert!(e.is_idle());
    }
}
