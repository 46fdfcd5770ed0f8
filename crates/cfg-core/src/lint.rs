//! The whole pipeline for one or two files: parse with spans, validate
//! against the schema, deserialize, run the rules, and tie every finding to a
//! line and column.

use crate::diagnostic::{self, Diagnostic, Finding, Place, Severity, Target};
use crate::kind::FileKind;
use crate::memory::MemoryReport;
use crate::model::{Architecture, BenchResult, LoadTestSettings, ServerConfig};
use crate::parse::{SyntaxError, parse_json, parse_toml};
use crate::rules::{self, ConfigContext, Rule, SettingsContext};
use crate::schema::{self, codes};
use crate::source::SourceFile;
use crate::tree::Node;

/// A file handed to the linter: its name (used in diagnostics), its text and
/// its kind.
#[derive(Debug, Clone)]
pub struct Input {
    pub kind: FileKind,
    pub source: SourceFile,
}

impl Input {
    pub fn new(kind: FileKind, name: impl Into<String>, text: impl Into<String>) -> Self {
        Input { kind, source: SourceFile::new(name, text) }
    }
}

/// Extra knowledge the caller may supply (the CLI reads files; the core does not).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Architecture from a local Hugging Face config.json (`--model-config`);
    /// fills keys `[model.architecture]` leaves out.
    pub model_config: Option<Architecture>,
    /// Run this rule alone (with the parser's and the schema's findings, which
    /// every rule needs first): how a rule's own tests stay independent of the others.
    pub only: Option<&'static Rule>,
}

/// Everything one lint produced.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub config: Option<ServerConfig>,
    /// The config as written when it deserializes but breaks the schema (a value out
    /// of range, say): rules never see it; `render --force` can still render it.
    pub config_unchecked: Option<ServerConfig>,
    pub settings: Option<LoadTestSettings>,
    pub result: Option<BenchResult>,
    pub memory: Option<MemoryReport>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == severity).count()
    }

    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }
}

struct Parsed<'a> {
    input: &'a Input,
    tree: Option<Node>,
    json: Option<serde_json::Value>,
    schema_ok: bool,
}

/// Lints any mix of files; a config and a settings file together also get
/// the cross-file rules. With several files of one kind, each is linted alone
/// and the first of each kind is paired.
pub fn lint(inputs: &[Input], options: &Options) -> Report {
    let mut report = Report::default();
    let mut parsed: Vec<Parsed<'_>> = Vec::new();
    for input in inputs {
        let tree = match parse(input) {
            Ok(tree) => Some(tree),
            Err(err) => {
                let f = Finding::new(
                    codes::SYNTAX.0,
                    codes::SYNTAX.1,
                    Severity::Error,
                    err.message,
                    Target::value(input.kind, ""),
                );
                let f = match err.help {
                    Some(h) => f.help(h),
                    None => f,
                };
                report.diagnostics.push(Diagnostic::at(f, &input.source, err.span, String::new()));
                None
            }
        };
        // The plain JSON is built once: the schema checks it, serde reads it.
        let json = tree.as_ref().map(Node::to_json);
        let mut schema_ok = false;
        if let (Some(tree), Some(json)) = (&tree, &json) {
            let findings = schema::validate(input.kind, json, &rules::enum_claim);
            schema_ok = findings.is_empty();
            for f in findings {
                report.diagnostics.push(place(f, &input.source, tree));
            }
        }
        if let Some(tree) = tree.as_ref().filter(|_| input.kind != FileKind::Result) {
            for f in rules::run_on_tree(tree, input.kind, options.only) {
                report.diagnostics.push(place(f, &input.source, tree));
            }
        }
        parsed.push(Parsed { input, tree, json, schema_ok });
    }

    let config_idx: Vec<usize> =
        parsed.iter().enumerate().filter(|(_, p)| p.input.kind == FileKind::Config).map(|(i, _)| i).collect();
    let settings_idx: Vec<usize> =
        parsed.iter().enumerate().filter(|(_, p)| p.input.kind == FileKind::Settings).map(|(i, _)| i).collect();

    for p in parsed.iter().filter(|p| p.input.kind == FileKind::Result && p.schema_ok) {
        report.result = typed(p);
    }

    // Pair the first config with the first settings; lint the rest alone.
    let mut runs = vec![(config_idx.first().copied(), settings_idx.first().copied(), true)];
    runs.extend(config_idx.iter().skip(1).map(|&c| (Some(c), None, false)));
    runs.extend(settings_idx.iter().skip(1).map(|&s| (None, Some(s), false)));
    for (c, s, primary) in runs {
        if c.is_none() && s.is_none() {
            continue;
        }
        let config = c.and_then(|i| typed::<ServerConfig>(&parsed[i])).map(|mut cfg| {
            if let Some(extra) = &options.model_config {
                merge_architecture(&mut cfg, extra);
            }
            cfg
        });
        let settings = s.and_then(|i| typed::<LoadTestSettings>(&parsed[i]));
        // Contexts exist only for files that are valid and typed, so a rule never
        // sees a half-read file.
        let config_ctx =
            c.zip(config.as_ref()).and_then(|(i, cfg)| Some(ConfigContext::new(cfg, parsed[i].tree.as_ref()?)));
        let settings_ctx = s
            .zip(settings.as_ref())
            .and_then(|(i, st)| Some(SettingsContext { settings: st, tree: parsed[i].tree.as_ref()? }));
        for f in rules::run(config_ctx.as_ref(), settings_ctx.as_ref(), options.only) {
            let Some(i) = (if f.target.file == FileKind::Settings { s } else { c }) else { continue };
            if let Some(tree) = &parsed[i].tree {
                report.diagnostics.push(place(f, &parsed[i].input.source, tree));
            }
        }
        if primary {
            report.config_unchecked = c
                .filter(|&i| !parsed[i].schema_ok)
                .and_then(|i| <ServerConfig as serde::Deserialize>::deserialize(parsed[i].json.as_ref()?).ok());
            report.memory = config_ctx.as_ref().and_then(|ctx| ctx.memory.clone().ok());
            report.config = config;
            report.settings = settings;
        }
    }
    diagnostic::sort(&mut report.diagnostics);
    report
}

/// Adds a Hugging Face config.json's architecture under the one in the file.
fn merge_architecture(config: &mut ServerConfig, extra: &Architecture) {
    let arch = config.model.architecture.get_or_insert_with(Default::default);
    macro_rules! fill {
        ($($f:ident),*) => { $( if arch.$f.is_none() { arch.$f = extra.$f.clone(); } )* };
    }
    crate::architecture_fields!(fill);
}

fn parse(input: &Input) -> Result<Node, SyntaxError> {
    match input.kind {
        FileKind::Config => parse_toml(&input.source.text),
        FileKind::Settings | FileKind::Result => parse_json(&input.source.text),
    }
}

fn typed<T: serde::de::DeserializeOwned>(p: &Parsed<'_>) -> Option<T> {
    if !p.schema_ok {
        return None;
    }
    T::deserialize(p.json.as_ref()?).ok()
}

/// Ties a finding to a span: the value (or key) at its pointer, or, for a key
/// that is absent, the section it belongs in.
fn place(f: Finding, source: &SourceFile, tree: &Node) -> Diagnostic {
    let (pointer, want_key) = match &f.target.place {
        Place::Value(p) => (p.clone(), false),
        Place::Key(p) => (p.clone(), true),
        Place::Span { span, pointer } => {
            let (span, pointer) = (span.clone(), pointer.clone());
            return Diagnostic::at(f, source, span, pointer);
        }
    };
    let (found, exact) = tree.locate_nearest(&pointer);
    let span = if found.node.span == tree.span && found.key_span.is_none() {
        first_line(source)
    } else if want_key && exact {
        found.key_span.unwrap_or(found.node.span.clone())
    } else if !exact {
        // The key is missing: underline the section header it belongs in.
        found
            .key_span
            .clone()
            .filter(|_| !is_table_header(source, &found.node.span))
            .unwrap_or_else(|| found.node.span.clone())
    } else {
        found.node.span.clone()
    };
    Diagnostic::at(f, source, span, pointer)
}

fn is_table_header(source: &SourceFile, span: &std::ops::Range<usize>) -> bool {
    source.text.get(span.clone()).is_some_and(|s| s.starts_with('['))
}

/// The first non-blank, non-comment line: where whole-file findings point.
fn first_line(source: &SourceFile) -> std::ops::Range<usize> {
    let mut offset = 0;
    for line in source.text.split_inclusive('\n') {
        let t = line.trim();
        if !t.is_empty() && !t.starts_with('#') {
            let start = offset + (line.len() - line.trim_start().len());
            return start..start + t.len();
        }
        offset += line.len();
    }
    0..0
}
