//! The simulated vLLM instance: an engine model driven either in real time
//! by `cfg-bench sim` (an HTTP server) or in virtual time here, with no
//! sockets and no sleeping, for instant what-if sweeps in the CLI and the
//! browser.

pub mod arrivals;
pub mod bench;
pub mod engine;
pub mod fit;
pub mod rng;

use engine::{CostModel, Engine, EngineConfig, EngineRequest, TokenEvent};
use rng::SplitMix64;

use crate::catalog;
use crate::memory;
use crate::model::{ArrivalMode, LoadTestSettings, ServerConfig};
use crate::resolve::{self, Gpu};

pub use fit::Calibration;

/// GPU assumed when config.toml names none.
const DEFAULT_GPU: &str = "H100-80GB";

/// The engine configuration for a config.toml, and what had to be assumed.
pub struct Instance {
    pub engine: EngineConfig,
    pub gpu: Gpu,
    pub assumptions: Vec<String>,
}

/// Builds the simulated instance from the same memory model the linter uses.
pub fn instance(config: &ServerConfig) -> Result<Instance, String> {
    instance_with(config, None)
}

/// [`instance`] with the model's own files when the caller found them.
pub fn instance_with(config: &ServerConfig, found: Option<&crate::arch::Arch>) -> Result<Instance, String> {
    instance_calibrated(config, found, &Calibration::FITTED)
}

/// [`instance_with`] under given efficiency constants (what the fit varies).
pub fn instance_calibrated(
    config: &ServerConfig,
    found: Option<&crate::arch::Arch>,
    cal: &Calibration,
) -> Result<Instance, String> {
    let mut assumptions = Vec::new();
    let gpu = match resolve::gpu(config) {
        Some(g) => g,
        None => {
            assumptions.push(format!("no [hardware] gpu: simulating one {DEFAULT_GPU}"));
            let mut c = config.clone();
            c.hardware.get_or_insert_with(Default::default).gpu = Some(DEFAULT_GPU.into());
            resolve::gpu(&c).ok_or("the default GPU is missing from the catalog")?
        }
    };
    let arch = resolve::arch_with(config, found);
    let report = memory::estimate_with(config, &gpu, &arch).map_err(|m| match m {
        memory::Missing::Gpu => "the simulator needs a GPU: add [hardware] gpu".to_string(),
        memory::Missing::Architecture(f) => {
            format!("the simulator needs the model's `{f}`: use a catalog model, have its config.json in the Hugging Face cache, or add [model.architecture]")
        }
        memory::Missing::Value(f) => format!("`{f}` is not a usable number: run `cfg-lint check`"),
    })?;
    if !report.fits() {
        return Err(format!(
            "the model does not fit on the {} with this config (run `cfg-lint check`); a real vLLM would not start",
            gpu.name
        ));
    }
    let spec = catalog::find_gpu(&gpu.name);
    let tflops = gpu.bf16_dense_tflops.or(spec.map(|s| s.bf16_dense_tflops)).unwrap_or_else(|| {
        assumptions.push("GPU throughput unknown: assuming 100 TFLOP/s".into());
        100.0
    });
    let bandwidth = gpu.memory_bandwidth_gbps.or(spec.map(|s| s.memory_bandwidth_gbps)).unwrap_or_else(|| {
        assumptions.push("GPU bandwidth unknown: assuming 1000 GB/s".into());
        1000.0
    });
    let tp = config.tensor_parallel_size().max(1);
    let link = match spec {
        Some(s) => s.link_gbps,
        None if tp > 1 => {
            assumptions.push("GPU link unknown: assuming PCIe Gen4 (32 GB/s)".into());
            32.0
        }
        None => 32.0,
    };
    let pp = config.pipeline_parallel_size().max(1);
    let shards = f64::from(tp * pp);
    let active = arch.num_active_parameters.or(arch.num_parameters).unwrap_or(1) as f64;
    let batch = resolve::batch(config, &arch, Some(&gpu));
    // Routed experts are stored at the quantized width (gpt-oss quantizes
    // nothing else), the rest of the model partly at 16 bits.
    let expert_param_bytes = report.weight_bytes_per_param / shards;
    let (dense_bytes, expert_bytes, expert_share) = split_experts(&arch, report.weights_bytes, expert_param_bytes);
    if expert_bytes > 0.0 && dense_bytes <= 0.0 {
        assumptions.push(format!(
            "the experts at {} bytes a parameter take all of the weights: every step reads only the experts its tokens touch",
            expert_param_bytes * shards
        ));
    }
    let (method, as_stored) = memory::quantization_in_effect(config, &arch);
    let bytes_per_sec = bandwidth * 1e9 * cal.bandwidth_efficiency;
    let expert_bytes_per_sec = if experts_block_scaled(method.as_deref(), as_stored, &arch) {
        bytes_per_sec * cal.scaled_expert_bandwidth
    } else {
        bytes_per_sec
    };
    // An untied input embedding is a lookup: a step reads the rows of its
    // tokens, not the matrix (16-bit in every format; split as the weights are).
    let lookup_bytes = if arch.tie_word_embeddings == Some(false) {
        let dtype = resolve::dtype(config, &arch, Some(&gpu));
        f64::from(arch.vocab_size.unwrap_or(0)) * f64::from(arch.hidden_size.unwrap_or(0)) * dtype.bytes() / shards
    } else {
        0.0
    };
    let dense_bytes = (dense_bytes - lookup_bytes).max(0.0);
    let routed = routed_active_parameters(&arch);
    let layers = f64::from(arch.num_hidden_layers.unwrap_or(32));
    // Linear-attention and Mamba layers keep a fixed state: only the layers
    // that attend pay per (query, key) pair.
    let attending_layers = arch.layer_kinds.map_or(layers, |k| f64::from(k.full + k.sliding));
    let heads = f64::from(arch.num_attention_heads.unwrap_or(32));
    let head_dim = f64::from(
        arch.head_dim.or(arch.hidden_size.zip(arch.num_attention_heads).map(|(h, n)| h / n.max(1))).unwrap_or(128),
    );
    // Two all-reduces per layer when the layers are split across GPUs (after
    // attention and after the MLP); Nemotron-H's layers are one block each (a
    // Mamba mixer, an attention or an MoE), with one.
    let layers_here = layers / f64::from(pp);
    let per_layer = if arch.model_type.as_deref() == Some("nemotron_h") { 1.0 } else { 2.0 };
    let all_reduces = if tp > 1 { per_layer * layers_here } else { 0.0 };
    // A ring all-reduce sends 2 (tp - 1) / tp of the message from every GPU:
    // each token's hidden state at 16 bits.
    let hidden = f64::from(arch.hidden_size.unwrap_or(4096));
    let ring = 2.0 * f64::from(tp - 1) / f64::from(tp);
    let comm_seconds_per_token = all_reduces * hidden * 2.0 * ring / (link * 1e9 * cal.link_efficiency);
    let eager = if config.enforce_eager() { layers_here * cal.eager_layer_s } else { 0.0 };
    let moe_layers = if routed > 0.0 { layers_here * cal.moe_layer_s } else { 0.0 };
    Ok(Instance {
        engine: EngineConfig {
            max_num_seqs: batch.max_num_seqs,
            max_num_batched_tokens: batch.max_num_batched_tokens,
            // "auto" serves the length vLLM fits to the cache.
            max_model_len: report.max_model_len,
            chunked_prefill: config.chunked_prefill(),
            priority_scheduling: matches!(
                config.batching().scheduling_policy,
                Some(crate::model::SchedulingPolicy::Priority)
            ),
            kv_capacity_tokens: report.kv_capacity_tokens,
            cost: CostModel {
                flops_per_token: 2.0 * (active - routed + routed * cal.moe_compute_factor) / shards,
                attention_flops_per_pair: 4.0 * attending_layers * heads * head_dim / shards,
                flops_per_sec: tflops * 1e12 * cal.flops_efficiency,
                weight_bytes: dense_bytes,
                expert_bytes,
                expert_share_per_token: expert_share,
                kv_bytes_per_token: report.kv_bytes_per_token,
                state_bytes_per_sequence: 2.0 * report.state_bytes_per_request,
                bytes_per_sec,
                expert_bytes_per_sec,
                step_overhead_s: cal.step_overhead_s + all_reduces * cal.all_reduce_s + eager + moe_layers,
                comm_seconds_per_token,
                request_overhead_s: cal.request_overhead_s,
                pipeline_stages: pp,
            },
        },
        gpu,
        assumptions,
    })
}

/// A mixture of experts' shape: (experts E, experts per token k, parameters
/// of one expert, all parameters, active parameters); `None` for a dense model
/// or one whose counts do not add up. total = shared + E x per_expert, active
/// = shared + k x per_expert.
fn expert_shape(arch: &crate::arch::Arch) -> Option<(u32, u32, f64, f64, f64)> {
    let (Some(e), Some(k), Some(total), Some(active)) =
        (arch.num_experts, arch.experts_per_token, arch.num_parameters, arch.num_active_parameters)
    else {
        return None;
    };
    if e <= k || k == 0 || active >= total {
        return None;
    }
    let per_expert = (total - active) as f64 / f64::from(e - k);
    Some((e, k, per_expert, total as f64, active as f64))
}

/// A step's weights, per GPU: (read every step, the routed experts, the share
/// of the experts one token uses). A mixture of experts reads only the experts
/// its tokens were routed to: with k of E experts per token, `n` tokens touch
/// 1 - (1 - k/E)^n of them. Dense models read everything every step. The
/// experts take `expert_param_bytes` per parameter on each GPU.
fn split_experts(arch: &crate::arch::Arch, weights_bytes: f64, expert_param_bytes: f64) -> (f64, f64, f64) {
    let Some((e, k, per_expert, _, _)) = expert_shape(arch) else {
        return (weights_bytes, 0.0, 0.0);
    };
    let experts = (per_expert * f64::from(e) * expert_param_bytes).clamp(0.0, weights_bytes);
    (weights_bytes - experts, experts, f64::from(k) / f64::from(e))
}

/// Whether the experts vLLM runs carry a scale per small block: MX formats
/// (32 values), NVFP4 (16), 4-bit groups (AWQ, GPTQ, auto-round,
/// compressed-tensors W4A16), and FP8 in blocks (DeepSeek's 128 x 128; DeepSeek
/// V4's experts are MXFP4); not FP8 with one scale per tensor or channel, as
/// `quantization = "fp8"` makes of a 16-bit checkpoint. Such experts are read
/// at `scaled_expert_bandwidth`, fitted on MXFP4 and block-FP8 rows only.
fn experts_block_scaled(method: Option<&str>, as_stored: bool, arch: &crate::arch::Arch) -> bool {
    match method {
        Some("fp8") => as_stored && arch.quant_block_scaled,
        // A compressed-tensors checkpoint of 4 bits is quantized in groups.
        Some("compressed-tensors") => as_stored && arch.quant_bits.is_some_and(|b| b <= 4),
        Some(m) => matches!(
            m,
            "mxfp4"
                | "gpt_oss_mxfp4"
                | "mxfp8"
                | "modelopt_mxfp8"
                | "modelopt_fp4"
                | "nvfp4_per_token"
                | "fp8_per_block"
                | "awq"
                | "auto_awq"
                | "awq_marlin"
                | "gptq"
                | "auto_gptq"
                | "gptq_marlin"
                | "moe_wna16"
                | "inc"
                | "fp_quant"
                | "deepseek_v4_fp8"
        ),
        None => false,
    }
}

/// The parameters a token runs through in its routed experts (k of E), the
/// part of a mixture of experts that computes slower than a dense layer of
/// the same size: 0 for a dense model.
fn routed_active_parameters(arch: &crate::arch::Arch) -> f64 {
    expert_shape(arch).map_or(0.0, |(_, k, per_expert, _, active)| (per_expert * f64::from(k)).min(active))
}

/// One request class: weight, prompt and output length.
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    pub name: String,
    pub weight: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
}

pub fn classes(settings: &LoadTestSettings) -> Vec<Class> {
    settings
        .request_distribution
        .iter()
        .map(|(name, c)| Class {
            name: name.clone(),
            weight: c.weight,
            input_tokens: c.input_tokens,
            output_tokens: c.output_tokens,
        })
        .collect()
}

/// Draws a class index by weight.
pub fn draw_class(rng: &mut SplitMix64, classes: &[Class]) -> usize {
    let total: f64 = classes.iter().map(|c| c.weight.max(0.0)).sum();
    if total <= 0.0 {
        return 0;
    }
    let mut x = rng.next_f64() * total;
    for (i, c) in classes.iter().enumerate() {
        x -= c.weight.max(0.0);
        if x < 0.0 {
            return i;
        }
    }
    classes.len() - 1
}

/// What happened to one request in a virtual-time run (seconds).
#[derive(Debug, Clone, PartialEq)]
struct Trace {
    pub class: usize,
    pub sent: f64,
    pub first_token: Option<f64>,
    pub finished: Option<f64>,
    pub output_tokens: u32,
    pub rejected: bool,
}

/// How a virtual-time run sends its requests: as `cfg-bench run` would for
/// the same settings.json.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Load<'a> {
    /// `concurrency` requests always in flight; each completion sends the next.
    Closed { concurrency: u32 },
    /// Requests arrive at these times (seconds), at most `concurrency` in
    /// flight. An arrival that finds every slot taken waits for one, and its
    /// clock starts when it gets it, as the runner's TTFT does.
    Open { times: &'a [f64], concurrency: u32 },
}

impl Load<'_> {
    fn concurrency(&self) -> u32 {
        match *self {
            Load::Closed { concurrency } | Load::Open { concurrency, .. } => concurrency,
        }
    }
}

/// The load settings.json describes, in words: "concurrency 32" or
/// "4 req/s (poisson), at most 32 in flight".
pub fn load_description(settings: &LoadTestSettings) -> String {
    match &settings.arrival {
        Some(a) if a.mode != ArrivalMode::Closed => format!(
            "{} req/s ({}), at most {} in flight",
            arrivals::open_loop_rate(a),
            format!("{:?}", a.mode).to_lowercase(),
            settings.concurrency
        ),
        _ => format!("concurrency {}", settings.concurrency),
    }
}

/// Runs `load` against one engine in virtual time for `duration_s`.
fn run_load(engine: EngineConfig, classes: &[Class], load: Load<'_>, duration_s: f64, seed: u64) -> Vec<Trace> {
    let mut e = Engine::new(engine);
    let mut rng = SplitMix64::new(seed);
    let mut traces: Vec<Trace> = Vec::new();
    let cap = load.concurrency().max(1);
    let times: &[f64] = match load {
        Load::Open { times, .. } => times,
        Load::Closed { .. } => &[],
    };
    let (mut now, mut next, mut in_flight) = (0.0f64, 0usize, 0u32);
    // When the last slot freed while all were taken: an arrival before it waited.
    let mut slot_opened = 0.0f64;
    let send = |e: &mut Engine, traces: &mut Vec<Trace>, sent: f64, rng: &mut SplitMix64| {
        let class = draw_class(rng, classes);
        let id = traces.len() as u64;
        e.add(EngineRequest {
            id,
            prompt_tokens: classes[class].input_tokens,
            output_tokens: classes[class].output_tokens,
            priority: 0,
        });
        traces.push(Trace { class, sent, first_token: None, finished: None, output_tokens: 0, rejected: false });
    };
    if let Load::Closed { .. } = load {
        for _ in 0..cap {
            send(&mut e, &mut traces, now, &mut rng);
        }
        in_flight = cap;
    }
    // Bound the work whatever the inputs: a sweep must stay interactive.
    for _ in 0..2_000_000 {
        if now >= duration_s {
            break;
        }
        // The engine takes new requests between steps, as vLLM's does.
        while next < times.len() && times[next] <= now && in_flight < cap {
            send(&mut e, &mut traces, times[next].max(slot_opened), &mut rng);
            next += 1;
            in_flight += 1;
        }
        if e.is_idle() {
            match times.get(next) {
                Some(&at) if in_flight < cap => {
                    now = now.max(at);
                    continue;
                }
                _ => break,
            }
        }
        let out = e.step();
        now += out.seconds.max(1e-6);
        for (id, ev) in out.events {
            let t = &mut traces[id as usize];
            match ev {
                TokenEvent::First => {
                    t.first_token = Some(now);
                    t.output_tokens += 1;
                }
                TokenEvent::Next => t.output_tokens += 1,
                TokenEvent::Done => {
                    t.first_token.get_or_insert(now);
                    t.output_tokens += 1;
                    t.finished = Some(now);
                }
                TokenEvent::Rejected => {
                    t.rejected = true;
                    t.finished = Some(now);
                }
            }
            if matches!(ev, TokenEvent::Done | TokenEvent::Rejected) {
                if in_flight == cap {
                    slot_opened = now;
                }
                in_flight -= 1;
                if matches!(load, Load::Closed { .. }) && now < duration_s {
                    send(&mut e, &mut traces, now, &mut rng);
                    in_flight += 1;
                }
            }
        }
    }
    traces
}

/// One point of a what-if sweep. The latencies are `None` when no request
/// finished in the simulated window; `note` then says why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SweepPoint {
    pub parameter: String,
    pub value: u32,
    pub ttft_p50_ms: Option<f64>,
    pub ttft_p99_ms: Option<f64>,
    pub tpot_p50_ms: Option<f64>,
    pub output_tokens_per_sec: f64,
    pub requests_per_sec: f64,
    pub completed: usize,
    pub note: Option<String>,
}

/// Exact percentile (nearest rank) of unsorted samples; `None` when empty.
pub fn percentile(samples: &mut [f64], p: f64) -> Option<f64> {
    samples.sort_by(f64::total_cmp);
    nearest_rank(samples, p)
}

/// The nearest-rank `p`th percentile (0-100) of sorted samples.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    (!sorted.is_empty()).then(|| sorted[rank.min(sorted.len()) - 1])
}

/// What a simulated run measured after its warm-up.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Summary {
    pub ttft_p50_ms: Option<f64>,
    pub ttft_p99_ms: Option<f64>,
    pub tpot_p50_ms: Option<f64>,
    pub output_tokens_per_sec: f64,
    pub requests_per_sec: f64,
    /// Requests finished after the warm-up.
    pub completed: usize,
}

/// Summarises a virtual-time run, ignoring requests sent in the first `warmup_s` seconds.
fn summarise(traces: &[Trace], duration_s: f64, warmup_s: f64) -> Summary {
    let done: Vec<&Trace> =
        traces.iter().filter(|t| !t.rejected && t.finished.is_some() && t.sent >= warmup_s).collect();
    let mut ttft: Vec<f64> = done.iter().filter_map(|t| Some((t.first_token? - t.sent) * 1000.0)).collect();
    let mut tpot: Vec<f64> = done
        .iter()
        .filter(|t| t.output_tokens > 1)
        .filter_map(|t| Some((t.finished? - t.first_token?) * 1000.0 / f64::from(t.output_tokens - 1)))
        .collect();
    let window = (duration_s - warmup_s).max(1e-9);
    // From +0: an empty f64 sum is -0, which would print as "-0 tok/s".
    let tokens: f64 = done.iter().map(|t| f64::from(t.output_tokens)).fold(0.0, |a, b| a + b);
    Summary {
        ttft_p50_ms: percentile(&mut ttft, 50.0),
        ttft_p99_ms: percentile(&mut ttft, 99.0),
        tpot_p50_ms: percentile(&mut tpot, 50.0),
        output_tokens_per_sec: tokens / window,
        requests_per_sec: done.len() as f64 / window,
        completed: done.len(),
    }
}

/// Why a simulated window finished no request: a class that can never run,
/// else a load too heavy for the window.
fn nothing_finished(
    engine: &EngineConfig,
    classes: &[Class],
    load: &str,
    duration_s: f64,
    finished_in_warmup: usize,
) -> String {
    for c in classes {
        if c.input_tokens >= engine.max_model_len {
            return format!(
                "class `{}`: a {}-token prompt leaves no room in max_model_len {}: vLLM refuses it",
                c.name, c.input_tokens, engine.max_model_len
            );
        }
        let need = (u64::from(c.input_tokens) + u64::from(c.output_tokens)).min(u64::from(engine.max_model_len));
        if need > engine.kv_capacity_tokens {
            return format!(
                "class `{}` needs {need} tokens of KV cache and the instance has {}: it never starts",
                c.name, engine.kv_capacity_tokens
            );
        }
    }
    if finished_in_warmup > 0 {
        return format!(
            "only requests sent in the warm-up finished in the simulated {duration_s:.0} s: at {load} each later one waits behind too many others (max_num_seqs {} at a time)",
            engine.max_num_seqs
        );
    }
    format!("no request finished in the simulated {duration_s:.0} s at {load}: the load is far beyond this instance")
}

/// Predicted TTFT and throughput for each value of `max_num_seqs`, under the
/// settings' traffic mix and load (closed loop at its concurrency, or its
/// open-loop arrivals): the seed's trade-off as numbers.
pub fn sweep_max_num_seqs(
    config: &ServerConfig,
    settings: &LoadTestSettings,
    values: &[u32],
    duration_s: f64,
) -> Result<Vec<SweepPoint>, String> {
    sweep_max_num_seqs_with(config, settings, None, values, duration_s)
}

/// The pair's own prediction: its load on its instance, as one sweep point at
/// the config's own (or vLLM's default) `max_num_seqs`. What the web app's
/// summary shows.
pub fn predict(
    config: &ServerConfig,
    settings: &LoadTestSettings,
    found: Option<&crate::arch::Arch>,
    duration_s: f64,
) -> Result<SweepPoint, String> {
    let seqs = instance_with(config, found)?.engine.max_num_seqs;
    let points = sweep_max_num_seqs_with(config, settings, found, &[seqs], duration_s)?;
    points.into_iter().next().ok_or_else(|| "the simulator returned nothing".to_string())
}

/// [`sweep_max_num_seqs`] with the model's own files when the caller found them.
pub fn sweep_max_num_seqs_with(
    config: &ServerConfig,
    settings: &LoadTestSettings,
    found: Option<&crate::arch::Arch>,
    values: &[u32],
    duration_s: f64,
) -> Result<Vec<SweepPoint>, String> {
    if values.contains(&0) {
        return Err("max_num_seqs must be at least 1: vLLM refuses 0".into());
    }
    let classes = classes(settings);
    let open = settings.arrival.as_ref().is_some_and(|a| a.mode != ArrivalMode::Closed);
    let times = if open { arrivals::arrival_times(settings, duration_s, 0.0) } else { Vec::new() };
    let warmup = duration_s * 0.1;
    if open && !times.iter().any(|&t| t >= warmup) {
        return Err(format!(
            "at {} no request arrives in the measured part of the simulated {duration_s:.0} s (after {warmup:.0} s of warm-up): simulate a longer window or raise rate_qps",
            load_description(settings)
        ));
    }
    let load = if open {
        Load::Open { times: &times, concurrency: settings.concurrency }
    } else {
        Load::Closed { concurrency: settings.concurrency }
    };
    let mut points = Vec::new();
    for &value in values {
        let mut c = config.clone();
        c.batching.get_or_insert_with(Default::default).max_num_seqs = Some(value);
        let inst = instance_with(&c, found)?;
        let traces = run_load(inst.engine.clone(), &classes, load, duration_s, 42);
        let s = summarise(&traces, duration_s, warmup);
        points.push(SweepPoint {
            parameter: "max_num_seqs".into(),
            value,
            ttft_p50_ms: s.ttft_p50_ms,
            ttft_p99_ms: s.ttft_p99_ms,
            tpot_p50_ms: s.tpot_p50_ms,
            output_tokens_per_sec: s.output_tokens_per_sec,
            requests_per_sec: s.requests_per_sec,
            completed: s.completed,
            note: (s.completed == 0).then(|| {
                let finished = traces.iter().filter(|t| t.finished.is_some() && !t.rejected).count();
                nothing_finished(&inst.engine, &classes, &load_description(settings), duration_s, finished)
            }),
        });
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seqs: u32) -> ServerConfig {
        toml::from_str(&format!(
            "[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nmax_model_len = 8192\n[batching]\nmax_num_seqs = {seqs}\nmax_num_batched_tokens = 8192\n[hardware]\ngpu = \"L40S\"\n"
        ))
        .unwrap()
    }

    fn settings(concurrency: u32) -> LoadTestSettings {
        serde_json::from_value(serde_json::json!({
            "endpoint": "http://127.0.0.1:8000/v1/completions", "model": "m", "concurrency": concurrency, "duration_seconds": 60,
            "request_distribution": {
                "short": {"weight": 0.7, "input_tokens": 256, "output_tokens": 128},
                "long": {"weight": 0.3, "input_tokens": 2048, "output_tokens": 256}
            }
        }))
        .unwrap()
    }

    #[test]
    fn raising_max_num_seqs_raises_throughput_and_ttft() {
        // The seed's trade-off: more sequences per batch, more throughput, later first tokens.
        let points = sweep_max_num_seqs(&config(8), &settings(128), &[8, 128], 60.0).unwrap();
        let (small, large) = (&points[0], &points[1]);
        assert!(large.output_tokens_per_sec > small.output_tokens_per_sec * 1.5, "{points:?}");
        let mut s = settings(128);
        s.concurrency = 32;
        let p = sweep_max_num_seqs(&config(8), &s, &[4, 32], 60.0).unwrap();
        assert!(p[1].tpot_p50_ms > p[0].tpot_p50_ms, "bigger batches decode slower per token: {p:?}");
    }

    #[test]
    fn a_sweep_never_answers_with_nan() {
        assert!(sweep_max_num_seqs(&config(8), &settings(8), &[0, 8], 30.0).unwrap_err().contains("at least 1"));
        // A class longer than the KV cache holds: no figures, and why.
        let mut engine = instance(&config(8)).unwrap().engine;
        engine.kv_capacity_tokens = 1024;
        let cls = vec![Class { name: "long".into(), weight: 1.0, input_tokens: 2048, output_tokens: 256 }];
        let traces = run_load(engine.clone(), &cls, Load::Closed { concurrency: 4 }, 30.0, 1);
        let s = summarise(&traces, 30.0, 3.0);
        assert_eq!((s.completed, s.ttft_p99_ms), (0, None), "{s:?}");
        let why = nothing_finished(&engine, &cls, "concurrency 4", 30.0, 0);
        assert!(why.contains("class `long` needs 2304 tokens of KV cache and the instance has 1024"), "{why}");
        // One sequence at a time for eight streams: the window ends before any
        // request sent after the warm-up is served; said, not NaN.
        let points = sweep_max_num_seqs(&config(8), &settings(8), &[1, 8], 30.0).unwrap();
        let text = serde_json::to_string(&points).unwrap();
        assert!(!text.contains("NaN") && !text.contains("-0"), "{text}");
        assert!(points[0].note.as_deref().is_some_and(|n| n.contains("waits behind")), "{points:?}");
        assert!(points[1].note.is_none() && points[1].ttft_p99_ms.is_some(), "{points:?}");
    }

    /// The weights the memory model loads per GPU, and the step-time model,
    /// for a catalog model on `gpus` GPUs (tensor parallel), with extra [model] keys.
    fn cost_of(model: &str, gpu: &str, gpus: u32, keys: &str) -> (f64, CostModel) {
        let config: ServerConfig = toml::from_str(&format!(
            "[model]\nname = \"{model}\"\nmax_model_len = 4096\n{keys}[parallel]\ntensor_parallel_size = {gpus}\n[hardware]\ngpu = \"{gpu}\"\ngpu_count = {gpus}\n"
        ))
        .unwrap();
        (memory::estimate(&config).unwrap().weights_bytes, instance(&config).unwrap().engine.cost)
    }

    #[test]
    fn a_step_reads_an_untied_embeddings_rows_not_its_matrix() {
        // Llama 3.1 8B: a 128,256 x 4,096 input embedding at 2 bytes is looked
        // up; its separate output head is read in full. Tensor parallelism
        // splits its vocabulary as it splits the weights.
        let (loaded, cost) = cost_of("meta-llama/Llama-3.1-8B-Instruct", "L40S", 1, "");
        assert_eq!((loaded - cost.weight_bytes, cost.expert_bytes), (128_256.0 * 4_096.0 * 2.0, 0.0));
        let (loaded, cost) = cost_of("meta-llama/Llama-3.1-8B-Instruct", "L40S", 2, "");
        assert_eq!(loaded - cost.weight_bytes, 128_256.0 * 4_096.0 * 2.0 / 2.0);
        // Qwen3-4B ties the two: the one matrix is the output head, read every step.
        let (loaded, cost) = cost_of("Qwen/Qwen3-4B", "L40S", 1, "");
        assert_eq!(loaded, cost.weight_bytes);
    }

    #[test]
    fn a_mixtures_experts_are_sized_at_their_stored_width() {
        // gpt-oss-20b quantizes only its experts, to MXFP4 (0.5625 bytes a
        // parameter); attention, router and embeddings stay 16-bit, so the
        // part read every step is not the experts' share of the parameters.
        let (loaded, cost) = cost_of("openai/gpt-oss-20b", "H100", 1, "");
        let arch = resolve::arch(&toml::from_str("[model]\nname = \"openai/gpt-oss-20b\"\n").unwrap());
        let (e, _, per_expert, total, _) = expert_shape(&arch).unwrap();
        assert_eq!(cost.expert_bytes, per_expert * f64::from(e) * 0.5625);
        assert!((cost.weight_bytes + cost.expert_bytes + 201_088.0 * 2_880.0 * 2.0 - loaded).abs() < 1.0);
        let by_parameter_share = loaded * (1.0 - per_expert * f64::from(e) / total);
        assert!(cost.weight_bytes > 1.5 * by_parameter_share, "{cost:?}, {by_parameter_share} by share");
    }

    #[test]
    fn experts_with_a_scale_per_block_are_read_at_their_own_bandwidth() {
        let scaled = Calibration::FITTED.scaled_expert_bandwidth;
        let share = |cost: &CostModel| cost.expert_bytes_per_sec / cost.bytes_per_sec;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // MXFP4 (a scale per 32 values), DeepSeek's 128 x 128 FP8 blocks in the
        // checkpoint, NVFP4 (16 values).
        assert!(close(share(&cost_of("openai/gpt-oss-20b", "H100", 1, "").1), scaled));
        assert!(close(share(&cost_of("Qwen/Qwen3-30B-A3B-FP8", "H100", 1, "").1), scaled));
        assert!(close(share(&cost_of("deepseek-ai/DeepSeek-R1", "H200", 8, "").1), scaled));
        assert!(close(share(&cost_of("nvidia/Qwen3.5-122B-A10B-NVFP4", "B200", 2, "").1), scaled));
        // 16-bit experts, and FP8 with one scale per tensor made at load time.
        assert!(close(share(&cost_of("Qwen/Qwen3-30B-A3B", "H100", 1, "").1), 1.0));
        assert!(close(share(&cost_of("Qwen/Qwen3-30B-A3B", "H100", 1, "quantization = \"fp8\"\n").1), 1.0));
        // The block size is the checkpoint's: the same FP8 method without it is per tensor.
        let mut arch = resolve::arch(&toml::from_str("[model]\nname = \"Qwen/Qwen3-30B-A3B-FP8\"\n").unwrap());
        assert!(experts_block_scaled(Some("fp8"), true, &arch));
        arch.quant_block_scaled = false;
        assert!(!experts_block_scaled(Some("fp8"), true, &arch));
        assert!(experts_block_scaled(Some("awq_marlin"), true, &arch));
    }

    fn open_loop(rate: f64, concurrency: u32) -> LoadTestSettings {
        let mut s = settings(concurrency);
        s.arrival = Some(serde_json::from_value(serde_json::json!({"mode": "poisson", "rate_qps": rate})).unwrap());
        s
    }

    #[test]
    fn an_open_loop_sweep_sends_at_the_rate() {
        // Half a request a second is far below what an L40S serves: every
        // arrival is served at once, so requests/s is the rate and TTFT is one
        // request's prefill, whatever max_num_seqs is.
        let s = open_loop(0.5, 64);
        assert_eq!(load_description(&s), "0.5 req/s (poisson), at most 64 in flight");
        let light = sweep_max_num_seqs(&config(64), &s, &[8, 64], 600.0).unwrap();
        for p in &light {
            assert!((p.requests_per_sec - 0.5).abs() < 0.1, "{light:?}");
            assert!(p.ttft_p50_ms.unwrap() < 500.0, "{light:?}");
        }
        // Twenty a second is beyond it: throughput levels off at what the
        // engine serves, arrivals wait for one of the 64 slots (a wait the
        // runner does not count in TTFT, since it sends only then), and every
        // step carries a full batch, so first tokens and each token after
        // come slower than for a lone request.
        let heavy = sweep_max_num_seqs(&config(64), &open_loop(20.0, 64), &[64], 120.0).unwrap();
        assert!(heavy[0].requests_per_sec < 15.0, "{heavy:?}");
        assert!(heavy[0].ttft_p50_ms.unwrap() > 2.0 * light[1].ttft_p50_ms.unwrap(), "{heavy:?} {light:?}");
        assert!(heavy[0].tpot_p50_ms.unwrap() > 1.5 * light[1].tpot_p50_ms.unwrap(), "{heavy:?} {light:?}");
        // Saturated, the open loop keeps all 64 slots busy, as a closed loop at
        // concurrency 64 does: the two serve the same within the class mix's
        // noise (each draws its own sequence of classes).
        let closed = sweep_max_num_seqs(&config(64), &settings(64), &[64], 120.0).unwrap();
        let ratio = heavy[0].output_tokens_per_sec / closed[0].output_tokens_per_sec;
        assert!((0.85..1.15).contains(&ratio), "{ratio} {heavy:?} {closed:?}");
    }

    #[test]
    fn an_open_loop_too_slow_for_the_window_says_so() {
        // One request every 200 s: the first arrives after the window.
        let mut s = settings(64);
        s.arrival = Some(serde_json::from_value(serde_json::json!({"mode": "constant", "rate_qps": 0.005})).unwrap());
        let e = sweep_max_num_seqs(&config(64), &s, &[8], 120.0).unwrap_err();
        assert!(e.contains("no request arrives in the measured part of the simulated 120 s"), "{e}");
    }

    #[test]
    fn an_open_loop_arrival_waits_for_a_slot() {
        // Three arrivals 1 ms apart, one slot: the second and third are sent
        // when the one before finishes, not when they arrived.
        let inst = instance(&config(8)).unwrap();
        let cls = vec![Class { name: "a".into(), weight: 1.0, input_tokens: 128, output_tokens: 16 }];
        let times = [0.0, 0.001, 0.002];
        let t = run_load(inst.engine, &cls, Load::Open { times: &times, concurrency: 1 }, 30.0, 1);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].sent, 0.0);
        assert_eq!(Some(t[1].sent), t[0].finished, "{t:?}");
        assert_eq!(Some(t[2].sent), t[1].finished, "{t:?}");
        assert!(t.iter().all(|r| r.finished.is_some() && r.output_tokens == 16), "{t:?}");
    }

    #[test]
    fn same_seed_same_schedule() {
        let inst = instance(&config(64)).unwrap();
        let cls = classes(&settings(16));
        let a = run_load(inst.engine.clone(), &cls, Load::Closed { concurrency: 16 }, 10.0, 7);
        let b = run_load(inst.engine, &cls, Load::Closed { concurrency: 16 }, 10.0, 7);
        assert_eq!(a, b);
    }
}
