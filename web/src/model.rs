//! What the page holds and how it changes, as plain functions of text and
//! JSON so they are tested natively: both files live as text (the source of
//! truth, exactly what is exported), the form reads and writes them through
//! JSON values, and every change is linted by the same core as cfg-lint.

use cfg_core::{FileKind, Input, Options, Report};
use serde_json::{Map, Value};

pub const CONFIG_NAME: &str = "config.toml";
pub const SETTINGS_NAME: &str = "settings.json";
pub const CONFIG_HEADER: &str = "#:schema ./schemas/config.schema.json\n";

/// Lints the pair exactly as `cfg-lint check config.toml settings.json` does.
pub fn lint(config: &str, settings: &str) -> Report {
    lint_with(config, settings, None)
}

/// A model's own files, given on the page (dropped, chosen, or fetched through
/// `cfg-bench serve` from the Hub).
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The `[model] name` they were given for: they describe that model only.
    pub for_name: String,
    /// Where they came from, as the page says it.
    pub origin: String,
    pub config_json: String,
    pub safetensors_index: Option<String>,
    /// The files read once: every lint, render and prediction asks for them.
    read: std::cell::OnceCell<Option<Box<cfg_core::arch::Arch>>>,
}

/// Lints with the model's own files, when the page has them for the model the
/// config names (not for a model named since): the same reading of config.json
/// as cfg-lint's.
pub fn lint_with(config: &str, settings: &str, files: Option<&ModelFiles>) -> Report {
    let inputs =
        [Input::new(FileKind::Config, CONFIG_NAME, config), Input::new(FileKind::Settings, SETTINGS_NAME, settings)];
    let mut options = Options::default();
    // The name is only looked for when there are files to match it.
    if let Some(files) = files
        && let Some(name) = model_name(config)
        && let Some(arch) = files.arch_for(&name)
    {
        options.models.push((name, arch));
    }
    cfg_core::lint(&inputs, &options)
}

/// The same files, whether or not they have been read yet.
impl PartialEq for ModelFiles {
    fn eq(&self, other: &Self) -> bool {
        (&self.for_name, &self.origin, &self.config_json, &self.safetensors_index)
            == (&other.for_name, &other.origin, &other.config_json, &other.safetensors_index)
    }
}

impl ModelFiles {
    pub fn new(for_name: String, origin: String, config_json: String, safetensors_index: Option<String>) -> Self {
        ModelFiles { for_name, origin, config_json, safetensors_index, read: std::cell::OnceCell::new() }
    }

    /// The architecture they give, when they are `name`'s and read.
    pub fn arch_for(&self, name: &str) -> Option<cfg_core::arch::Arch> {
        if self.for_name != name {
            return None;
        }
        self.read
            .get_or_init(|| {
                cfg_core::hf::read_model(&self.config_json, self.safetensors_index.as_deref(), &self.origin)
                    .ok()
                    .map(Box::new)
            })
            .as_deref()
            .cloned()
    }
}

/// The `[model] name` a config gives, if it parses that far.
pub fn model_name(config: &str) -> Option<String> {
    config_value(config).and_then(|v| v.pointer("/model/name").and_then(Value::as_str).map(str::to_string))
}

/// Whether the page knows the model's architecture: the catalog has it, or
/// its own config.json was given.
pub fn model_resolved(name: &str, files: Option<&ModelFiles>) -> bool {
    cfg_core::catalog::find_model(name).is_some() || files.is_some_and(|f| f.arch_for(name).is_some())
}

/// The three choices of the start, made into a pair by the core.
pub fn plan(
    model: &str,
    gpu: &str,
    count: &str,
    traffic: &str,
    files: Option<&ModelFiles>,
) -> Result<cfg_core::plan::Plan, String> {
    let gpu_count = count.trim().parse::<u32>().map_err(|_| format!("`{count}` is not a number of GPUs"))?;
    let traffic = cfg_core::plan::Traffic::from_name(traffic).unwrap_or(cfg_core::plan::Traffic::Mixed);
    let arch = files.and_then(|f| f.arch_for(model.trim()));
    let mut plan = cfg_core::plan::plan(&cfg_core::plan::Choices {
        model: model.trim(),
        arch: arch.as_ref(),
        gpu,
        gpu_count,
        traffic,
    })?;
    plan.config = format!("{CONFIG_HEADER}\n{}", plan.config);
    Ok(plan)
}

/// Where a Hub-shaped server keeps a model's file.
pub fn hub_file_url(hub: &str, model: &str, file: &str) -> String {
    format!("{}/{}/resolve/main/{file}", hub.trim_end_matches('/'), model.trim())
}

/// Whether a model id is safe to put in a Hub URL: `owner/name` of the
/// characters the Hub allows.
pub fn is_hub_id(model: &str) -> bool {
    let mut parts = model.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// The Hub the page fetches from: `?hub=<url>` (a mirror, or a test's local
/// server), else huggingface.co.
pub fn hub_from_query(search: &str) -> String {
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("hub="))
        .and_then(decode)
        .filter(|h| h.starts_with("http://") || h.starts_with("https://"))
        .unwrap_or_else(|| "https://huggingface.co".into())
}

/// Whether a dropped JSON file is a model's config.json rather than a settings.json.
pub fn is_model_config(text: &str) -> bool {
    serde_json::from_str::<Value>(text).ok().is_some_and(|v| {
        v.get("request_distribution").is_none()
            && ["model_type", "architectures", "num_hidden_layers", "text_config"].iter().any(|k| v.get(*k).is_some())
    })
}

/// The config as JSON (for the form), if it parses.
pub fn config_value(text: &str) -> Option<Value> {
    cfg_core::parse::parse_toml(text).ok().map(|n| n.to_json())
}

pub fn settings_value(text: &str) -> Option<Value> {
    cfg_core::parse::parse_json(text).ok().map(|n| n.to_json())
}

/// Sets (or with `None` removes) the value at a JSON pointer, creating
/// tables on the way; empty tables left behind are removed.
pub fn set_pointer(root: &mut Value, pointer: &str, new: Option<Value>) {
    let tokens: Vec<String> = cfg_core::tree::pointer_tokens(pointer).collect();
    set_in(root, &tokens, new);
}

fn set_in(node: &mut Value, tokens: &[String], new: Option<Value>) {
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    let map = node.as_object_mut().expect("just made an object");
    match tokens {
        [] => {}
        [last] => match new {
            Some(v) => {
                map.insert(last.clone(), v);
            }
            None => {
                map.shift_remove(last);
            }
        },
        [first, rest @ ..] => {
            let child = map.entry(first.clone()).or_insert_with(|| Value::Object(Map::new()));
            set_in(child, rest, new);
            if child.as_object().is_some_and(Map::is_empty) {
                map.shift_remove(first);
            }
        }
    }
}

/// The config as TOML text, with the schema header editors use.
pub fn config_text(value: &Value) -> String {
    let body = toml::to_string_pretty(value).unwrap_or_default();
    format!("{CONFIG_HEADER}\n{body}")
}

pub fn settings_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// What the user typed, as the JSON the schema expects when it can be read
/// that way; otherwise kept as a string so the linter says what is wrong.
pub fn typed_input(raw: &str, kind: &str) -> Option<Value> {
    let t = raw.trim();
    if t.is_empty() {
        return None;
    }
    Some(match kind {
        "integer" => t.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(t.to_string())),
        "number" => t
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(t.to_string())),
        "boolean" => match t {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(t.to_string()),
        },
        "array" => Value::Array(
            t.split(',')
                .map(|x| x.trim())
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.parse::<f64>()
                        .ok()
                        .and_then(serde_json::Number::from_f64)
                        .map(Value::Number)
                        .unwrap_or_else(|| Value::String(x.to_string()))
                })
                .collect(),
        ),
        _ => Value::String(t.to_string()),
    })
}

/// The address `cfg-bench serve` printed, with this pair added to it: the
/// runner's page opens with these two files. Only an http(s) address that
/// carries the runner's token.
pub fn runner_link(printed: &str, config: &str, settings: &str) -> Option<String> {
    let printed = printed.trim();
    if !(printed.starts_with("http://") || printed.starts_with("https://")) {
        return None;
    }
    let (base, frag) = printed.split_once('#')?;
    let (_, _, token) = parse_fragment(frag);
    let token =
        token.filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))?;
    Some(format!("{base}#token={token}&{}", fragment(config, settings)))
}

/// The whole state in a URL fragment: `#c=<config>&s=<settings>`, each
/// percent-encoded, so a link reproduces the page.
pub fn fragment(config: &str, settings: &str) -> String {
    format!("c={}&s={}", encode(config), encode(settings))
}

pub fn parse_fragment(fragment: &str) -> (Option<String>, Option<String>, Option<String>) {
    let (mut c, mut s, mut token) = (None, None, None);
    for part in fragment.trim_start_matches('#').split('&') {
        match part.split_once('=') {
            Some(("c", v)) => c = decode(v),
            Some(("s", v)) => s = decode(v),
            Some(("token", v)) => token = Some(v.to_string()),
            _ => {}
        }
    }
    (c, s, token)
}

fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = include_str!("../../examples/spec/config.toml");
    const SETTINGS: &str = include_str!("../../examples/spec/settings.json");

    /// The page's lint of the SPEC pair, shown as cfg-lint shows it, is the
    /// committed snapshot of `cfg-lint check` on the same two files, word for word.
    #[test]
    fn the_page_lints_like_the_cli() {
        let config = include_str!("../../tests/fixtures/bad-spec-pair/config.toml");
        let settings = include_str!("../../tests/fixtures/bad-spec-pair/settings.json");
        let snapshot = include_str!("../../tests/snapshots/bad-spec-pair.snap");
        let cli = snapshot.splitn(3, "---\n").nth(2).expect("an insta snapshot: header, then the output");
        let inputs = [
            Input::new(FileKind::Config, CONFIG_NAME, config),
            Input::new(FileKind::Settings, SETTINGS_NAME, settings),
        ];
        let report = lint(config, settings);
        let shown = cfg_core::output::report(
            cfg_core::output::Format::Human,
            &inputs,
            &report,
            &cfg_core::output::Options::default(),
        );
        assert_eq!(shown.trim_end(), cli.trim_end());
        assert!(report.diagnostics.iter().any(|d| d.code == "CFG501" && d.pointer == "/request_distribution/tail"));
    }

    #[test]
    fn form_edits_round_trip_through_the_text() {
        let mut v = config_value(CONFIG).unwrap();
        set_pointer(&mut v, "/model/max_model_len", typed_input("12288", "integer"));
        set_pointer(&mut v, "/hardware/gpu", typed_input("H100-80GB", "string"));
        let text = config_text(&v);
        assert!(text.starts_with(CONFIG_HEADER));
        let back = config_value(&text).unwrap();
        assert_eq!(back["model"]["max_model_len"], 12288);
        assert_eq!(back["hardware"]["gpu"], "H100-80GB");
        let report = lint(&text, SETTINGS);
        assert!(!report.diagnostics.iter().any(|d| d.code == "CFG501"), "the tail class fits now");
        set_pointer(&mut v, "/hardware/gpu", None);
        assert!(v.get("hardware").is_none(), "an emptied table goes away");
    }

    #[test]
    fn bad_input_stays_visible_to_the_linter() {
        assert_eq!(typed_input("abc", "integer"), Some(Value::String("abc".into())));
        assert_eq!(typed_input(" ", "integer"), None);
        assert_eq!(typed_input("50, 95,99", "array"), Some(serde_json::json!([50.0, 95.0, 99.0])));
    }

    #[test]
    fn the_start_builds_a_pair_the_linter_passes() {
        let rag = plan("Qwen/Qwen2.5-7B-Instruct", "L4", "1", "rag", None).unwrap();
        assert!(rag.config.starts_with(CONFIG_HEADER));
        let report = lint(&rag.config, &rag.settings);
        assert_eq!(
            report.count(cfg_core::Severity::Error) + report.count(cfg_core::Severity::Warning),
            0,
            "{:?}",
            report.diagnostics
        );
        assert!(plan("Qwen/Qwen2.5-7B-Instruct", "L4", "two", "rag", None).unwrap_err().contains("two"));
        // A model outside the catalog, with its config.json given on the page.
        let files = ModelFiles::new(
            "acme/chat-8b".into(),
            "config.json (dropped)".into(),
            cfg_core::catalog::config_json("meta-llama/Llama-3.1-8B-Instruct").unwrap().into(),
            None,
        );
        assert!(plan("acme/chat-8b", "L4", "1", "chat", None).is_err());
        let p = plan("acme/chat-8b", "L4", "1", "chat", Some(&files)).unwrap();
        assert!(model_resolved("acme/chat-8b", Some(&files)) && !model_resolved("acme/chat-8b", None));
        let report = lint_with(&p.config, &p.settings, Some(&files));
        assert!(!report.has_errors(), "{:?}", report.diagnostics);
    }

    #[test]
    fn hub_urls_take_only_hub_ids() {
        assert_eq!(
            hub_file_url("https://huggingface.co/", "Qwen/Qwen3-8B", "config.json"),
            "https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json"
        );
        assert!(is_hub_id("Qwen/Qwen2.5-7B-Instruct") && is_hub_id("acme/chat_8b.v2"));
        for bad in ["../../etc", "Qwen", "a/b/c", "a/..", "a/b?x=1", "a/b#c", "/a"] {
            assert!(!is_hub_id(bad), "{bad}");
        }
        assert_eq!(hub_from_query("?x=1&hub=http%3A%2F%2F127.0.0.1%3A9000"), "http://127.0.0.1:9000");
        assert_eq!(hub_from_query("?hub=javascript:alert(1)"), "https://huggingface.co");
        assert_eq!(hub_from_query(""), "https://huggingface.co");
    }

    #[test]
    fn the_runner_link_carries_the_pair_and_only_a_token() {
        let link = runner_link(" http://127.0.0.1:8787/#token=abc_1 ", "a = 1", "{}").unwrap();
        assert_eq!(link, "http://127.0.0.1:8787/#token=abc_1&c=a%20%3D%201&s=%7B%7D");
        let (c, s, t) = parse_fragment(link.split_once('#').unwrap().1);
        assert_eq!((c.as_deref(), s.as_deref(), t.as_deref()), (Some("a = 1"), Some("{}"), Some("abc_1")));
        assert_eq!(runner_link("javascript:alert(1)#token=a", "", ""), None);
        assert_eq!(runner_link("http://127.0.0.1:8787/", "", ""), None, "no token: not the address serve printed");
        assert_eq!(runner_link("http://x/#token=a\"b", "", ""), None);
    }

    #[test]
    fn the_fragment_reproduces_the_state() {
        let f = fragment(CONFIG, SETTINGS);
        let (c, s, t) = parse_fragment(&format!("#token=abc&{f}"));
        assert_eq!((c.as_deref(), s.as_deref(), t.as_deref()), (Some(CONFIG), Some(SETTINGS), Some("abc")));
    }
}
