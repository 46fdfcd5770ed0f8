//! Every way a lint report is shown: rustc-style text for people, JSON,
//! SARIF 2.1.0 and GitHub Actions annotations for machines. Pure functions of
//! the report that return text, so the CLI, the runner and the browser show
//! the same thing.

pub mod chart;
pub mod github;
pub mod human;
pub mod json;
pub mod run_charts;
pub mod sarif;

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::{Input, Report};

/// The output formats of `cfg-lint check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

/// How a report is shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// ANSI colours (human output only).
    pub color: bool,
    /// Leave info diagnostics out (every format), except those that say a check
    /// did not run: skipped checks are never silent.
    pub hide_info: bool,
}

/// The whole report in `format`: what `cfg-lint check` prints.
pub fn report(format: Format, inputs: &[Input], report: &Report, options: &Options) -> String {
    let shown: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.skipped_check || !(options.hide_info && d.severity == Severity::Info))
        .collect();
    match format {
        Format::Human => human::report(&shown, inputs, report, options),
        Format::Json => json::report(&shown, inputs.len(), report),
        Format::Sarif => sarif::report(&shown, &report.notes),
        Format::Github => github::report(&shown, &report.notes),
    }
}

/// Text from a file or a server made safe for a terminal: control characters
/// and the invisible or direction-changing characters (bidi overrides and
/// isolates, zero-width spaces) are written as `\u{..}` escapes, so a hostile
/// file cannot clear the screen, set a window title or disguise what it says.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(escape_controls("plain é 中"), "plain é 中");
        assert_eq!(escape_controls("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape_controls("x\u{202e}y\u{2066}z\u{200b}"), "x\\u{202e}y\\u{2066}z\\u{200b}");
        assert_eq!(escape_controls("\u{7}\u{9b}"), "\\u{7}\\u{9b}");
    }
}
