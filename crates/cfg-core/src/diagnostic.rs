//! The one shape every problem takes, whether it comes from the TOML/JSON
//! parser, the JSON Schema or a cross-field rule. Renderer-agnostic: the CLI
//! prints it rustc-style or as JSON/SARIF, the web app puts it next to the
//! form field named by `pointer`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::ops::Range;

use crate::fix::{Fix, Proposal};
use crate::kind::FileKind;
use crate::source::SourceFile;

/// How serious a finding is: `error`, `warning` or `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Stable rule code, e.g. `CFG101`.
    pub code: &'static str,
    /// The rule's kebab-case name, e.g. `batched-tokens-below-max-model-len`.
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    /// How to fix it, in one sentence.
    pub help: Option<String>,
    /// The file as the caller named it.
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// JSON Pointer of the key (RFC 6901), e.g. `/batching/max_num_batched_tokens`.
    pub pointer: String,
    /// Byte range of the span in the file; the renderers use it to underline.
    #[serde(skip)]
    pub span: Range<usize>,
    /// A short label printed under the caret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The span holds a secret: renderers show the source line with it masked.
    #[serde(skip)]
    pub redact: bool,
    /// It says a check did not run: shown even when infos are hidden.
    #[serde(skip)]
    pub skipped_check: bool,
    /// The edits that fix it, when there is one concrete fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// A diagnostic before it is tied to a file position: what a rule produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub code: &'static str,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub label: Option<String>,
    pub target: Target,
    /// The span holds a secret (see [`Diagnostic::redact`]).
    pub redact: bool,
    /// It says a check did not run (see [`Diagnostic::skipped_check`]).
    pub skipped_check: bool,
    /// The values that fix it, resolved to edits once the files are parsed.
    pub fix: Option<Proposal>,
}

/// Where a finding points: a file of the pair and a place in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub file: FileKind,
    pub place: Place,
}

/// A place in a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// The value at this JSON pointer (or, if the key is absent, the nearest
    /// existing parent, since that is where to add it).
    Value(String),
    /// The key itself (not its value), e.g. for an unknown key.
    Key(String),
    /// An explicit byte span, with the pointer of what it is about.
    Span { span: Range<usize>, pointer: String },
}

impl Target {
    pub fn value(file: FileKind, pointer: impl Into<String>) -> Self {
        Target { file, place: Place::Value(pointer.into()) }
    }

    pub fn key(file: FileKind, pointer: impl Into<String>) -> Self {
        Target { file, place: Place::Key(pointer.into()) }
    }

    pub fn span(file: FileKind, span: Range<usize>, pointer: impl Into<String>) -> Self {
        Target { file, place: Place::Span { span, pointer: pointer.into() } }
    }

    /// The value at `pointer` in config.toml.
    pub fn config(pointer: impl Into<String>) -> Self {
        Self::value(FileKind::Config, pointer)
    }

    /// The value at `pointer` in settings.json.
    pub fn settings(pointer: impl Into<String>) -> Self {
        Self::value(FileKind::Settings, pointer)
    }

    /// The key at `pointer` in settings.json.
    pub fn settings_key(pointer: impl Into<String>) -> Self {
        Self::key(FileKind::Settings, pointer)
    }
}

impl Finding {
    pub fn new(
        code: &'static str,
        rule: &'static str,
        severity: Severity,
        message: impl Into<String>,
        target: Target,
    ) -> Self {
        Finding {
            code,
            rule,
            severity,
            message: message.into(),
            help: None,
            label: None,
            target,
            redact: false,
            skipped_check: false,
            fix: None,
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Marks the finding as saying that a check did not run: never hidden.
    pub fn skipped_check(mut self) -> Self {
        self.skipped_check = true;
        self
    }

    /// Offers a fix (see [`crate::fix`]).
    pub fn fix(mut self, proposal: Proposal) -> Self {
        self.fix = Some(proposal);
        self
    }

    /// Marks the span as holding a secret: it is never shown, only pointed at.
    pub fn redacted(mut self) -> Self {
        self.redact = true;
        self
    }
}

impl Diagnostic {
    /// Ties a finding to a position in `source`.
    pub fn at(finding: Finding, source: &SourceFile, span: Range<usize>, pointer: String) -> Self {
        let start = source.line_col(span.start);
        let end = source.line_col(span.end);
        Diagnostic {
            code: finding.code,
            rule: finding.rule,
            severity: finding.severity,
            message: finding.message,
            help: finding.help,
            file: source.name.clone(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            pointer,
            span,
            label: finding.label,
            redact: finding.redact,
            skipped_check: finding.skipped_check,
            fix: None,
        }
    }
}

/// Orders diagnostics the way a reader scans a file: by file, then position, then code.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.file.as_str(), a.span.start, a.code, a.span.end).cmp(&(b.file.as_str(), b.span.start, b.code, b.span.end))
    });
}
