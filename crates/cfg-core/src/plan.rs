//! A working pair from three choices: a model, a GPU (and how many the node
//! has), and the traffic. Every value is computed by the memory model the
//! linter checks with, so the pair it writes lints clean wherever the model
//! fits at all, and each choice comes with the one line that explains it.
//! The web app's start; pure, so it is tested natively.

use crate::arch::Arch;
use crate::memory::{self, MemoryReport};
use crate::model::ServerConfig;
use crate::resolve;
use crate::rules::thousands;

/// Traffic presets: request classes people start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traffic {
    /// Conversational turns: short prompts, medium answers.
    Chat,
    /// Retrieval-augmented generation: long prompts with retrieved context, short answers.
    Rag,
    /// The seed's mix: mostly short, some long, a tail of very long requests.
    Mixed,
}

/// One request class of a preset: (name, weight, input tokens, output tokens).
pub type Class = (&'static str, f64, u32, u32);

impl Traffic {
    pub const ALL: [Traffic; 3] = [Traffic::Chat, Traffic::Rag, Traffic::Mixed];

    pub fn name(self) -> &'static str {
        match self {
            Traffic::Chat => "chat",
            Traffic::Rag => "rag",
            Traffic::Mixed => "mixed",
        }
    }

    pub fn from_name(name: &str) -> Option<Traffic> {
        Traffic::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn label(self) -> &'static str {
        match self {
            Traffic::Chat => "chat: short prompts, medium answers",
            Traffic::Rag => "RAG: long prompts with retrieved context, short answers",
            Traffic::Mixed => "mixed: mostly short, some long, a tail of very long requests",
        }
    }

    pub fn classes(self) -> &'static [Class] {
        match self {
            Traffic::Chat => &[("turn", 0.8, 1024, 256), ("long-turn", 0.2, 4096, 512)],
            Traffic::Rag => &[("rag", 0.7, 6144, 256), ("rag-long", 0.3, 14336, 512)],
            Traffic::Mixed => &[("short", 0.6, 256, 128), ("long", 0.3, 2048, 512), ("tail", 0.1, 6144, 2048)],
        }
    }

    /// The p99 time to first token a user of this kind of traffic accepts, in ms.
    fn ttft_sla_ms(self) -> u32 {
        match self {
            Traffic::Chat => 1000,
            Traffic::Rag | Traffic::Mixed => 3000,
        }
    }
}

/// What the user chose.
pub struct Choices<'a> {
    /// A Hugging Face id (or any name, with `arch`).
    pub model: &'a str,
    /// The model's own files, read by [`crate::hf::read_model`]; else the catalog's.
    pub arch: Option<&'a Arch>,
    /// A catalog GPU name or alias.
    pub gpu: &'a str,
    /// GPUs on the node.
    pub gpu_count: u32,
    pub traffic: Traffic,
}

/// One value the plan chose and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Where it went: `model.max_model_len`, `concurrency`...
    pub key: &'static str,
    pub value: String,
    pub why: String,
}

/// The pair, and the reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub config: String,
    pub settings: String,
    pub choices: Vec<Choice>,
    /// Whether the model starts on the chosen GPUs (when not, the pair is still
    /// written, and the linter says why it does not start).
    pub fits: bool,
}

/// Candidate tensor-parallel sizes, smallest first.
const TP_SIZES: [u32; 4] = [1, 2, 4, 8];
/// vLLM's default `max_num_seqs` on large GPUs is 1024; past a few hundred the
/// batch is bound by bandwidth and only adds queueing, so plans stop here.
const MAX_SEQS: u32 = 256;
/// The step budget plans never go below: vLLM's own default on small GPUs.
const MIN_BATCHED_TOKENS: u32 = 8192;

/// Makes the pair. Refuses only what it cannot compute at all: an unknown GPU,
/// a model with no architecture, a GPU count of zero.
pub fn plan(choices: &Choices<'_>) -> Result<Plan, String> {
    let gpu_spec = crate::catalog::find_gpu(choices.gpu)
        .ok_or_else(|| format!("`{}` is not a GPU the catalog knows; pick one from the list", choices.gpu))?;
    if choices.gpu_count == 0 {
        return Err("the node needs at least one GPU".into());
    }
    let catalog = crate::catalog::find_model(choices.model);
    let arch = match (choices.arch, catalog) {
        (Some(a), _) => a.clone(),
        (None, Some(m)) => m.arch.clone(),
        (None, None) => {
            return Err(format!(
                "`{}` is not in the catalog: fetch its config.json from the Hub or drop it on the page",
                choices.model
            ));
        }
    };
    let classes = choices.traffic.classes();
    let longest = classes.iter().map(|c| c.2 + c.3).max().unwrap_or(2048);
    let mut choices_made = Vec::new();
    let model_max = arch.default_max_model_len().filter(|&m| m > 0);
    let mut max_model_len = longest.div_ceil(1024) * 1024;
    let mut why_len =
        format!("the longest class needs {longest} tokens (prompt and output); rounded up to a multiple of 1024");
    if let Some(limit) = model_max.filter(|&m| m < max_model_len) {
        max_model_len = limit;
        why_len = format!(
            "the longest class needs {longest} tokens but the model was trained for {limit}: the longer classes will be refused (CFG501 says which)"
        );
    }
    let batched = max_model_len.max(MIN_BATCHED_TOKENS);
    let served = served_name(choices.model);
    let heads = arch.num_attention_heads.unwrap_or(1);
    let sizes: Vec<u32> =
        TP_SIZES.into_iter().filter(|&tp| tp <= choices.gpu_count && heads % tp == 0).collect::<Vec<_>>();
    let sizes = if sizes.is_empty() { vec![1] } else { sizes };
    let utilization = memory::Release::CURRENT.default_utilization();

    // The smallest tensor-parallel size whose KV cache holds a full-length
    // request and a batch of typical ones: fewer GPUs per instance means more
    // instances, and no all-reduce per layer.
    let mut picked = None;
    for &tp in &sizes {
        let text = config_text(choices, &served, max_model_len, utilization, MAX_SEQS, batched, tp);
        let report = estimate(&text, choices.arch)?;
        let seqs = max_num_seqs(&report, classes, max_model_len);
        let last = tp == *sizes.last().unwrap_or(&1);
        if (report.fits() && seqs >= 8) || last {
            picked = Some((tp, report));
            break;
        }
    }
    let (tp, report) = picked.ok_or("no tensor-parallel size to try")?;
    // max_num_seqs sizes the CUDA graphs, so the memory is computed again with it.
    let seqs = max_num_seqs(&report, classes, max_model_len).max(1);
    let config = config_text(choices, &served, max_model_len, utilization, seqs, batched, tp);
    let report = estimate(&config, choices.arch)?;
    let fits = report.fits();

    choices_made.push(Choice { key: "model.max_model_len", value: max_model_len.to_string(), why: why_len });
    choices_made.push(Choice {
        key: "parallel.tensor_parallel_size",
        value: tp.to_string(),
        why: if !fits {
            format!(
                "even split over {tp} {} the model does not start (weights {} per GPU): choose more GPUs, a larger one or a quantized checkpoint",
                gpu_spec.name,
                memory::gib(report.weights_bytes)
            )
        } else if tp == 1 {
            format!("one {} holds the model and a useful KV cache; more GPUs are better used as more instances", gpu_spec.name)
        } else {
            format!(
                "the smallest split whose KV cache holds at least 8 typical requests; {} per GPU are weights",
                memory::gib(report.weights_bytes)
            )
        },
    });
    if choices.gpu_count > tp && fits {
        choices_made.push(Choice {
            key: "hardware.gpu_count",
            value: choices.gpu_count.to_string(),
            why: format!(
                "this instance uses {tp} of the {} GPUs; run {} instances behind a load balancer to use them all",
                choices.gpu_count,
                choices.gpu_count / tp
            ),
        });
    }
    choices_made.push(Choice {
        key: "model.gpu_memory_utilization",
        value: format!("{utilization:.2}"),
        why: "vLLM 0.33's default: what is left after the weights and activations becomes KV cache".into(),
    });
    choices_made.push(Choice {
        key: "batching.max_num_seqs",
        value: seqs.to_string(),
        why: format!(
            "the KV cache holds {} tokens: about {seqs} requests of this traffic's average {} tokens run at once without preemption{}",
            thousands(report.kv_capacity_tokens),
            typical_tokens(classes, max_model_len).round(),
            if seqs == MAX_SEQS { " (capped: beyond this the batch only adds queueing)" } else { "" }
        ),
    });
    choices_made.push(Choice {
        key: "batching.max_num_batched_tokens",
        value: batched.to_string(),
        why: if batched == max_model_len {
            "max_model_len: the longest prompt is prefilled in one step".into()
        } else {
            format!(
                "vLLM's default step budget: the longest prompt ({max_model_len} tokens) is prefilled in one step, with room left for the decodes of the others"
            )
        },
    });
    choices_made.push(Choice {
        key: "concurrency",
        value: seqs.to_string(),
        why: "the load test keeps max_num_seqs requests in flight: the instance's capacity, not more (CFG503)".into(),
    });
    let settings = settings_text(choices.traffic, &served, seqs);
    Ok(Plan { config, settings, choices: choices_made, fits })
}

/// The name clients send: the repository's last part, lower-cased.
fn served_name(model: &str) -> String {
    let tail = model.trim().trim_end_matches('/').rsplit('/').next().unwrap_or(model);
    let name: String = tail
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    if name.is_empty() { "model".into() } else { name }
}

/// The weighted mean length of a request, capped at max_model_len (as CFG203 counts it).
fn typical_tokens(classes: &[Class], max_model_len: u32) -> f64 {
    let total: f64 = classes.iter().map(|c| c.1).sum();
    classes.iter().map(|c| c.1 * f64::from((c.2 + c.3).min(max_model_len))).sum::<f64>() / total.max(f64::EPSILON)
}

/// How many typical requests the KV cache holds at once, in steps of 8 above 16.
fn max_num_seqs(report: &MemoryReport, classes: &[Class], max_model_len: u32) -> u32 {
    let fit = (report.kv_capacity_tokens as f64 / typical_tokens(classes, max_model_len)).floor();
    let seqs = fit.clamp(0.0, f64::from(MAX_SEQS)) as u32;
    if seqs > 16 { seqs / 8 * 8 } else { seqs }
}

fn estimate(config_text: &str, found: Option<&Arch>) -> Result<MemoryReport, String> {
    let config: ServerConfig =
        toml::from_str(config_text).map_err(|e| format!("internal: a plan does not parse: {e}"))?;
    let gpu = resolve::gpu(&config).ok_or("internal: the plan's GPU is not resolved")?;
    let arch = resolve::arch_with(&config, found);
    memory::estimate_with(&config, &gpu, &arch).map_err(|m| format!("the memory picture needs {m:?}"))
}

fn config_text(
    choices: &Choices<'_>,
    served: &str,
    max_model_len: u32,
    utilization: f64,
    seqs: u32,
    batched: u32,
    tp: u32,
) -> String {
    // A TOML basic string: JSON's escapes, and DEL too, which TOML forbids raw.
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default().replace('\u{7f}', "\\u007F");
    format!(
        r#"[server]
host = "0.0.0.0"
port = 8000
api_key = "${{VLLM_API_KEY}}"
served_model_name = {served}

[model]
name = {model}
max_model_len = {max_model_len}
gpu_memory_utilization = {utilization:.2}

[batching]
max_num_seqs = {seqs}
max_num_batched_tokens = {batched}

[parallel]
tensor_parallel_size = {tp}

[monitoring]
enable_metrics = true

[hardware]
gpu = {gpu}
gpu_count = {count}
"#,
        served = q(served),
        model = q(choices.model.trim()),
        gpu = q(crate::catalog::find_gpu(choices.gpu).map_or(choices.gpu, |g| g.name)),
        count = choices.gpu_count,
    )
}

fn settings_text(traffic: Traffic, served: &str, concurrency: u32) -> String {
    let classes: serde_json::Map<String, serde_json::Value> = traffic
        .classes()
        .iter()
        .map(|&(name, weight, input, output)| {
            (name.to_string(), serde_json::json!({"weight": weight, "input_tokens": input, "output_tokens": output}))
        })
        .collect();
    let value = serde_json::json!({
        "endpoint": "http://127.0.0.1:8000/v1/chat/completions",
        "api_key_env": "VLLM_API_KEY",
        "model": served,
        "concurrency": concurrency,
        "duration_seconds": 300,
        "request_distribution": classes,
        "metrics": {"record_ttft": true, "record_tpot": true, "percentiles": [50, 95, 99]},
        "warmup_requests": 20,
        "sla": {"ttft_p99_ms": traffic.ttft_sla_ms(), "tpot_p99_ms": 50, "error_rate": 0.01},
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileKind, Input, Options, Severity};

    fn lint(plan: &Plan) -> crate::Report {
        let inputs = [
            Input::new(FileKind::Config, "config.toml", &plan.config),
            Input::new(FileKind::Settings, "settings.json", &plan.settings),
        ];
        crate::lint(&inputs, &Options::default())
    }

    fn choices(model: &str, gpu: &str, gpu_count: u32, traffic: Traffic) -> Choices<'static> {
        let model: &'static str = Box::leak(model.to_string().into_boxed_str());
        let gpu: &'static str = Box::leak(gpu.to_string().into_boxed_str());
        Choices { model, arch: None, gpu, gpu_count, traffic }
    }

    /// Wherever a plan says the model fits, its pair lints with no error and no
    /// warning: every catalog model, on a small and a large GPU, every preset.
    #[test]
    fn a_plan_that_fits_lints_clean() {
        let mut fitted = 0;
        for m in crate::catalog::models() {
            for (gpu, count) in [("L4", 1), ("H100-80GB", 8)] {
                for traffic in Traffic::ALL {
                    let plan = plan(&choices(m.id, gpu, count, traffic)).unwrap();
                    let report = lint(&plan);
                    let loud: Vec<String> = report
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity >= Severity::Warning)
                        .map(|d| format!("{} {}", d.code, d.message))
                        .collect();
                    if plan.fits {
                        fitted += 1;
                        let trained_for_less = plan.choices[0].why.contains("trained for");
                        let loud: Vec<&String> =
                            loud.iter().filter(|l| !(trained_for_less && l.starts_with("CFG501"))).collect();
                        assert!(loud.is_empty(), "{} on {count}x {gpu}, {}: {loud:#?}", m.id, traffic.name());
                    } else {
                        assert!(
                            loud.iter().any(|l| l.starts_with("CFG2")),
                            "{} on {count}x {gpu} does not fit, and the linter must say so: {loud:#?}",
                            m.id
                        );
                    }
                }
            }
        }
        assert!(fitted > 100, "only {fitted} plans fit");
    }

    #[test]
    fn a_small_model_takes_one_gpu_and_a_large_one_splits() {
        let small = plan(&choices("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", 8, Traffic::Chat)).unwrap();
        assert!(small.config.contains("tensor_parallel_size = 1"), "{}", small.config);
        assert!(small.choices.iter().any(|c| c.key == "hardware.gpu_count" && c.why.contains("8 instances")));
        let large = plan(&choices("meta-llama/Llama-3.1-70B-Instruct", "H100-80GB", 8, Traffic::Chat)).unwrap();
        assert!(large.fits);
        // Two H100s hold the weights but leave room for only a few requests.
        assert!(large.config.contains("tensor_parallel_size = 4"), "{}", large.config);
        let too_large = plan(&choices("meta-llama/Llama-3.1-70B-Instruct", "L4", 1, Traffic::Chat)).unwrap();
        assert!(!too_large.fits);
        assert!(too_large.choices[1].why.contains("does not start"), "{:?}", too_large.choices[1]);
    }

    #[test]
    fn max_model_len_covers_every_class() {
        for traffic in Traffic::ALL {
            let p = plan(&choices("Qwen/Qwen2.5-7B-Instruct", "A100-80GB", 1, traffic)).unwrap();
            let len: u32 = p.choices[0].value.parse().unwrap();
            assert!(traffic.classes().iter().all(|c| c.2 + c.3 <= len), "{}: {len}", traffic.name());
            assert_eq!(len % 1024, 0);
        }
    }

    #[test]
    fn a_model_outside_the_catalog_needs_its_files() {
        let err = plan(&choices("acme/unknown-7b", "L4", 1, Traffic::Chat)).unwrap_err();
        assert!(err.contains("config.json"), "{err}");
        let arch = crate::catalog::find_model("meta-llama/Llama-3.1-8B-Instruct").unwrap().arch.clone();
        let c =
            Choices { model: "acme/unknown-8b", arch: Some(&arch), gpu: "L40S", gpu_count: 1, traffic: Traffic::Chat };
        let p = plan(&c).unwrap();
        assert!(p.fits);
        assert!(p.config.contains("name = \"acme/unknown-8b\""));
        assert!(p.settings.contains("\"model\": \"unknown-8b\""));
        assert!(plan(&choices("meta-llama/Llama-3.1-8B-Instruct", "B9000", 1, Traffic::Chat)).is_err());
        // Any name stays one TOML string, control characters included.
        let odd = Choices {
            model: "acme/\"x\"\n[server]\u{7f}",
            arch: Some(&arch),
            gpu: "L40S",
            gpu_count: 1,
            traffic: Traffic::Chat,
        };
        let p = plan(&odd).unwrap();
        let back: crate::model::ServerConfig = toml::from_str(&p.config).unwrap();
        assert_eq!(back.model.name, "acme/\"x\"\n[server]\u{7f}");
    }
}
