//! Machine-readable outputs: JSON, SARIF 2.1.0 and GitHub Actions annotations.

use cfg_core::rules::RULES;
use cfg_core::{Diagnostic, Severity};
use serde_json::{Value, json};

pub fn json_report(diagnostics: &[Diagnostic], files: usize) -> Value {
    let count = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    json!({
        "version": 1,
        "tool": {"name": "cfg-lint", "version": env!("CARGO_PKG_VERSION"), "vllm": cfg_core::VLLM_VERSION},
        "diagnostics": diagnostics,
        "summary": {"files": files, "errors": count(Severity::Error), "warnings": count(Severity::Warning), "infos": count(Severity::Info)},
    })
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn sarif_report(diagnostics: &[Diagnostic]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.documentation()},
                "help": {"text": r.documentation(), "markdown": r.documentation()},
                "defaultConfiguration": {"level": sarif_level(r.severity)},
            })
        })
        .collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let rule_index = RULES.iter().position(|r| r.code == d.code).unwrap_or(0);
            let text = match &d.help {
                Some(h) => format!("{} (help: {h})", d.message),
                None => d.message.clone(),
            };
            json!({
                "ruleId": d.code,
                "ruleIndex": rule_index,
                "level": sarif_level(d.severity),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": d.file.replace('\\', "/")},
                        "region": {"startLine": d.line, "startColumn": d.column, "endLine": d.end_line, "endColumn": d.end_column.max(d.column)},
                    },
                    "logicalLocations": [{"fullyQualifiedName": d.pointer, "kind": "member"}],
                }],
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {"name": "cfg-lint", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://example.invalid/cfg-toolkit", "rules": rules}},
            "results": results,
        }],
    })
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error file=...::message` line per diagnostic.
pub fn github_annotations(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        out.push_str(&format!(
            "::{kind} file={},line={},endLine={},col={},endColumn={},title={}::{}\n",
            escape_property(&d.file),
            d.line,
            d.end_line,
            d.column,
            d.end_column,
            escape_property(&format!("{} {}", d.code, d.rule)),
            escape_data(&message)
        ));
    }
    out
}
