//! The rule registry. Each rule is a small module with a stable code, a
//! kebab-case name, a default severity and a doc comment that is its
//! documentation (`cfg-lint explain CODE` prints it).
//!
//! Codes by family: CFG0xx file and schema, CFG1xx batching and context
//! length, CFG2xx GPU memory, CFG3xx model/GPU/parallelism compatibility,
//! CFG4xx load-test settings, CFG5xx across the two files, CFG6xx security.

use crate::diagnostic::{Finding, Severity, Target};
use crate::kind::FileKind;
use crate::schema::EnumClaim;
use crate::tree::Node;

/// Declares a rule: the doc comment becomes its documentation, and `scope`
/// says which files its check needs (see [`Check`]).
macro_rules! declare_rule {
    ($(#[doc = $doc:expr])* pub static $id:ident = { code: $code:literal, name: $name:literal, severity: $sev:ident, $scope:ident $(: $check:ident)? $(,)? }) => {
        $(#[doc = $doc])*
        pub static $id: $crate::rules::Rule = $crate::rules::Rule {
            code: $code,
            name: $name,
            severity: $crate::diagnostic::Severity::$sev,
            doc: concat!($($doc, "\n"),*),
            check: declare_rule!(@check $scope $($check)?),
        };
    };
    (@check parsed) => { $crate::rules::Check::Parsed };
    (@check $scope:ident) => { declare_rule!(@check $scope check) };
    (@check config $check:ident) => { $crate::rules::Check::Config($check) };
    (@check settings $check:ident) => { $crate::rules::Check::Settings($check) };
    (@check pair $check:ident) => { $crate::rules::Check::Pair($check) };
    (@check tree $check:ident) => { $crate::rules::Check::Tree($check) };
}

mod batching;
mod compat;
mod context;
mod cross;
mod memory;
mod schema;
mod security;
mod settings;

pub use compat::quantization_unsupported::removed_quantization;
pub use context::{ConfigContext, SettingsContext};

/// What a rule's check needs, and so when it runs: the registry calls each
/// check only with the files it needs, typed and schema-valid.
#[derive(Clone, Copy)]
pub enum Check {
    /// Reported by the parser or the schema validator, not by a check of its own;
    /// registered for its code and documentation.
    Parsed,
    /// A config.toml, with the figures derived from it.
    Config(fn(&ConfigContext<'_>, &mut Vec<Finding>)),
    /// A settings.json.
    Settings(fn(&SettingsContext<'_>, &mut Vec<Finding>)),
    /// A config.toml and the settings.json of the same load test.
    Pair(fn(&ConfigContext<'_>, &SettingsContext<'_>, &mut Vec<Finding>)),
    /// The syntax tree of any config or settings file that parses, valid or not.
    Tree(fn(&Node, FileKind, &mut Vec<Finding>)),
}

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
    &batching::chunked_prefill_disabled::RULE,
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
    &compat::fp8_kv_cache_no_backend::RULE,
    &compat::checkpoint_quantization_unsupported::RULE,
    &compat::quantization_not_on_rocm::RULE,
    &compat::pipeline_parallel_unsupported::RULE,
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
    &cross::endpoint_route_not_served::RULE,
    &security::literal_secret::RULE,
    &security::public_listen_without_key::RULE,
    &security::key_over_plain_http::RULE,
    &security::port_conflict::RULE,
];

pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// Runs every rule (or only `only`) on the files at hand: config rules when
/// there is a valid config, settings rules when there are valid settings, pair
/// rules when both belong to one load test.
pub fn run(
    config: Option<&ConfigContext<'_>>,
    settings: Option<&SettingsContext<'_>>,
    only: Option<&Rule>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in RULES.iter().filter(|r| only.is_none_or(|o| o.code == r.code)) {
        match (rule.check, config, settings) {
            (Check::Config(check), Some(c), _) => check(c, &mut out),
            (Check::Settings(check), _, Some(s)) => check(s, &mut out),
            (Check::Pair(check), Some(c), Some(s)) => check(c, s, &mut out),
            _ => {}
        }
    }
    out
}

/// Runs the tree rules (or only `only`) on one parsed file.
pub fn run_on_tree(tree: &Node, file: FileKind, only: Option<&Rule>) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in RULES.iter().filter(|r| only.is_none_or(|o| o.code == r.code)) {
        if let Check::Tree(check) = rule.check {
            check(tree, file, &mut out);
        }
    }
    out
}

/// The rule that owns schema enum errors at a pointer, so `gguf` in
/// `model.quantization` is reported by the quantization rule, with its advice.
pub fn enum_claim(pointer: &str, value: &str) -> Option<EnumClaim> {
    let (rule, note) = match pointer {
        "/model/quantization" => {
            (&compat::quantization_unsupported::RULE, Some(compat::quantization_unsupported::enum_note(value)))
        }
        "/model/kv_cache_dtype" => (&compat::kv_cache_dtype_invalid::RULE, None),
        _ => return None,
    };
    Some(EnumClaim { code: rule.code, rule: rule.name, note })
}

/// Thousands separated by commas for messages: `1,234,567`.
pub fn thousands(n: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Input, Options};

    #[test]
    fn codes_are_unique_and_in_order_and_every_doc_has_its_sections() {
        for pair in RULES.windows(2) {
            assert!(pair[0].code < pair[1].code, "{} before {}", pair[0].code, pair[1].code);
        }
        for rule in RULES {
            let doc = rule.documentation();
            assert!(doc.starts_with("# "), "{} has no title", rule.code);
            for section in ["**What:**", "**Why:**", "**Example:**", "**Fix:**"] {
                assert!(doc.contains(section), "{} lacks {section}", rule.code);
            }
            assert!(
                rule.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                rule.name
            );
        }
        use crate::schema::codes;
        for (code, name) in [
            codes::SYNTAX,
            codes::UNKNOWN_KEY,
            codes::MISSING_KEY,
            codes::WRONG_TYPE,
            codes::OUT_OF_RANGE,
            codes::INVALID_VALUE,
        ] {
            assert!(find(code).is_some_and(|r| r.name == name && matches!(r.check, Check::Parsed)), "{code}");
        }
    }

    #[test]
    fn one_rule_runs_alone() {
        let inputs = [
            Input::new(FileKind::Config, "config.toml", include_str!("../../../../examples/spec/config.toml")),
            Input::new(FileKind::Settings, "settings.json", include_str!("../../../../examples/spec/settings.json")),
        ];
        let all = crate::lint(&inputs, &Options::default());
        assert!(all.diagnostics.iter().any(|d| d.code != "CFG501"), "the pair has other findings too");
        let only = crate::lint(&inputs, &Options { only: find("CFG501"), ..Options::default() });
        let codes: Vec<&str> = only.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["CFG501"]);
    }
}
