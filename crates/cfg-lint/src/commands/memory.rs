//! `cfg-lint memory`: the per-GPU breakdown as a table and a bar, or JSON.

use std::path::Path;

use cfg_core::catalog::GPUS;

const GIB: f64 = (1u64 << 30) as f64;
use cfg_core::memory::{Limit, MemoryReport, Missing, gib};

use cfg_core::output::human::{self, Styles};

use crate::args::{CmdResult, Io, TableFormat};
use crate::files::{ModelLookup, lint_paths};

pub fn run(
    config: Option<&Path>,
    models: &ModelLookup,
    format: TableFormat,
    list_gpus: bool,
    list_models: bool,
    io: &mut Io<'_>,
) -> CmdResult {
    if list_gpus {
        let _ = writeln!(
            io.out,
            "{:<14} {:>8} {:>6} {:>10} {:>12}  aliases",
            "GPU", "memory", "cc", "GB/s", "bf16 TFLOP/s"
        );
        for g in GPUS {
            let cc = g.compute_capability.map_or("-".to_string(), |(a, b)| format!("{a}.{b}"));
            let _ = writeln!(
                io.out,
                "{:<14} {:>5} GiB {:>6} {:>10} {:>12}  {}",
                g.name,
                g.memory_gib,
                cc,
                g.memory_bandwidth_gbps,
                g.bf16_dense_tflops,
                g.aliases.join(", ")
            );
        }
        return Ok(0);
    }
    if list_models {
        let _ = writeln!(
            io.out,
            "{:<52} {:>9} {:>9} {:>6} {:>5} {:>4} {:>8}  weights",
            "model", "params", "active", "layers", "heads", "kv", "max len"
        );
        let show = |n: Option<u32>| n.map_or("-".to_string(), |n| n.to_string());
        for m in cfg_core::catalog::models() {
            let a = &m.arch;
            let billions = |n: Option<u64>| n.map_or("-".to_string(), |n| format!("{:.1}B", n as f64 / 1e9));
            let weights = match (&a.quant_method, a.weight_bytes) {
                (_, Some(b)) => format!("{:.1} GiB (index)", b as f64 / GIB),
                (Some(q), None) => q.clone(),
                (None, None) => a.torch_dtype.map_or("", |d| d.as_str()).to_string(),
            };
            let _ = writeln!(
                io.out,
                "{:<52} {:>9} {:>9} {:>6} {:>5} {:>4} {:>8}  {}",
                m.id,
                billions(a.num_parameters),
                billions(a.num_active_parameters),
                show(a.num_hidden_layers),
                show(a.num_attention_heads),
                show(a.kv_heads()),
                show(a.max_position_embeddings),
                weights
            );
        }
        return Ok(0);
    }
    let config = config.ok_or("name a config.toml (or use --list-gpus / --list-models)")?;
    let (inputs, report) = lint_paths(&[config.to_path_buf()], models)?;
    let Some(cfg) = &report.config else {
        let styles = Styles::new(io.color);
        for d in report.diagnostics.iter().filter(|d| d.severity == cfg_core::Severity::Error) {
            let _ = write!(io.err, "{}", human::render(d, inputs.first().map(|i| &i.source), &styles));
        }
        return Err(format!("{} has errors; fix them first", config.display()));
    };
    // The report's config already carries --model-config's architecture.
    let memory = report.memory.clone().ok_or_else(|| match cfg_core::memory::estimate(cfg) {
        Err(Missing::Gpu) => "no GPU named: add [hardware] gpu = \"...\" (see --list-gpus) or memory_gib".to_string(),
        Err(Missing::Architecture(f)) => {
            format!(
                "the model's `{f}` is unknown: add it under [model.architecture] or pass --model-config config.json"
            )
        }
        Err(Missing::Value(f)) => format!("`{f}` is not a usable number: fix it first"),
        Ok(_) => "memory could not be estimated".to_string(),
    })?;
    if format == TableFormat::Json {
        let _ = writeln!(io.out, "{:#}", serde_json::to_value(&memory).map_err(|e| e.to_string())?);
        return Ok(0);
    }
    let _ = write!(io.out, "{}", table(&memory));
    let _ = write!(io.out, "{}", sources(cfg, &memory));
    let fits = memory.fits();
    let _ = writeln!(
        io.out,
        "\n{}",
        if fits { "fits: yes".to_string() } else { "fits: NO (run `cfg-lint check` for the fix)".to_string() }
    );
    Ok(u8::from(!fits))
}

/// The breakdown table plus a 50-column bar of the GPU's memory.
pub fn table(r: &MemoryReport) -> String {
    let mut out = String::new();
    let pct = |b: f64| 100.0 * b / r.gpu_total_bytes;
    out.push_str(&format!(
        "per GPU: {} ({}), tensor x pipeline = {} x {}, dtype {}, KV cache {}, {:.3} B/param\n\n",
        r.gpu,
        gib(r.gpu_total_bytes),
        r.tensor_parallel_size,
        r.pipeline_parallel_size,
        r.dtype,
        r.kv_cache_dtype,
        r.weight_bytes_per_param
    ));
    let rows = [
        ("weights", r.weights_bytes, 'W'),
        ("activations (peak, est.)", r.activation_bytes, 'A'),
        ("non-torch (est.)", r.non_torch_bytes, 'N'),
        ("CUDA graphs (est.)", r.cuda_graph_bytes, 'G'),
        ("KV cache", r.kv_cache_bytes.max(0.0), 'K'),
        ("unused (above utilization)", r.unused_bytes, '.'),
    ];
    for (name, bytes, mark) in rows {
        out.push_str(&format!("  {mark} {name:<28} {:>11} {:>6.1}%\n", gib(bytes), pct(bytes)));
    }
    out.push_str(&format!(
        "    {:<28} {:>11} {:>6.1}%  (gpu_memory_utilization {})\n",
        "budget",
        gib(r.budget_bytes),
        pct(r.budget_bytes),
        r.gpu_memory_utilization
    ));
    let mut bar = String::new();
    let width = 50.0;
    let mut used = 0usize;
    for (_, bytes, mark) in rows {
        let n = ((bytes.max(0.0) / r.gpu_total_bytes) * width).round() as usize;
        let n = n.min(50 - used.min(50));
        used += n;
        bar.extend(std::iter::repeat_n(mark, n));
    }
    out.push_str(&format!("\n  [{bar:<50}]\n"));
    if r.kv_cache_bytes <= 0.0 {
        out.push_str(&format!("\n  over budget by {}\n", gib(-r.kv_cache_bytes)));
    }
    let (largest, binds) = r.largest_max_model_len();
    let because = match binds {
        Limit::KvCache => "the KV cache's capacity".to_string(),
        Limit::Model => format!("the model's maximum; the KV cache would hold {}", r.largest_fitting_max_model_len),
    };
    out.push_str(&format!(
        "\n  KV cache: {:.0} bytes/token, {} blocks of {} tokens; one request of {} holds {} blocks: {} tokens\n  max concurrency at max_model_len {}: {:.2}x (one request needs {})\n  largest max_model_len: {largest} ({because})\n",
        r.kv_bytes_per_token,
        r.num_gpu_blocks,
        r.block_size,
        r.max_model_len,
        r.blocks_per_request,
        r.kv_capacity_tokens,
        r.max_model_len,
        r.max_concurrency,
        gib(r.max_len_request_bytes),
    ));
    out
}

/// Where each figure came from: the model's files or the catalog, the weights
/// exact or estimated, the GPU's total as reported or as written.
fn sources(config: &cfg_core::model::ServerConfig, r: &MemoryReport) -> String {
    let model = r.architecture_source.as_deref().unwrap_or("[model.architecture] in the config");
    let weights = match r.weights_source {
        cfg_core::memory::WeightSource::Index => {
            "exact, from the checkpoint's model.safetensors.index.json".to_string()
        }
        cfg_core::memory::WeightSource::Estimated if r.weight_bytes_per_param < 2.0 => format!(
            "estimated from the parameter count: {:.3} bytes per quantized parameter, embeddings at 16 bits (no safetensors index found)",
            r.weight_bytes_per_param
        ),
        cfg_core::memory::WeightSource::Estimated => {
            format!(
                "estimated from the parameter count at {:.0} bytes each (no safetensors index found)",
                r.weight_bytes_per_param
            )
        }
    };
    let total = if config.hardware.as_ref().is_some_and(|h| h.memory_gib.is_some()) {
        "as [hardware] memory_gib states it"
    } else {
        "as the device reports it (catalog)"
    };
    format!(
        "\n  sources: architecture from {model}\n           weights {weights}\n           GPU total {} {total}\n           activations, non-torch and CUDA graphs: formulas fitted on real vLLM logs (tests/memory-logs)\n",
        gib(r.gpu_total_bytes)
    )
}
