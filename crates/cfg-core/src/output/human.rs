//! rustc-style diagnostics for people: the source line, carets under the exact
//! span (measured in terminal columns, so wide characters line up), the label
//! and the help line. Long lines are cut to a window around the span.

use std::fmt::Write;
use std::ops::Range;

use anstyle::{AnsiColor, Style};
use unicode_width::UnicodeWidthChar;

use super::{Options, escape_controls};
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::{Input, Report};
use crate::source::SourceFile;

/// Terminal columns of source shown for one diagnostic; longer lines are cut
/// around the span, with `...` where text was left out.
const MAX_SHOWN_COLUMNS: usize = 140;
/// Columns of context kept before the span when a line is cut.
const CONTEXT_BEFORE: usize = 60;

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

/// Every diagnostic, then which files were checked together, the checks that
/// did not run, and the summary line.
pub fn report(shown: &[&Diagnostic], inputs: &[Input], report: &Report, options: &Options) -> String {
    let styles = Styles::new(options.color);
    let mut text = String::new();
    for d in shown {
        let source = inputs.iter().map(|i| &i.source).find(|s| s.name == d.file);
        // A secret one diagnostic points at stays masked wherever its line is shown.
        let secrets: Vec<Range<usize>> =
            shown.iter().filter(|o| o.redact && o.file == d.file).map(|o| o.span.clone()).collect();
        text.push_str(&render_masked(d, source, &secrets, &styles));
        text.push('\n');
    }
    for (config, settings) in &report.pairs {
        let _ = writeln!(text, "checked together: {} with {}", escape_controls(config), escape_controls(settings));
    }
    for note in &report.notes {
        let _ = writeln!(text, "{} {}", paint(styles.info, "note:"), escape_controls(note));
    }
    text.push_str(&summary(shown, inputs.len(), &styles));
    text
}

/// One diagnostic, with `source` the file it points into.
pub fn render(d: &Diagnostic, source: Option<&SourceFile>, styles: &Styles) -> String {
    let own = if d.redact { vec![d.span.clone()] } else { Vec::new() };
    render_masked(d, source, &own, styles)
}

/// One diagnostic, with the bytes in `secrets` masked in the source shown.
fn render_masked(d: &Diagnostic, source: Option<&SourceFile>, secrets: &[Range<usize>], styles: &Styles) -> String {
    let mut out = String::new();
    let sev = styles.severity(d.severity);
    let _ = writeln!(
        out,
        "{}{} {}",
        paint(sev, &format!("{}[{}]", d.severity, d.code)),
        paint(styles.bold, ":"),
        paint(styles.bold, &escape_controls(&d.message))
    );
    let line_no = d.line.to_string();
    let pad = " ".repeat(line_no.len());
    let _ = writeln!(out, "{pad}{} {}:{}:{}", paint(styles.gutter, "-->"), escape_controls(&d.file), d.line, d.column);
    if let Some(source) = source.filter(|s| !s.text.is_empty()) {
        let excerpt = Excerpt::around(source, d, secrets);
        let label = d.label.as_deref().map(|l| format!(" {}", escape_controls(l))).unwrap_or_default();
        let _ = writeln!(out, "{pad} {}", paint(styles.gutter, "|"));
        let _ = writeln!(out, "{} {} {}", paint(styles.gutter, &line_no), paint(styles.gutter, "|"), excerpt.text);
        let _ = writeln!(
            out,
            "{pad} {} {}{}",
            paint(styles.gutter, "|"),
            " ".repeat(excerpt.caret_column),
            paint(sev, &format!("{}{label}", "^".repeat(excerpt.caret_width)))
        );
        let _ = writeln!(out, "{pad} {}", paint(styles.gutter, "|"));
    }
    if let Some(help) = &d.help {
        let _ = writeln!(
            out,
            "{pad} {} {}: {}",
            paint(styles.gutter, "="),
            paint(styles.help, "help"),
            escape_controls(help)
        );
    }
    out
}

/// Bytes of a line read before and after a diagnostic's start: enough for the
/// shown window at any character width, and bounded however long the line is
/// (a one-line megabyte file costs each diagnostic a few kilobytes, not a pass).
const READ_BEFORE: usize = 16 * CONTEXT_BEFORE;
const READ_AFTER: usize = 16 * MAX_SHOWN_COLUMNS;

/// `range` of the text with every character inside `secrets` replaced by `*`,
/// one per character, so the carets still line up.
fn masked(source: &SourceFile, range: Range<usize>, secrets: &[Range<usize>]) -> String {
    source.text[range.clone()]
        .char_indices()
        .map(|(i, c)| if secrets.iter().any(|r| r.contains(&(range.start + i))) { '*' } else { c })
        .collect()
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The part of a source line shown under a diagnostic, and where its carets go.
struct Excerpt {
    text: String,
    /// Terminal columns before the first caret.
    caret_column: usize,
    caret_width: usize,
}

impl Excerpt {
    /// The excerpt of `d`'s line, read only around `d`.
    fn around(source: &SourceFile, d: &Diagnostic, secrets: &[Range<usize>]) -> Excerpt {
        let text = source.text.as_str();
        let line = source.line_span(d.line);
        let caret = floor_boundary(text, d.span.start.clamp(line.start, line.end));
        let from = floor_boundary(text, caret.saturating_sub(READ_BEFORE).max(line.start));
        let to = ceil_boundary(text, caret.saturating_add(READ_AFTER).min(line.end));
        let window = masked(source, from..to, secrets);
        let start = text[from..caret].chars().count();
        let end = if d.end_line == d.line {
            text[from..ceil_boundary(text, d.span.end.clamp(caret, to))].chars().count()
        } else {
            usize::MAX
        };
        Excerpt::new(&window, start, end, from > line.start, to < line.end)
    }

    /// `start..end`: the diagnostic's characters in `line`; `cut_left` and
    /// `cut_right` say the line goes on beyond what was read.
    fn new(line: &str, start: usize, end: usize, cut_left: bool, cut_right: bool) -> Excerpt {
        // Each character as shown (tabs as one space, control and bidi characters
        // escaped), all in one string: each cell is where its text starts there
        // and its width in terminal columns.
        let mut shown = String::with_capacity(line.len());
        let mut cells: Vec<(usize, usize)> = Vec::with_capacity(line.len());
        for c in line.chars() {
            let at = shown.len();
            match c {
                '\t' => shown.push(' '),
                c => shown.push_str(&escape_controls(c.encode_utf8(&mut [0; 4]))),
            }
            cells.push((at, shown[at..].chars().map(|c| c.width().unwrap_or(0)).sum()));
        }
        let text_of = |range: std::ops::Range<usize>| {
            let end = cells.get(range.end).map_or(shown.len(), |c| c.0);
            &shown[cells.get(range.start).map_or(end, |c| c.0)..end]
        };
        let width = |range: std::ops::Range<usize>| cells[range].iter().map(|c| c.1).sum::<usize>();
        let start = start.min(cells.len());
        let end = end.clamp(start, cells.len());
        let (mut from, mut to) = (0, cells.len());
        if width(0..cells.len()) > MAX_SHOWN_COLUMNS {
            from = start;
            while from > 0 && width(from..start) < CONTEXT_BEFORE {
                from -= 1;
            }
            to = from;
            while to < cells.len() && width(from..to + 1) <= MAX_SHOWN_COLUMNS {
                to += 1;
            }
        }
        let prefix = if from > 0 || cut_left { "..." } else { "" };
        let body = text_of(from..to);
        let suffix = if to < cells.len() || cut_right { "..." } else { "" };
        Excerpt {
            text: format!("{prefix}{body}{suffix}").trim_end().to_string(),
            caret_column: prefix.len() + width(from..start.max(from)),
            caret_width: width(start.clamp(from, to)..end.clamp(from, to)).max(1),
        }
    }
}

/// The closing line: the counts that are not zero, or a clean bill.
pub fn summary(diagnostics: &[&Diagnostic], files: usize, styles: &Styles) -> String {
    let count = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    let (e, w, i) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let files = plural(files, "file");
    if e + w + i == 0 {
        return format!("{} {files} checked, no problems\n", paint(styles.help, "ok:"));
    }
    let (style, word) = if e > 0 {
        (styles.error, "error:")
    } else if w > 0 {
        (styles.warning, "warning:")
    } else {
        (styles.info, "info:")
    };
    let counts: Vec<String> = [(e, "error"), (w, "warning"), (i, "info")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| plural(n, word))
        .collect();
    format!("{} {} in {files}\n", paint(style, word), counts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Finding, Target};
    use crate::kind::FileKind;

    fn shown(text: &str, span: std::ops::Range<usize>) -> String {
        let source = SourceFile::new("f.json", text);
        let finding = Finding::new("CFG000", "test", Severity::Error, "m", Target::value(FileKind::Settings, ""));
        let d = Diagnostic::at(finding, &source, span, String::new());
        render(&d, Some(&source), &Styles::new(false))
    }

    #[test]
    fn carets_count_terminal_columns_not_characters() {
        // Two wide characters before the span: 4 columns, not 2.
        let out = shown("\"中文\": 1", 10..11);
        assert!(out.contains(&format!("\n  |{}^\n", " ".repeat(9))), "{out}");
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let text = format!("{{{}\"target\": 1{}}}", "\"a\": 1, ".repeat(400), ", \"b\": 2".repeat(400));
        let at = text.find("\"target\"").unwrap();
        let out = shown(&text, at..at + 8);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[3].len() < MAX_SHOWN_COLUMNS + 16, "{}", lines[3]);
        assert!(lines[3].contains("...") && lines[3].contains("\"target\""), "{}", lines[3]);
        let caret = lines[4].find('^').unwrap();
        assert_eq!(&lines[3][caret..caret + 8], "\"target\"", "{out}");
        // A span over the whole long line draws at most one window of carets.
        let out = shown(&text, 0..text.len());
        assert!(out.lines().nth(4).unwrap().matches('^').count() <= MAX_SHOWN_COLUMNS, "{out}");
    }

    #[test]
    fn escape_sequences_in_a_file_reach_the_terminal_escaped() {
        let out = shown("{\"a\u{1b}]0;title\u{7}\": 1}", 1..12);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(out.contains("\\u{1b}]0;title\\u{7}"), "{out}");
    }
}
