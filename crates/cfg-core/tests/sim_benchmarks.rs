//! The simulator against public `vllm bench serve` results from real GPUs
//! (`tests/sim-benchmarks/benchmarks.csv`, each row with its source). Every
//! row the catalog can model is replayed in virtual time with the same model,
//! GPU, parallelism, lengths and load; the test prints each row and the median
//! and p90 relative error per metric, for the rows the constants were fitted
//! on (even row numbers) and for the held-out ones (odd), and fails when the
//! errors grow past what the committed constants achieve.

use std::collections::HashMap;
use std::path::Path;

use cfg_core::model::ServerConfig;
use cfg_core::sim::bench::{self, BenchLoad};
use cfg_core::sim::{Calibration, instance_calibrated};

/// Splits CSV text (RFC 4180: quoted fields with doubled quotes) into rows.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, '\r') => {}
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

struct Row {
    number: usize,
    id: String,
    moe: bool,
    config: ServerConfig,
    load: BenchLoad,
    /// (metric, which statistic the source states, measured)
    measured: Vec<(&'static str, Statistic, f64)>,
}

#[derive(Clone, Copy)]
enum Statistic {
    Mean,
    Median,
}

/// A number stated in the quote: "Total generated tokens: 193979".
fn quoted_number(quote: &str, label: &str) -> Option<f64> {
    let at = quote.find(label)? + label.len();
    let rest = quote[at..].trim_start_matches([':', ' ']);
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The `vllm serve` flags a row's source shows (`server_args`), as far as
/// the config file can say them; flags it has no key for are left out.
#[derive(Default)]
struct ServerArgs {
    max_model_len: Option<u32>,
    max_num_seqs: Option<u32>,
    max_num_batched_tokens: Option<u32>,
    gpu_memory_utilization: Option<f64>,
    kv_cache_dtype: Option<String>,
    enforce_eager: bool,
    pipeline_parallel: Option<u32>,
    expert_parallel: bool,
}

impl ServerArgs {
    fn parse(flags: &str) -> ServerArgs {
        let mut args = ServerArgs::default();
        let mut words = flags.split_whitespace();
        while let Some(flag) = words.next() {
            let flag = flag.replace('_', "-");
            let mut value = || words.next().unwrap_or("");
            match flag.as_str() {
                "--max-model-len" => args.max_model_len = value().parse().ok(),
                "--max-num-seqs" | "--max-num-seq" => args.max_num_seqs = value().parse().ok(),
                "--max-num-batched-tokens" => args.max_num_batched_tokens = value().parse().ok(),
                "--gpu-memory-utilization" => args.gpu_memory_utilization = value().parse().ok(),
                "--kv-cache-dtype" => args.kv_cache_dtype = Some(value().to_string()),
                "--enforce-eager" => args.enforce_eager = true,
                "--pipeline-parallel-size" | "-pp" => args.pipeline_parallel = value().parse().ok(),
                "--enable-expert-parallel" => args.expert_parallel = true,
                _ => {}
            }
        }
        args
    }
}

/// The catalog's name for a GPU as the benchmark rows write it.
fn gpu(name: &str) -> Option<&'static str> {
    Some(match name {
        "H100-80GB-SXM" => "H100-80GB",
        "H100-NVL" => "H100-NVL",
        "A100-80GB" | "A100" => "A100-80GB",
        "A100-40GB" => "A100-40GB",
        "A800-80GB" => "A800-80GB",
        "H20" => "H20",
        "H20-3e-141GB" => "H20-141GB",
        "RTX-PRO-6000-Blackwell-Server" => "RTX-PRO-6000",
        "H200" => "H200",
        "B200" => "B200",
        "RTX-4090" => "RTX-4090",
        "RTX-5090" => "RTX-5090",
        "MI300X" => "MI300X",
        "L4" => "L4",
        "L40S" => "L40S",
        _ => return None,
    })
}

/// Checkpoints with the same architecture as a catalog model (a re-release,
/// or a quantized copy whose method the row's `quantization` names).
fn catalog_twin(model: &str) -> &str {
    match model {
        "Qwen/Qwen3-235B-A22B-Instruct-2507" => "Qwen/Qwen3-235B-A22B",
        "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8" => "Qwen/Qwen3-235B-A22B-FP8",
        "deepseek-ai/DeepSeek-R1-0528" => "deepseek-ai/DeepSeek-R1",
        "Qwen/Qwen3-14B-AWQ" => "Qwen/Qwen3-14B",
        "Qwen/Qwen3-Next-80B-A3B-Instruct" | "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8" => {
            "Qwen/Qwen3-Next-80B-A3B-Thinking"
        }
        m if m.starts_with("Qwen/Qwen3-8B (local llm-compressor FP8") => "Qwen/Qwen3-8B",
        "Qwen/Qwen3-VL-32B-Instruct-FP8" => "Qwen/Qwen3-VL-32B-Instruct",
        // The same shape (62 layers of 256 experts, top-8, 3072 wide) in a later release.
        "MiniMaxAI/MiniMax-M2" => "MiniMaxAI/MiniMax-M2.5",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8" => "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        m if m.starts_with("neuralmagic/Llama-3.2-11B-Vision-Instruct-FP8") => {
            "meta-llama/Llama-3.2-11B-Vision-Instruct"
        }
        m => m,
    }
}

/// Rows whose replay is another row's (the first named), though their
/// configs differ on paper.
const TWINS: &[(&str, &str)] =
    &[("gs-gptoss120b-a100-tp1-async-mnbt4096-sharegpt-c4", "gs-gptoss120b-a100-tp1-sharegpt-c4")];

/// The rows the simulator can replay, and why the others cannot be.
fn rows() -> (Vec<Row>, Vec<(String, String)>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sim-benchmarks/benchmarks.csv");
    let table = parse_csv(&std::fs::read_to_string(path).expect("the benchmark set is committed"));
    let header: HashMap<&str, usize> = table[0].iter().enumerate().map(|(i, h)| (h.as_str(), i)).collect();
    let (mut rows, mut skipped) = (Vec::new(), Vec::new());
    // What each replay is, by the first row that has it.
    let mut replays: HashMap<String, String> = HashMap::new();
    for (number, cells) in table.iter().enumerate().skip(1) {
        let get = |k: &str| cells.get(header[k]).map(|s| s.trim()).filter(|s| !s.is_empty());
        let num = |k: &str| get(k).and_then(|v| v.parse::<f64>().ok());
        let id = get("id").unwrap_or("?").to_string();
        let quote = get("quote").unwrap_or("");
        let mut skip = |why: &str| skipped.push((id.clone(), why.to_string()));
        let Some(gpu) = get("gpu").and_then(gpu) else {
            skip("GPU not in the catalog");
            continue;
        };
        // The lengths actually served: the quote's token totals when it gives
        // them (runs without --ignore-eos stop early), else the asked lengths.
        // As `vllm bench serve` prints them, or as its saved result's keys.
        let printed_or_saved = |printed: &str, key: &str| quoted_number(quote, printed).or(quoted_number(quote, key));
        let prompts = printed_or_saved("Successful requests", "\"completed\"").or(num("num_prompts"));
        let per = |total: Option<f64>| total.zip(prompts).map(|(t, n)| t / n.max(1.0));
        let input = per(printed_or_saved("Total input tokens", "\"total_input_tokens\"")).or(num("input_len"));
        let output = per(printed_or_saved("Total generated tokens", "\"total_output_tokens\"")).or(num("output_len"));
        let (Some(input), Some(output), Some(prompts)) = (input, output, prompts) else {
            skip("lengths or prompt count not stated");
            continue;
        };
        let mut measured = Vec::new();
        if let Some(v) = num("output_throughput_tok_s") {
            measured.push(("output tok/s", Statistic::Mean, v));
        }
        // The mean where the source gives it, else the median: compared with
        // the same statistic of the replay (a tail moves the two apart).
        match (num("mean_ttft_ms"), num("median_ttft_ms")) {
            (Some(v), _) => measured.push(("TTFT ms", Statistic::Mean, v)),
            (None, Some(v)) => measured.push(("TTFT ms", Statistic::Median, v)),
            _ => {}
        }
        match (num("mean_tpot_ms"), num("median_tpot_ms")) {
            (Some(v), _) => measured.push(("TPOT ms", Statistic::Mean, v)),
            (None, Some(v)) => measured.push(("TPOT ms", Statistic::Median, v)),
            _ => {}
        }
        if measured.is_empty() {
            skip("no throughput, TTFT or TPOT stated");
            continue;
        }
        // A source that names the GPUs but not the parallelism ran one model
        // over all of them (vLLM #12568: DeepSeek-R1 on 8 H200s).
        let tp = num("tensor_parallel").or(num("gpu_count")).unwrap_or(1.0) as u32;
        let count = num("gpu_count").unwrap_or(f64::from(tp)) as u32;
        let (input, output) = (input.round().max(1.0) as u32, output.round().max(1.0) as u32);
        let model = catalog_twin(get("model").unwrap_or(""));
        let server = ServerArgs::parse(get("server_args").unwrap_or(""));
        if let Some((_, twin)) = TWINS.iter().find(|(row, _)| *row == id) {
            skip(&format!(
                "the same replay as `{twin}`: it differs in async scheduling, which config.toml cannot say, and in a batched-token budget four ShareGPT streams never reach"
            ));
            continue;
        }
        if server.expert_parallel {
            // Replayed as plain tensor parallelism it would be its TP twin's replay.
            skip("expert parallelism: config.toml has no key for it");
            continue;
        }
        let max_model_len = server.max_model_len.unwrap_or((input + output).div_ceil(1024).max(4) * 1024);
        let mut model_keys = format!("name = \"{model}\"\nmax_model_len = {max_model_len}\n");
        // The method is the cell's first word ("fp8 (checkpoint)", "fp8 dynamic ...").
        let method = get("quantization").and_then(|q| q.split_whitespace().next());
        if let Some(q) = method.filter(|q| matches!(*q, "fp8" | "awq" | "gptq")) {
            model_keys += &format!("quantization = \"{q}\"\n");
        }
        if let Some(u) = server.gpu_memory_utilization {
            model_keys += &format!("gpu_memory_utilization = {u}\n");
        }
        if let Some(d) = &server.kv_cache_dtype {
            model_keys += &format!("kv_cache_dtype = \"{d}\"\n");
        }
        if server.enforce_eager {
            model_keys += "enforce_eager = true\n";
        }
        let mut batching = String::new();
        if let Some(n) = server.max_num_seqs {
            batching += &format!("max_num_seqs = {n}\n");
        }
        if let Some(n) = server.max_num_batched_tokens {
            batching += &format!("max_num_batched_tokens = {n}\n");
        }
        let pp = server.pipeline_parallel.unwrap_or(1);
        let toml = format!(
            "[model]\n{model_keys}[batching]\n{batching}[parallel]\ntensor_parallel_size = {tp}\npipeline_parallel_size = {pp}\n[hardware]\ngpu = \"{gpu}\"\ngpu_count = {count}\n"
        );
        let config: ServerConfig = match toml::from_str(&toml) {
            Ok(c) => c,
            Err(e) => {
                skip(&format!("config: {e}"));
                continue;
            }
        };
        let conversation = get("dataset").is_some_and(|d| !d.starts_with("random"));
        let load = BenchLoad {
            num_prompts: prompts as u32,
            input_tokens: input,
            output_tokens: output,
            max_concurrency: num("max_concurrency").map(|c| c as u32),
            request_rate: num("request_rate"),
            // A conversation data set's prompts vary; `random` sends the stated
            // lengths. `vllm bench serve` asks a ShareGPT request for its
            // reference reply's length, and other Hugging Face data sets
            // (mt-bench) for one fixed length (20,473 of 80 x 256 tokens).
            varied_prompts: conversation,
            varied_outputs: get("dataset").is_some_and(|d| d.starts_with("sharegpt")),
            seed: 0,
        };
        // Two rows that differ only in what config.toml cannot say (async
        // scheduling) or in a cap at or above the prompt count (the same
        // all-at-once run) are one replay: replayed once, or the twin of a
        // fitted row would be scored as held out.
        let mut replay = load.clone();
        replay.max_concurrency = replay.max_concurrency.filter(|&c| c < replay.num_prompts);
        match replays.entry(format!("{toml}{replay:?}")) {
            std::collections::hash_map::Entry::Occupied(first) => {
                skip(&format!("the same replay as `{}`", first.get()));
                continue;
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id.clone());
            }
        }
        rows.push(Row { number, id, moe: get("moe") == Some("true"), config, load, measured });
    }
    (rows, skipped)
}

/// (row, metric, measured, predicted).
type Compared = (usize, &'static str, f64, f64);
/// (row id, why it could not be replayed).
type NotReplayed = (String, String);
/// A named subset of the rows.
type RowSet<'a> = (&'a str, &'a dyn Fn(&Row) -> bool);

/// Every replayable row under `cal`, metric by metric.
fn replay(rows: &[Row], cal: &Calibration) -> (Vec<Compared>, Vec<NotReplayed>) {
    let (mut out, mut failed) = (Vec::new(), Vec::new());
    for (i, row) in rows.iter().enumerate() {
        let inst = match instance_calibrated(&row.config, None, cal) {
            Ok(inst) => inst,
            Err(e) => {
                failed.push((row.id.clone(), e));
                continue;
            }
        };
        match bench::run(inst.engine, &row.load) {
            Ok(f) => {
                for &(metric, statistic, measured) in &row.measured {
                    let predicted = match (metric, statistic) {
                        ("output tok/s", _) => f.output_tokens_per_sec,
                        ("TTFT ms", Statistic::Mean) => f.mean_ttft_ms,
                        ("TTFT ms", Statistic::Median) => f.median_ttft_ms,
                        (_, Statistic::Mean) => f.mean_tpot_ms,
                        (_, Statistic::Median) => f.median_tpot_ms,
                    };
                    out.push((i, metric, measured, predicted));
                }
            }
            Err(e) => failed.push((row.id.clone(), e.to_string())),
        }
    }
    (out, failed)
}

fn relative(measured: f64, predicted: f64) -> f64 {
    (predicted - measured).abs() / measured.abs().max(1e-9)
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
}

/// Median and p90 relative error per metric over the rows `pick` keeps.
fn errors(results: &[Compared], rows: &[Row], pick: impl Fn(&Row) -> bool) -> Vec<(&'static str, usize, f64, f64)> {
    ["output tok/s", "TTFT ms", "TPOT ms"]
        .iter()
        .map(|&metric| {
            let e: Vec<f64> = results
                .iter()
                .filter(|(i, m, _, _)| *m == metric && pick(&rows[*i]))
                .map(|&(_, _, measured, predicted)| relative(measured, predicted))
                .collect();
            (metric, e.len(), quantile(e.clone(), 0.5), quantile(e, 0.9))
        })
        .collect()
}

/// A row measured at a stated concurrency or request rate (not all at once:
/// a cap at or above the prompt count sends them all at once).
fn stated(r: &Row) -> bool {
    r.load.max_concurrency.is_some_and(|c| c < r.load.num_prompts) || r.load.request_rate.is_some_and(f64::is_finite)
}

fn fitted(row: &Row) -> bool {
    row.number.is_multiple_of(2)
}

#[test]
fn the_simulator_replays_public_benchmarks() {
    let (rows, skipped) = rows();
    let (results, failed) = replay(&rows, &Calibration::FITTED);
    println!("{:<46} {:<13} {:>12} {:>12} {:>8}", "row", "metric", "measured", "simulated", "error");
    for &(i, metric, measured, predicted) in &results {
        println!(
            "{:<46} {:<13} {:>12.1} {:>12.1} {:>7.0}%",
            format!("{}{}", rows[i].id, if fitted(&rows[i]) { "" } else { " (held out)" }),
            metric,
            measured,
            predicted,
            (predicted - measured) / measured * 100.0
        );
        assert!(predicted.is_finite(), "{}: {metric} is not a number", rows[i].id);
    }
    for (id, why) in skipped.iter().chain(&failed) {
        println!("not replayed: {id}: {why}");
    }
    let sets: [RowSet<'_>; 6] = [
        ("fitted", &fitted),
        ("held out", &|r: &Row| !fitted(r)),
        ("held out, dense", &|r: &Row| !fitted(r) && !r.moe),
        ("held out, MoE", &|r: &Row| !fitted(r) && r.moe),
        ("held out, a stated concurrency or rate", &|r: &Row| !fitted(r) && stated(r)),
        ("held out, all at once", &|r: &Row| !fitted(r) && !stated(r)),
    ];
    for (name, pick) in sets {
        for (metric, n, median, p90) in errors(&results, &rows, pick) {
            println!(
                "{name:<40} {metric:<13} rows {n:>3}  median error {:>5.1}%  p90 {:>5.0}%",
                median * 100.0,
                p90 * 100.0
            );
        }
    }
    let replayed: std::collections::HashSet<usize> = results.iter().map(|r| r.0).collect();
    // Every row whose model and GPU the catalog knows (README): a row that
    // stops replaying fails here, not only in the list above.
    assert!(replayed.len() >= 80, "only {} rows replayed", replayed.len());
    // What the committed constants achieve on the held-out rows, with a little
    // room: a change to the model that makes them worse fails here.
    let held_out = errors(&results, &rows, |r| !fitted(r));
    for ((metric, _, median, _), limit) in held_out.iter().zip([0.15, 0.25, 0.15]) {
        assert!(*median <= limit, "held out {metric}: median error {median:.2} over {limit}");
    }
    // The targets of issue 16 at a stated concurrency or rate, where the load
    // is known best: throughput and TPOT within 10% at the median, TTFT 25%.
    let at_stated_load = errors(&results, &rows, |r| !fitted(r) && stated(r));
    for ((metric, _, median, _), limit) in at_stated_load.iter().zip([0.10, 0.25, 0.10]) {
        assert!(*median <= limit, "held out, stated load, {metric}: median error {median:.2} over {limit}");
    }
    // And mixtures of experts within 25% on throughput.
    let moe = errors(&results, &rows, |r| !fitted(r) && r.moe);
    assert!(moe[0].2 <= 0.25, "held out, MoE: throughput median error {:.2}", moe[0].2);
}

/// The search that gave `Calibration::FITTED`: coordinate descent over the
/// ten constants on the fitted rows, minimising the sum over the three
/// metrics of the median |log(simulated / measured)|. Run with
/// `cargo test -p cfg-core --release --test sim_benchmarks -- --ignored --nocapture fit`.
#[test]
#[ignore]
fn fit() {
    let (rows, _) = rows();
    let score = |cal: &Calibration| {
        let (results, _) = replay(&rows, cal);
        ["output tok/s", "TTFT ms", "TPOT ms"]
            .iter()
            .map(|&metric| {
                let logs: Vec<f64> = results
                    .iter()
                    .filter(|(i, m, _, _)| *m == metric && fitted(&rows[*i]))
                    .map(|&(_, _, measured, predicted)| (predicted.max(1e-9) / measured).ln().abs())
                    .collect();
                quantile(logs, 0.5)
            })
            .sum::<f64>()
    };
    let mut best = Calibration::FITTED;
    let mut best_score = score(&best);
    println!("start {best:?}: {best_score:.4}");
    for round in 0..6 {
        for field in 0..10 {
            for factor in [0.5, 0.7, 0.85, 0.95, 1.05, 1.15, 1.4, 2.0] {
                let mut c = best;
                let v = match field {
                    0 => &mut c.flops_efficiency,
                    1 => &mut c.bandwidth_efficiency,
                    2 => &mut c.step_overhead_s,
                    3 => &mut c.all_reduce_s,
                    4 => &mut c.request_overhead_s,
                    5 => &mut c.moe_compute_factor,
                    6 => &mut c.eager_layer_s,
                    7 => &mut c.moe_layer_s,
                    8 => &mut c.link_efficiency,
                    _ => &mut c.scaled_expert_bandwidth,
                };
                *v = if *v == 0.0 { 0.001 * factor } else { *v * factor };
                if [c.flops_efficiency, c.bandwidth_efficiency, c.link_efficiency, c.scaled_expert_bandwidth]
                    .iter()
                    .any(|&share| share > 1.0)
                {
                    continue;
                }
                let s = score(&c);
                if s < best_score {
                    best_score = s;
                    best = c;
                }
            }
        }
        println!("round {round}: {best:?}: {best_score:.4}");
    }
}
