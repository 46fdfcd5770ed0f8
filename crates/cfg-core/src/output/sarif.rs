//! SARIF 2.1.0 for code scanning: the rule table from the registry and one
//! result per diagnostic.

use serde_json::{Value, json};

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::RULES;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn report(diagnostics: &[&Diagnostic], notes: &[String]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.documentation()},
                "help": {"text": r.documentation(), "markdown": r.documentation()},
                "defaultConfiguration": {"level": level(r.severity)},
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
                "level": level(d.severity),
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
    let value = json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {"name": "cfg-lint", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://example.invalid/cfg-toolkit", "rules": rules}},
            "results": results,
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notes.iter().map(|n| json!({"level": "note", "message": {"text": n}})).collect::<Vec<_>>(),
            }],
        }],
    });
    format!("{value:#}\n")
}
