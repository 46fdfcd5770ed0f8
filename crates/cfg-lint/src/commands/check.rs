//! `cfg-lint check`: lint the files and print the report in the chosen format;
//! with `--fix` (or `--diff`), first apply the fixes the rules propose, round
//! after round until none is left, as ruff does.

use std::path::Path;

use cfg_core::fix::{self, Applicability, Edit, Fix};
use cfg_core::output::{self, Format};
use cfg_core::{FileKind, Input, Report, Severity};

use crate::args::{CmdResult, Io};
use crate::files::{ModelLookup, Selection, find_models, lint_with_models, read_selection};

/// What `--fix`, `--unsafe-fixes` and `--diff` ask for.
#[derive(Debug, Clone, Copy, Default)]
pub struct FixMode {
    /// Write the fixes into the files.
    pub fix: bool,
    /// Apply unsafe fixes too.
    pub unsafe_fixes: bool,
    /// Show the fixes as a diff and write nothing.
    pub diff: bool,
}

/// Rounds of fixing before giving up: a fix can reveal another (a raised
/// max_model_len meets the batch budget), but never ten deep.
const MAX_ROUNDS: usize = 10;

pub fn run(
    selection: &Selection,
    format: Format,
    deny_warnings: bool,
    quiet: bool,
    fix_mode: FixMode,
    models: &ModelLookup,
    io: &mut Io<'_>,
) -> CmdResult {
    let (mut inputs, pairs) = read_selection(selection)?;
    // Read once: a model's files are on disk (or the Hub), and fixes never rename the model.
    let found = find_models(&inputs, models)?;
    let mut report = lint_with_models(&inputs, &pairs, found.clone());
    if fix_mode.fix || fix_mode.diff {
        let before: Vec<Input> = inputs.clone();
        let first_report = report.clone();
        let mut fixed = 0;
        for _ in 0..MAX_ROUNDS {
            let applied = apply_round(&mut inputs, &report, fix_mode.unsafe_fixes);
            if applied == 0 {
                break;
            }
            fixed += applied;
            report = lint_with_models(&inputs, &pairs, found.clone());
        }
        let changed: Vec<usize> =
            (0..inputs.len()).filter(|&i| inputs[i].source.text != before[i].source.text).collect();
        let names: Vec<&str> = changed.iter().map(|&i| inputs[i].source.name.as_str()).collect();
        if fix_mode.diff {
            for &i in &changed {
                let old = masked(&before[i], &first_report);
                let new = masked(&inputs[i], &report);
                let name = &inputs[i].source.name;
                let diff = similar::TextDiff::from_lines(&old, &new);
                let mut unified = diff.unified_diff();
                unified.context_radius(3).header(&format!("a/{name}"), &format!("b/{name}"));
                io.out.write_all(unified.to_string().as_bytes()).map_err(|e| e.to_string())?;
            }
            let _ = writeln!(io.err, "{}", summary("would fix", fixed, &names));
            // Nothing to show is not "ok": what the fixes leave is said and fails.
            let errors = report.count(Severity::Error);
            let left_failing = fails(&report, deny_warnings);
            if left_failing {
                let unsafe_left = fixable(&report, Applicability::Unsafe);
                let hint = if unsafe_left > 0 && !fix_mode.unsafe_fixes {
                    format!(" ({unsafe_left} with an unsafe fix: add `--unsafe-fixes` to see it)")
                } else {
                    String::new()
                };
                let what = if errors == 1 { "1 error".to_string() } else { format!("{errors} errors") };
                let what = if errors == 0 { "warnings".to_string() } else { what };
                let _ = writeln!(io.err, "{what} would remain{hint}; run `cfg-lint check` to see them");
            }
            return Ok(u8::from(!changed.is_empty() || left_failing));
        }
        // Every file is written beside its original before any replaces one,
        // so a refusal leaves all as they were.
        let files: Vec<(&Path, &str)> = changed
            .iter()
            .map(|&i| (Path::new(inputs[i].source.name.as_str()), inputs[i].source.text.as_str()))
            .collect();
        write_all(&files)?;
        if fixed > 0 {
            let _ = writeln!(io.err, "{}", summary("fixed", fixed, &names));
        }
    }
    let options = output::Options { color: io.color, hide_info: quiet };
    let text = output::report(format, &inputs, &report, &options);
    io.out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    if format == Format::Human && !fix_mode.diff {
        let (safe, unsafe_) = (fixable(&report, Applicability::Safe), fixable(&report, Applicability::Unsafe));
        let hint = match (safe, unsafe_) {
            (0, 0) => None,
            (s, 0) => Some(format!("{s} fixable with `--fix` (`--diff` shows how)")),
            (0, u) => Some(format!("{u} fixable with `--fix --unsafe-fixes` (`--diff --unsafe-fixes` shows how)")),
            (s, u) => Some(format!("{s} fixable with `--fix`, {u} more with `--unsafe-fixes`")),
        };
        if let Some(hint) = hint.filter(|_| !(fix_mode.fix && fix_mode.unsafe_fixes)) {
            let _ = writeln!(io.err, "{hint}");
        }
    }
    Ok(u8::from(fails(&report, deny_warnings)))
}

/// Whether the report fails the run: an error, or a warning under --deny-warnings.
fn fails(report: &Report, deny_warnings: bool) -> bool {
    report.has_errors() || (deny_warnings && report.count(Severity::Warning) > 0)
}

/// How many diagnostics carry a fix of this applicability.
fn fixable(report: &Report, applicability: Applicability) -> usize {
    report.diagnostics.iter().filter(|d| d.fix.as_ref().is_some_and(|f| f.applicability == applicability)).count()
}

/// Applies, to the inputs' texts, every fix of `report` that does not overlap
/// one taken before it (the next round offers it again); returns how many.
fn apply_round(inputs: &mut [Input], report: &Report, unsafe_fixes: bool) -> usize {
    let mut taken: Vec<&Fix> = Vec::new();
    let overlaps = |a: &Edit, b: &Edit| a.file == b.file && a.span.start <= b.span.end && b.span.start <= a.span.end;
    for d in &report.diagnostics {
        let Some(fix) = &d.fix else { continue };
        if fix.applicability == Applicability::Unsafe && !unsafe_fixes {
            continue;
        }
        let known = fix.edits.iter().all(|e| inputs.iter().any(|i| i.source.name == e.file));
        let clashes = taken.iter().flat_map(|t| &t.edits).any(|t| fix.edits.iter().any(|e| overlaps(e, t)));
        if known && !clashes && !taken.contains(&fix) {
            taken.push(fix);
        }
    }
    for input in inputs.iter_mut() {
        let edits: Vec<&Edit> = taken.iter().flat_map(|f| &f.edits).filter(|e| e.file == input.source.name).collect();
        if edits.is_empty() {
            continue;
        }
        let (text, _) = fix::apply(&input.source.text, &edits);
        *input = Input::new(input.kind, input.source.name.clone(), text);
    }
    taken.len()
}

/// The text with every span a diagnostic marks as a secret starred out, and
/// every string that looks like one (a report cut short at its limit may not
/// reach the secret's finding), so a diff never prints a key (not even on an
/// unchanged context line).
fn masked(input: &Input, report: &Report) -> String {
    let mut text = input.source.text.clone();
    let mut spans: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.redact && d.file == input.source.name && d.span.end <= text.len())
        .map(|d| d.span.clone())
        .collect();
    let tree = match input.kind {
        FileKind::Config => cfg_core::parse::parse_toml(&text).ok(),
        _ => cfg_core::parse::parse_json(&text).ok(),
    };
    for (pointer, value, span) in tree.as_ref().map(|t| t.strings()).unwrap_or_default() {
        let key = pointer.rsplit('/').next().unwrap_or_default();
        if cfg_core::secrets::looks_like_secret(value, key).is_some() && span.end <= text.len() {
            spans.push(span);
        }
    }
    spans.sort_by_key(|s| (s.start, s.end));
    spans.dedup_by(|b, a| b.start < a.end);
    spans.sort_by_key(|s| std::cmp::Reverse(s.start));
    for span in spans {
        if text.is_char_boundary(span.start) && text.is_char_boundary(span.end) {
            text.replace_range(span, "\"********\"");
        }
    }
    text
}

fn summary(verb: &str, fixed: usize, files: &[&str]) -> String {
    let problems = if fixed == 1 { "problem" } else { "problems" };
    if files.is_empty() {
        format!("{verb} 0 problems: nothing to change")
    } else {
        format!("{verb} {fixed} {problems} in {}", files.join(", "))
    }
}

/// Refuses a file that cannot be written before anything is written.
fn writable(path: &Path) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot write {}: {e}; nothing was changed", path.display()))?;
    if meta.permissions().readonly() {
        return Err(format!("cannot write {}: the file is read-only; nothing was changed", path.display()));
    }
    Ok(())
}

/// Writes fixed files whole or not at all: each to a temporary file beside it
/// first, and only when all are written, each renamed over its original (a
/// symbolic link is written through at the end, so the link stays a link).
fn write_all(files: &[(&Path, &str)]) -> Result<(), String> {
    for (path, _) in files {
        writable(path)?;
    }
    let mut staged: Vec<(std::path::PathBuf, &Path)> = Vec::new();
    let mut links: Vec<(&Path, &str)> = Vec::new();
    let cleanup = |staged: &[(std::path::PathBuf, &Path)]| {
        for (temporary, _) in staged {
            let _ = std::fs::remove_file(temporary);
        }
    };
    for &(path, text) in files {
        let refused = |e: std::io::Error| format!("cannot write {}: {e}; nothing was changed", path.display());
        let is_link = std::fs::symlink_metadata(path).map_err(refused)?.file_type().is_symlink();
        if is_link {
            links.push((path, text));
            continue;
        }
        let permissions = std::fs::metadata(path).map_err(refused)?.permissions();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temporary = path.with_file_name(format!(".{name}.cfg-lint-fix"));
        let written = std::fs::write(&temporary, text).and_then(|()| std::fs::set_permissions(&temporary, permissions));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temporary);
            cleanup(&staged);
            return Err(refused(e));
        }
        staged.push((temporary, path));
    }
    for (i, (temporary, path)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(temporary, path) {
            cleanup(&staged[i..]);
            return Err(format!(
                "cannot write {}: {e}; the files before it were fixed, it and those after were not",
                path.display()
            ));
        }
    }
    for (path, text) in links {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
