//! The report as one JSON document: every diagnostic with its position and
//! JSON Pointer (the web app puts it next to the form field), and the counts.

use serde_json::json;

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::Report;

pub fn report(diagnostics: &[&Diagnostic], files: usize, report: &Report) -> String {
    let count = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    let pairs: Vec<_> = report.pairs.iter().map(|(c, s)| json!({"config": c, "settings": s})).collect();
    let value = json!({
        "version": 1,
        "tool": {"name": "cfg-lint", "version": env!("CARGO_PKG_VERSION"), "vllm": crate::VLLM_VERSION},
        "diagnostics": diagnostics,
        "pairs": pairs,
        "notes": report.notes,
        "summary": {"files": files, "errors": count(Severity::Error), "warnings": count(Severity::Warning), "infos": count(Severity::Info)},
    });
    format!("{value:#}\n")
}
