//! The whole pipeline for any set of files: parse with spans, validate
//! against the schema, read the typed file, pair each config with its
//! settings (`pairing`), run the rules, and tie every finding to a line and
//! column (`place`).

mod pairing;
mod place;
mod typing;

pub use pairing::{folder, pair as pair_files, stem};

use place::place;

use crate::diagnostic::{self, Diagnostic, Finding, Severity, Target};
use crate::fix;
use crate::kind::FileKind;
use crate::memory::MemoryReport;
use crate::model::{BenchResult, LoadTestSettings, ServerConfig};
use crate::parse::{SyntaxError, check_value_count, parse_json, parse_toml};
use crate::resolve::Arch;
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
    /// Models whose files the caller found (a config.json path, a model folder,
    /// the Hugging Face cache, the Hub), read by `crate::hf`, by the name a
    /// config's `[model] name` gives; they take the catalog's place, and
    /// `[model.architecture]` still overrides them.
    pub models: Vec<(String, Arch)>,
    /// Run this rule alone (with the parser's and the schema's findings, which
    /// every rule needs first): how a rule's own tests stay independent of the others.
    pub only: Option<&'static Rule>,
    /// Pairs the caller names, as (config, settings) indices into the inputs;
    /// the other files pair by folder and name.
    pub pairs: Vec<(usize, usize)>,
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
    /// Which config was checked with which settings, by file name.
    pub pairs: Vec<(String, String)>,
    /// Checks that did not run, and why: shown with every output, never hidden.
    pub notes: Vec<String>,
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

/// Most schema and syntax-tree findings reported for one file.
pub const MAX_FINDINGS_PER_FILE: usize = 200;

/// Lints any mix of files: each alone, and each config with the settings of
/// the same load test (see [`Options::pairs`] and `pairing`) for the
/// cross-file rules.
pub fn lint(inputs: &[Input], options: &Options) -> Report {
    let mut report = Report::default();
    let parsed: Vec<Parsed<'_>> = inputs.iter().map(|input| parse_and_validate(input, options, &mut report)).collect();
    for p in parsed.iter().filter(|p| p.input.kind == FileKind::Result && p.schema_ok) {
        report.result = p.json.as_ref().and_then(|j| typing::typed(j, FileKind::Result).ok());
    }
    let files: Vec<(FileKind, &str)> = inputs.iter().map(|i| (i.kind, i.source.name.as_str())).collect();
    let pairs = pairing::pair(&files, &options.pairs);
    let mut runs: Vec<(Option<usize>, Option<usize>)> = pairs.iter().map(|&(c, s)| (Some(c), Some(s))).collect();
    for (i, input) in inputs.iter().enumerate() {
        if pairs.iter().any(|&(c, s)| c == i || s == i) || input.kind == FileKind::Result {
            continue;
        }
        let (other, kind) = match input.kind {
            FileKind::Config => ("settings.json", FileKind::Config),
            _ => ("config.toml", FileKind::Settings),
        };
        report.notes.push(format!(
            "{} was checked without a {other}: the cross-file rules (CFG5xx) did not run; give both files \
             (or --pair, or --with-partners to take the one beside it)",
            input.source.name
        ));
        runs.push(if kind == FileKind::Config { (Some(i), None) } else { (None, Some(i)) });
    }
    for (c, s) in runs {
        let config = c.and_then(|i| typed_file::<ServerConfig>(&parsed[i], &mut report));
        let settings = s.and_then(|i| typed_file::<LoadTestSettings>(&parsed[i], &mut report));
        if let (Some(ci), Some(si)) = (c, s) {
            report.pairs.push((inputs[ci].source.name.clone(), inputs[si].source.name.clone()));
            let broken: Vec<&str> = [(ci, config.is_none()), (si, settings.is_none())]
                .into_iter()
                .filter(|(_, broken)| *broken)
                .map(|(i, _)| inputs[i].source.name.as_str())
                .collect();
            if !broken.is_empty() {
                report.notes.push(format!(
                    "the cross-file rules (CFG5xx) did not run on {} with {}: fix the errors in {} first",
                    inputs[ci].source.name,
                    inputs[si].source.name,
                    broken.join(" and ")
                ));
            }
        }
        // Contexts exist only for files that are valid and typed, so a rule never
        // sees a half-read file.
        let config_ctx = c.zip(config.as_ref()).and_then(|(i, cfg)| {
            let found = options.models.iter().find(|(name, _)| *name == cfg.model.name).map(|(_, a)| a);
            Some(ConfigContext::new(cfg, parsed[i].tree.as_ref()?, found))
        });
        let settings_ctx = s
            .zip(settings.as_ref())
            .and_then(|(i, st)| Some(SettingsContext { settings: st, tree: parsed[i].tree.as_ref()? }));
        for f in rules::run(config_ctx.as_ref(), settings_ctx.as_ref(), options.only) {
            let Some(i) = (if f.target.file == FileKind::Settings { s } else { c }) else { continue };
            if let Some(tree) = &parsed[i].tree {
                let d = place_with_fix(f, &parsed[i].input.source, tree, |kind| {
                    fix_target(&parsed, if kind == FileKind::Settings { s } else { c })
                });
                report.diagnostics.push(d);
            }
        }
        // The report keeps the first config and the first settings that typed.
        if report.config.is_none() && config.is_some() {
            report.memory = config_ctx.as_ref().and_then(|ctx| ctx.memory.clone().ok());
            report.config = config;
        }
        if report.settings.is_none() {
            report.settings = settings;
        }
        if report.config_unchecked.is_none() {
            report.config_unchecked = c
                .filter(|&i| !parsed[i].schema_ok)
                .and_then(|i| <ServerConfig as serde::Deserialize>::deserialize(parsed[i].json.as_ref()?).ok());
        }
    }
    diagnostic::sort(&mut report.diagnostics);
    report
}

/// Parses a file and checks it against its schema and the tree rules; syntax
/// and schema findings go straight into the report.
fn parse_and_validate<'a>(input: &'a Input, options: &Options, report: &mut Report) -> Parsed<'a> {
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
        let validation = schema::validate(input.kind, json, &rules::enum_claim, MAX_FINDINGS_PER_FILE);
        let mut findings = validation.findings;
        schema_ok = findings.is_empty();
        if input.kind != FileKind::Result {
            findings.extend(rules::run_on_tree(tree, input.kind, options.only));
        }
        // A file with thousands of problems (a generated or hostile one) shows the
        // first ones and a count: what is shown stays readable and linear in size.
        if validation.more || findings.len() > MAX_FINDINGS_PER_FILE {
            report.notes.push(format!(
                "{} has more than {MAX_FINDINGS_PER_FILE} problems; the first {MAX_FINDINGS_PER_FILE} are shown: fix those and check again",
                input.source.name,
            ));
            findings.truncate(MAX_FINDINGS_PER_FILE);
        }
        for f in findings {
            let d = place_with_fix(f, &input.source, tree, |kind| {
                let (name, text) = (input.source.name.as_str(), input.source.text.as_str());
                (kind == input.kind).then_some(fix::Target { name, text, tree, kind })
            });
            report.diagnostics.push(d);
        }
    }
    Parsed { input, tree, json, schema_ok }
}

/// Places a finding and ties its proposed fix, if any, to bytes in the files
/// `files` gives for each kind.
fn place_with_fix<'a>(
    mut f: Finding,
    source: &SourceFile,
    tree: &Node,
    files: impl Fn(FileKind) -> Option<fix::Target<'a>>,
) -> Diagnostic {
    let proposal = f.fix.take();
    let mut d = place(f, source, tree);
    d.fix = proposal.and_then(|p| fix::resolve(p, files));
    d
}

fn fix_target<'a>(parsed: &'a [Parsed<'a>], index: Option<usize>) -> Option<fix::Target<'a>> {
    let p = parsed.get(index?)?;
    let text = p.input.source.text.as_str();
    Some(fix::Target { name: &p.input.source.name, text, tree: p.tree.as_ref()?, kind: p.input.kind })
}

/// The typed file, when it passed its schema; a value the types cannot take is
/// an error at its position (once, however many pairs the file is in).
fn typed_file<T: serde::de::DeserializeOwned>(p: &Parsed<'_>, report: &mut Report) -> Option<T> {
    if !p.schema_ok {
        return None;
    }
    match typing::typed(p.json.as_ref()?, p.input.kind) {
        Ok(t) => Some(t),
        Err(f) => {
            let d = place(*f, &p.input.source, p.tree.as_ref()?);
            if !report.diagnostics.contains(&d) {
                report.diagnostics.push(d);
            }
            None
        }
    }
}

fn parse(input: &Input) -> Result<Node, SyntaxError> {
    match input.kind {
        FileKind::Config => parse_toml(&input.source.text),
        FileKind::Settings => {
            check_value_count(&input.source.text, None)?;
            parse_json(&input.source.text)
        }
        FileKind::Result => parse_json(&input.source.text),
    }
}
