//! The rule registry. Each rule is a small module with a stable code, a
//! kebab-case name, a default severity and a doc comment that is its
//! documentation (`cfg-lint explain CODE` prints it).
//!
//! Codes by family: CFG0xx file and schema, CFG1xx batching and context
//! length, CFG2xx GPU memory, CFG3xx model/GPU/parallelism compatibility,
//! CFG4xx load-test settings, CFG5xx across the two files, CFG6xx security.

use crate::diagnostic::{Finding, Severity, Target};
use crate::memory::{MemoryReport, Missing};
use crate::model::{LoadTestSettings, ServerConfig};
use crate::resolve::{Arch, Batch, Gpu, ResolvedDtype};
use crate::tree::Node;

/// Declares a rule: the doc comment becomes its documentation.
macro_rules! declare_rule {
    ($(#[doc = $doc:expr])* pub static $id:ident = { code: $code:literal, name: $name:literal, severity: $sev:ident, check $(,)? }) => {
        declare_rule! { $(#[doc = $doc])* pub static $id = { code: $code, name: $name, severity: $sev, check: check } }
    };
    ($(#[doc = $doc:expr])* pub static $id:ident = { code: $code:literal, name: $name:literal, severity: $sev:ident, check: $check:ident $(,)? }) => {
        $(#[doc = $doc])*
        pub static $id: $crate::rules::Rule = $crate::rules::Rule {
            code: $code,
            name: $name,
            severity: $crate::diagnostic::Severity::$sev,
            doc: concat!($($doc, "\n"),*),
            check: $check,
        };
    };
}

mod batching;
mod compat;
mod cross;
mod memory;
mod schema;
pub mod security;
mod settings;

pub use compat::quantization_unsupported::{enum_note_for_quantization, removed_quantization};

pub type Check = fn(&Context<'_>, &mut Vec<Finding>);

pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// The rule's documentation, from its doc comment (markdown).
    pub doc: &'static str,
    pub check: Check,
}

impl Rule {
    /// A finding of this rule at its default severity.
    pub fn finding(&self, message: impl Into<String>, target: Target) -> Finding {
        Finding::new(self.code, self.name, self.severity, message, target)
    }

    /// The documentation with the one leading space of `///` comments removed.
    pub fn documentation(&self) -> String {
        self.doc.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n").trim().to_string()
    }

    /// First line of the documentation.
    pub fn summary(&self) -> String {
        self.documentation().lines().next().unwrap_or_default().trim_start_matches("# ").to_string()
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.code, self.name)
    }
}

/// Every rule, in code order.
pub static RULES: &[&Rule] = &[
    &schema::SYNTAX_ERROR,
    &schema::UNKNOWN_KEY,
    &schema::MISSING_KEY,
    &schema::WRONG_TYPE,
    &schema::OUT_OF_RANGE,
    &schema::INVALID_VALUE,
    &batching::batched_tokens_below_max_model_len::RULE,
    &batching::batched_tokens_below_max_num_seqs::RULE,
    &batching::batched_tokens_above_seqs_times_len::RULE,
    &batching::max_model_len_exceeds_model::RULE,
    &batching::batching_knobs_defaulted::RULE,
    &memory::model_does_not_fit::RULE,
    &memory::max_model_len_does_not_fit::RULE,
    &memory::kv_cache_preemption_risk::RULE,
    &memory::kv_cache_capacity::RULE,
    &memory::memory_not_checked::RULE,
    &memory::gpu_memory_utilization_too_high::RULE,
    &compat::bfloat16_unsupported_gpu::RULE,
    &compat::quantization_unsupported::RULE,
    &compat::quantization_needs_newer_gpu::RULE,
    &compat::quantization_dtype_mismatch::RULE,
    &compat::kv_cache_dtype_invalid::RULE,
    &compat::kv_cache_dtype_mismatch::RULE,
    &compat::float16_unsupported_model::RULE,
    &compat::attention_heads_not_divisible::RULE,
    &compat::kv_heads_not_divisible::RULE,
    &compat::world_size_exceeds_gpus::RULE,
    &compat::unknown_gpu::RULE,
    &compat::unknown_model::RULE,
    &compat::pipeline_exceeds_layers::RULE,
    &compat::no_vllm_equivalent::RULE,
    &settings::weights_do_not_sum_to_one::RULE,
    &settings::percentiles::RULE,
    &settings::endpoint_path::RULE,
    &settings::zero_weight_class::RULE,
    &settings::no_warmup::RULE,
    &cross::request_class_exceeds_max_model_len::RULE,
    &cross::model_name_not_served::RULE,
    &cross::concurrency_above_max_num_seqs::RULE,
    &cross::endpoint_port_mismatch::RULE,
    &cross::missing_api_key_env::RULE,
    &security::literal_secret::RULE,
    &security::public_listen_without_key::RULE,
    &security::key_over_plain_http::RULE,
    &security::port_conflict::RULE,
];

pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// Everything a rule may look at. The typed files are present only when they
/// passed the schema; derived figures are computed once for all rules.
pub struct Context<'a> {
    pub config: Option<&'a ServerConfig>,
    pub settings: Option<&'a LoadTestSettings>,
    pub config_tree: Option<&'a Node>,
    pub settings_tree: Option<&'a Node>,
    pub derived: Option<Derived>,
}

/// Figures derived from the config once, shared by the rules.
pub struct Derived {
    pub gpu: Option<Gpu>,
    pub arch: Arch,
    pub dtype: ResolvedDtype,
    pub batch: Batch,
    pub memory: Result<MemoryReport, Missing>,
}

impl<'a> Context<'a> {
    pub fn new(
        config: Option<&'a ServerConfig>,
        settings: Option<&'a LoadTestSettings>,
        config_tree: Option<&'a Node>,
        settings_tree: Option<&'a Node>,
    ) -> Self {
        let derived = config.map(|c| {
            let gpu = crate::resolve::gpu(c);
            let arch = crate::resolve::arch(c);
            let dtype = crate::resolve::dtype(c, &arch, gpu.as_ref());
            let batch = crate::resolve::batch(c, &arch, gpu.as_ref());
            let memory = match &gpu {
                Some(g) => crate::memory::estimate_with(c, g, &arch),
                None => Err(Missing::Gpu),
            };
            Derived { gpu, arch, dtype, batch, memory }
        });
        Context { config, settings, config_tree, settings_tree, derived }
    }

    /// Whether a key is written in the config (rules that judge explicit
    /// values must not fire on vLLM's own defaults).
    pub fn config_has(&self, pointer: &str) -> bool {
        self.config_tree.is_some_and(|t| t.locate(pointer).is_some())
    }

    pub fn settings_has(&self, pointer: &str) -> bool {
        self.settings_tree.is_some_and(|t| t.locate(pointer).is_some())
    }
}

/// Runs every rule.
pub fn run(ctx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in RULES {
        (rule.check)(ctx, &mut out);
    }
    out
}

fn noop(_: &Context<'_>, _: &mut Vec<Finding>) {}

/// The rule that owns schema enum errors at a pointer, so `gguf` in
/// `model.quantization` is reported by the quantization rule, with its advice.
pub fn enum_owner(pointer: &str) -> Option<(&'static str, &'static str)> {
    let rule = match pointer {
        "/model/quantization" => &compat::quantization_unsupported::RULE,
        "/model/kv_cache_dtype" => &compat::kv_cache_dtype_invalid::RULE,
        _ => return None,
    };
    Some((rule.code, rule.name))
}

/// An explanation to add when a value is refused by an enum.
pub fn enum_note(pointer: &str, value: &str) -> Option<String> {
    match pointer {
        "/model/quantization" => enum_note_for_quantization(value),
        _ => None,
    }
}

/// Common spellings of valid values (fp16 for float16, ...).
pub fn enum_alias(value: &str) -> Option<String> {
    let alias = match value.to_ascii_lowercase().as_str() {
        "fp16" | "f16" | "half" => "float16",
        "bf16" => "bfloat16",
        "fp32" | "f32" => "float32",
        "fp8_e4m3fn" => "fp8_e4m3",
        "fifo" | "fcfs" => "fcfs",
        "compressed_tensors" => "compressed-tensors",
        _ => return None,
    };
    Some(alias.to_string())
}

/// `1 234 567` style thousands for messages.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
