//! rustc-style rendering of diagnostics: the source line, carets under the
//! exact span, the label, and the help line.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use cfg_core::{Diagnostic, Severity, SourceFile};

pub struct Styles {
    pub error: Style,
    pub warning: Style,
    pub info: Style,
    pub gutter: Style,
    pub bold: Style,
    pub help: Style,
}

impl Styles {
    pub fn new(color: bool) -> Self {
        let s = |st: Style| if color { st } else { Style::new() };
        Styles {
            error: s(AnsiColor::Red.on_default().bold()),
            warning: s(AnsiColor::Yellow.on_default().bold()),
            info: s(AnsiColor::Cyan.on_default().bold()),
            gutter: s(AnsiColor::Blue.on_default().bold()),
            bold: s(Style::new().bold()),
            help: s(AnsiColor::Green.on_default().bold()),
        }
    }

    pub fn severity(&self, severity: Severity) -> Style {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Info => self.info,
        }
    }
}

pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// One diagnostic, with `source` the file it points into.
pub fn render(d: &Diagnostic, source: Option<&SourceFile>, styles: &Styles) -> String {
    let mut out = String::new();
    let sev = styles.severity(d.severity);
    let _ = writeln!(
        out,
        "{}{} {}",
        paint(sev, &format!("{}[{}]", d.severity, d.code)),
        paint(styles.bold, ":"),
        paint(styles.bold, &d.message)
    );
    let line_no = d.line.to_string();
    let pad = " ".repeat(line_no.len());
    let _ = writeln!(out, "{pad}{} {}:{}:{}", paint(styles.gutter, "-->"), d.file, d.line, d.column);
    if let Some(source) = source.filter(|s| !s.text.is_empty()) {
        let text = source.line_text(d.line);
        // One character in, one out, so carets stay aligned; control characters
        // would corrupt the terminal.
        let shown: String = text
            .chars()
            .map(|c| {
                if c == '\t' {
                    ' '
                } else if c.is_control() {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        let _ = writeln!(out, "{pad} {}", paint(styles.gutter, "|"));
        let _ = writeln!(out, "{} {} {}", paint(styles.gutter, &line_no), paint(styles.gutter, "|"), shown.trim_end());
        let width = if d.end_line == d.line {
            d.end_column.saturating_sub(d.column)
        } else {
            text.chars().count() + 1 - d.column
        };
        let carets = "^".repeat(width.max(1));
        let label = d.label.as_deref().map(|l| format!(" {l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{pad} {} {}{}",
            paint(styles.gutter, "|"),
            " ".repeat(d.column - 1),
            paint(sev, &format!("{carets}{label}"))
        );
        let _ = writeln!(out, "{pad} {}", paint(styles.gutter, "|"));
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "{pad} {} {}: {help}", paint(styles.gutter, "="), paint(styles.help, "help"));
    }
    out
}

/// The closing line: counts by severity, or a clean bill.
pub fn summary(diagnostics: &[Diagnostic], files: usize, styles: &Styles) -> String {
    let count = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    let (e, w, i) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let files = plural(files, "file");
    if e + w + i == 0 {
        return format!("{} {files} checked, no problems\n", paint(styles.help, "ok:"));
    }
    let style = if e > 0 {
        styles.error
    } else if w > 0 {
        styles.warning
    } else {
        styles.info
    };
    let word = if e > 0 {
        "error:"
    } else if w > 0 {
        "warning:"
    } else {
        "info:"
    };
    format!(
        "{} {}, {}, {} in {files}\n",
        paint(style, word),
        plural(e, "error"),
        plural(w, "warning"),
        plural(i, "info")
    )
}
