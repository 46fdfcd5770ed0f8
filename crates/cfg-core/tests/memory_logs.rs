//! Replays the public vLLM start-up logs in `tests/memory-logs/logs.json`
//! through the memory model: each run is rebuilt from its settings and the
//! catalog, predicted as the vLLM release it ran, and compared with what its log
//! says (KV tokens, else KV GiB) and with how it ended. Prints the table and the
//! figures the README quotes; fails when the held-out entries miss the targets
//! (median KV error 3%, p90 8%) or a memory failure is not predicted.
//!
//! The allowances were fitted on the "fit" entries only (Llama-3.1-8B and
//! Qwen2.5-7B on H100, vLLM 0.19, and for mixtures of experts Qwen3-30B-A3B and
//! Mixtral-8x7B); everything else is held out.

use cfg_core::memory::{self, GIB, MemoryReport, Release};
use cfg_core::model::ServerConfig;
use cfg_core::resolve;
use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    id: String,
    vllm_version: Option<String>,
    gpu: String,
    tensor_parallel_size: Option<u32>,
    pipeline_parallel_size: Option<u32>,
    model: String,
    dtype: Option<String>,
    quantization: Option<String>,
    kv_cache_dtype: Option<String>,
    max_model_len: Option<u32>,
    max_num_seqs: Option<u32>,
    max_num_batched_tokens: Option<u32>,
    gpu_memory_utilization: Option<f64>,
    enforce_eager: Option<bool>,
    log: Log,
    outcome: String,
    failure_message: Option<String>,
}

#[derive(Deserialize)]
struct Log {
    total_gib: Option<f64>,
    kv_cache_gib: Option<f64>,
    kv_tokens: Option<u64>,
}

/// Entries the allowances were fitted on.
const FIT: &[&str] = &[
    "planner-h100-qwen25-7b-tp1",
    "planner-h100-qwen25-7b-tp2",
    "planner-h100-qwen25-7b-tp4",
    "planner-h100-llama31-8b-pp2",
    "planner-h100-llama31-8b-pp4",
    "planner-h100-llama31-8b-kvfp8",
    "planner-h100-llama31-8b-fp32",
    // The mixture-of-experts activation term.
    "planner-h100-qwen3-30b-a3b",
    "planner-h100-mixtral-8x7b-tp2",
];

/// Logged models outside the catalog, with the catalog model of the same
/// language-model architecture and the quantization the log names.
const TWINS: &[(&str, &str, Option<&str>)] = &[
    // LLaVA-1.6's language model is Mistral-7B-Instruct-v0.2 (plus a 0.3B CLIP tower).
    ("llava-hf/llava-v1.6-mistral-7b-hf", "mistralai/Mistral-7B-Instruct-v0.2", None),
    ("RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", Some("compressed-tensors")),
    ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", Some("compressed-tensors")),
    ("Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-72B", None),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "meta-llama/Llama-3.1-8B-Instruct", Some("gptq_marlin")),
    ("deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseek-ai/DeepSeek-V2-Lite", None),
    // Mistral-Small-3.2 is 3.1's language model (2501's architecture) with a Pixtral tower.
    ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistralai/Mistral-Small-24B-Instruct-2501", None),
];

/// Catalog GPUs by the names logs print.
fn catalog_gpu(logged: &str) -> Option<&'static str> {
    let l = logged.to_ascii_lowercase();
    let table: &[(&str, &str)] = &[
        ("h100 pcie", "H100-PCIE"),
        ("h100", "H100-80GB"),
        ("h200", "H200"),
        ("gh200", "GH200"),
        ("a100 80gb", "A100-80GB"),
        ("a100 (memory", "A100-80GB"),
        ("rtx 3090", "RTX-3090"),
        ("rtx 309", "RTX-3090"),
        ("rtx 4090", "RTX-4090"),
        ("rtx 509", "RTX-5090"),
        ("mi300x", "MI300X"),
    ];
    if l.contains("gh200") {
        return Some("GH200");
    }
    table.iter().find(|(k, _)| l.contains(k)).map(|(_, v)| *v)
}

fn release(e: &Entry) -> Option<u32> {
    if let Some(v) = &e.vllm_version {
        let minor = v.trim_start_matches('v').split('.').nth(1)?;
        return minor.parse().ok();
    }
    None
}

/// What is wrong with a failure, for the agreement check.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Failure {
    /// Decided by vLLM's own memory accounting: what the model predicts.
    Memory,
    /// Another process held the GPU ("Free memory on device ... is less than
    /// desired"): no config file can predict it.
    OtherProcess,
    /// Out of memory after the KV cache was sized (sampler warm-up, graph
    /// capture): outside vLLM's accounting, so outside the model's.
    AfterSizing,
    /// The cause is not in the log.
    Unknown,
}

/// Failures whose cause the thread states but the quoted log does not.
const STATED_CAUSES: &[(&str, Failure)] = &[
    // "the same error about the kv cache, requiring me to decrease the context or
    // increase even more the memory utilization" (vllm-project/vllm#27508).
    ("vllm-27508-h100-gptoss120b-kvfail", Failure::Memory),
];

fn failure(e: &Entry) -> Failure {
    if let Some((_, cause)) = STATED_CAUSES.iter().find(|(id, _)| *id == e.id) {
        return *cause;
    }
    let m = e.failure_message.as_deref().unwrap_or("");
    if m.contains("Free memory on device") {
        Failure::OtherProcess
    } else if m.contains("warming up sampler") {
        Failure::AfterSizing
    } else if m.contains("No available memory")
        || m.contains("To serve at least one request")
        || m.contains("out of memory during weight loading")
        || e.log.kv_cache_gib.is_some_and(|k| k < 0.0)
    {
        Failure::Memory
    } else {
        Failure::Unknown
    }
}

/// The run as config.toml would state it; `None` with the reason when it cannot be rebuilt.
fn rebuild(e: &Entry) -> Result<(ServerConfig, resolve::Gpu, resolve::Arch, Option<Release>), String> {
    let (model, quantization) = match TWINS.iter().find(|(name, _, _)| name.eq_ignore_ascii_case(&e.model)) {
        Some((_, twin, q)) => (twin.to_string(), q.map(str::to_string)),
        None => {
            let q = e.quantization.as_deref().and_then(|q| q.split_whitespace().next()).map(str::to_string);
            // "mxfp4 (checkpoint)": the checkpoint's own, which the catalog's config.json carries.
            let own = e.quantization.as_deref().is_some_and(|q| q.contains("checkpoint"));
            (e.model.clone(), if own { None } else { q })
        }
    };
    if cfg_core::catalog::find_model(&model).is_none() {
        return Err(format!("model {model} is not in the catalog"));
    }
    let gpu = catalog_gpu(&e.gpu).ok_or_else(|| format!("GPU {:?} is not in the catalog", e.gpu))?;
    // How memory is divided changed between releases (the activation profile
    // before 0.17, CUDA graphs since 0.21): a run is only replayed as the
    // release it ran. Outcomes are judged as the current release would.
    let known = release(e);
    let release = Release { minor: known.unwrap_or(Release::CURRENT.minor) };
    let mut toml = format!("[model]\nname = \"{model}\"\n");
    let mut push = |k: &str, v: String| toml.push_str(&format!("{k} = {v}\n"));
    if let Some(q) = quantization {
        push("quantization", format!("\"{q}\""));
    }
    if let Some(d) = &e.dtype {
        push("dtype", format!("\"{d}\""));
    }
    if let Some(k) = e.kv_cache_dtype.as_deref().filter(|k| *k != "auto") {
        push("kv_cache_dtype", format!("\"{k}\""));
    }
    if let Some(l) = e.max_model_len {
        push("max_model_len", l.to_string());
    }
    if let Some(u) = e.gpu_memory_utilization {
        push("gpu_memory_utilization", u.to_string());
    }
    if e.enforce_eager == Some(true) {
        push("enforce_eager", "true".into());
    }
    toml.push_str("[batching]\n");
    if let Some(n) = e.max_num_seqs {
        toml.push_str(&format!("max_num_seqs = {n}\n"));
    }
    if let Some(n) = e.max_num_batched_tokens {
        toml.push_str(&format!("max_num_batched_tokens = {n}\n"));
    }
    toml.push_str(&format!(
        "[parallel]\ntensor_parallel_size = {}\npipeline_parallel_size = {}\n[hardware]\ngpu = \"{gpu}\"\n",
        e.tensor_parallel_size.unwrap_or(1),
        e.pipeline_parallel_size.unwrap_or(1)
    ));
    let config: ServerConfig = toml::from_str(&toml).map_err(|err| format!("{toml}: {err}"))?;
    let mut device = resolve::gpu(&config).ok_or("no GPU")?;
    if let Some(total) = e.log.total_gib {
        // The log states what the device reported: use it over the catalog's.
        device.reported_gib = total;
    }
    let arch = resolve::arch(&config);
    Ok((config, device, arch, known.map(|_| release)))
}

struct Row {
    id: String,
    fit: bool,
    /// Signed relative error of KV tokens (or KV GiB), predicted vs logged.
    error: Option<f64>,
    measure: &'static str,
    outcome: Option<(Failure, bool)>,
    note: String,
}

fn replay(e: &Entry) -> Row {
    let fit = FIT.contains(&e.id.as_str());
    let mut row = Row { id: e.id.clone(), fit, error: None, measure: "-", outcome: None, note: String::new() };
    let (config, gpu, arch, release) = match rebuild(e) {
        Ok(r) => r,
        Err(why) => {
            row.note = format!("not replayed: {why}");
            return row;
        }
    };
    let r: MemoryReport = match memory::estimate_for(&config, &gpu, &arch, release.unwrap_or(Release::CURRENT)) {
        Ok(r) => r,
        Err(m) => {
            row.note = format!("not replayed: {m:?}");
            return row;
        }
    };
    match (release.and(e.log.kv_tokens), release.and(e.log.kv_cache_gib)) {
        // A prediction of nothing against a log of something is a 100% error, not a skip.
        (Some(t), _) if t > 0 => {
            row.error = Some(r.kv_capacity_tokens as f64 / t as f64 - 1.0);
            row.measure = "tokens";
            row.note = format!("{} predicted, {t} logged", r.kv_capacity_tokens);
        }
        (_, Some(k)) if k > 0.0 => {
            row.error = Some(r.kv_cache_bytes.max(0.0) / GIB / k - 1.0);
            row.measure = "KV GiB";
            row.note = format!("{:.2} GiB predicted, {k:.2} logged", r.kv_cache_bytes / GIB);
        }
        _ if release.is_none() => row.note = "the log names no vLLM release: outcome only".into(),
        _ => row.note = format!("{:.2} GiB KV predicted", r.kv_cache_bytes / GIB),
    }
    let starts = r.fits() && r.weights_bytes <= r.gpu_total_bytes;
    // Without the release, only an outcome no release's profile could change is
    // judged: weights that leave nothing of the budget.
    if release.is_none() && r.weights_bytes + r.non_torch_bytes < r.budget_bytes {
        row.note = "the log names no vLLM release, and the outcome depends on its activation profile".into();
        return row;
    }
    if e.outcome == "started" {
        row.outcome = Some((Failure::Memory, starts));
    } else {
        row.outcome = Some((failure(e), !starts));
    }
    row
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

#[test]
fn the_memory_model_agrees_with_real_start_up_logs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/memory-logs/logs.json");
    let entries: Vec<Entry> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("logs.json")).expect("valid logs.json");
    assert!(entries.len() >= 30, "the data set has {} entries", entries.len());
    let rows: Vec<Row> = entries.iter().map(replay).collect();
    println!("{:<46} {:>4} {:>8} {:>7}  {:<22} note", "entry", "set", "error", "of", "outcome");
    for r in &rows {
        let outcome = match r.outcome {
            Some((Failure::Memory, true)) => "agrees".to_string(),
            Some((Failure::Memory, false)) => "DISAGREES".to_string(),
            Some((kind, _)) => format!("{kind:?}"),
            None => "-".into(),
        };
        let error = r.error.map_or("-".to_string(), |e| format!("{:+.1}%", e * 100.0));
        println!(
            "{:<46} {:>4} {:>8} {:>7}  {:<22} {}",
            r.id,
            if r.fit { "fit" } else { "held" },
            error,
            r.measure,
            outcome,
            r.note
        );
    }
    let mut figures = Vec::new();
    for (name, fit) in [("fit", true), ("held out", false)] {
        let mut errors: Vec<f64> = rows.iter().filter(|r| r.fit == fit).filter_map(|r| r.error.map(f64::abs)).collect();
        errors.sort_by(f64::total_cmp);
        let (median, p90) = (percentile(&errors, 0.5), percentile(&errors, 0.9));
        println!("{name}: {} entries, KV error median {:.1}%, p90 {:.1}%", errors.len(), median * 100.0, p90 * 100.0);
        figures.push((fit, errors.len(), median, p90));
    }
    let memory: Vec<&Row> = rows.iter().filter(|r| matches!(r.outcome, Some((Failure::Memory, _)))).collect();
    let agreed = memory.iter().filter(|r| matches!(r.outcome, Some((_, true)))).count();
    println!("start/fail agreement on outcomes decided by memory: {agreed} of {}", memory.len());
    let (_, n, median, p90) = figures[1];
    assert!(n >= 8, "only {n} held-out entries were replayed");
    // The targets are 3% and 8%; these sit just above what the model
    // achieves (0.7% and 3.2%), so a regression shows long before the target goes.
    assert!(median <= 0.015 && p90 <= 0.05, "held-out KV error: median {median:.3}, p90 {p90:.3}");
    let disagree: Vec<&str> =
        memory.iter().filter(|r| matches!(r.outcome, Some((_, false)))).map(|r| r.id.as_str()).collect();
    assert!(disagree.is_empty(), "outcomes predicted wrong: {disagree:?}");
}
