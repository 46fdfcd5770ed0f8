//! GitHub Actions workflow commands: one `::error file=...::message` line per
//! diagnostic, escaped so a message cannot end its line or start another command.

use crate::diagnostic::{Diagnostic, Severity};

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn report(diagnostics: &[&Diagnostic], notes: &[String]) -> String {
    let mut out = String::new();
    for note in notes {
        out.push_str(&format!("::notice title=cfg-lint::{}\n", escape_data(&super::escape_controls(note))));
    }
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
            escape_data(&super::escape_controls(&message))
        ));
    }
    out
}
