//! Fixes. A rule proposes values to write at JSON pointers, in either file of
//! the pair ([`Proposal`]); once both files are parsed, the linter turns that
//! into byte edits ([`Fix`]) that keep every other byte, comments and order
//! included. `cfg-lint check --fix` applies them to the files and the language
//! server offers them as code actions: one piece of code for both.
//!
//! As in ruff, a fix is *safe* when applying it cannot change what the user
//! meant (a mix renormalised to the same proportions, a batch budget raised to
//! what vLLM requires), and *unsafe* when it is a choice the user should make
//! (more context costs KV cache memory; a key must then be set in the
//! environment). `--fix` applies only safe fixes unless asked for both.

use std::ops::Range;

use serde::Serialize;

use crate::kind::FileKind;
use crate::tree::{Node, Value, join_pointer, pointer_tokens};

/// Whether a fix may be applied without a person looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    Safe,
    Unsafe,
}

/// One value to write at a pointer in one file of the pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub file: FileKind,
    pub pointer: String,
    pub value: serde_json::Value,
}

/// What a rule proposes: a title for the editor's menu, how sure it is, and
/// the values to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub title: String,
    pub applicability: Applicability,
    pub changes: Vec<Change>,
}

impl Proposal {
    pub fn new(title: impl Into<String>, applicability: Applicability) -> Self {
        Proposal { title: title.into(), applicability, changes: Vec::new() }
    }

    /// Adds a value to write at `pointer` in `file`.
    pub fn set(mut self, file: FileKind, pointer: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.changes.push(Change { file, pointer: pointer.into(), value: value.into() });
        self
    }
}

/// Bytes to replace in a named file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// The file as the caller named it.
    pub file: String,
    pub span: Range<usize>,
    pub replacement: String,
}

/// A proposal tied to bytes: what `--fix` writes and an editor applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

/// A parsed file a change can land in.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub tree: &'a Node,
    pub kind: FileKind,
}

/// Ties a proposal to bytes; `None` when a change has no file to land in or no
/// place that keeps the file valid (a value inside an inline table, say).
pub fn resolve<'a>(proposal: Proposal, file: impl Fn(FileKind) -> Option<Target<'a>>) -> Option<Fix> {
    let mut edits = Vec::with_capacity(proposal.changes.len());
    for change in &proposal.changes {
        let target = file(change.file)?;
        edits.push(edit_for(change, &target)?);
    }
    Some(Fix { title: proposal.title, applicability: proposal.applicability, edits })
}

fn edit_for(change: &Change, target: &Target<'_>) -> Option<Edit> {
    let edit = |span: Range<usize>, replacement: String| Edit { file: target.name.to_string(), span, replacement };
    let rendered = render(&change.value, target.kind)?;
    if let Some(found) = target.tree.locate(&change.pointer) {
        if matches!(found.node.value, Value::Object(_)) {
            return None;
        }
        return Some(edit(found.node.span.clone(), rendered));
    }
    let tokens: Vec<String> = pointer_tokens(&change.pointer).collect();
    let (key, parents) = tokens.split_last()?;
    let parent_pointer = join_pointer(parents);
    match (target.kind, target.tree.locate(&parent_pointer)) {
        (FileKind::Config, Some(parent)) => {
            if !matches!(parent.node.value, Value::Object(_)) {
                return None;
            }
            let header = target.text.get(parent.node.span.clone())?;
            if parents.is_empty() || !header.starts_with('[') || header.starts_with("[[") {
                return None;
            }
            // After the header line: the table's first key.
            let line_end =
                target.text[parent.node.span.end..].find('\n').map_or(target.text.len(), |i| parent.node.span.end + i);
            Some(edit(line_end..line_end, format!("\n{} = {rendered}", toml_key(key))))
        }
        (FileKind::Config, None) if parents.len() == 1 => {
            // A missing top-level table goes at the end of the file.
            let end = target.text.len();
            let gap = if target.text.is_empty() || target.text.ends_with('\n') { "" } else { "\n" };
            Some(edit(end..end, format!("{gap}\n[{}]\n{} = {rendered}\n", toml_key(&parents[0]), toml_key(key))))
        }
        (FileKind::Settings, Some(parent)) => {
            let Value::Object(entries) = &parent.node.value else { return None };
            let key = serde_json::to_string(key).ok()?;
            match entries.first() {
                Some(first) => {
                    // Before the first key, on a line of its own if that key has one.
                    let start = first.key_span.start;
                    let line_start = target.text[..start].rfind('\n').map_or(0, |i| i + 1);
                    let indent = &target.text[line_start..start];
                    let sep =
                        if indent.trim().is_empty() && line_start > 0 { format!(",\n{indent}") } else { ", ".into() };
                    Some(edit(start..start, format!("{key}: {rendered}{sep}")))
                }
                None => Some(edit(parent.node.span.clone(), format!("{{ {key}: {rendered} }}"))),
            }
        }
        _ => None,
    }
}

/// A value as the file's format writes it (scalars and arrays of scalars).
fn render(value: &serde_json::Value, kind: FileKind) -> Option<String> {
    match (value, kind) {
        (serde_json::Value::Object(_) | serde_json::Value::Null, FileKind::Config) => None,
        (serde_json::Value::Array(items), FileKind::Config) => {
            let items: Option<Vec<String>> = items.iter().map(|v| render(v, kind)).collect();
            Some(format!("[{}]", items?.join(", ")))
        }
        // A JSON string is a valid TOML basic string: the same escapes.
        _ => serde_json::to_string(value).ok(),
    }
}

fn toml_key(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        key.to_string()
    } else {
        serde_json::to_string(key).unwrap_or_default()
    }
}

/// Applies the edits for one file to its text: later edits first, so earlier
/// offsets stay valid; an edit that overlaps one already applied is skipped
/// (the next lint round offers it again). Returns the new text and how many
/// edits were applied.
pub fn apply(text: &str, edits: &[&Edit]) -> (String, usize) {
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    sorted.dedup_by(|a, b| a.span == b.span && a.replacement == b.replacement);
    let mut out = text.to_string();
    let mut applied = 0;
    let mut floor = usize::MAX;
    for edit in sorted.iter().rev() {
        let valid = edit.span.start <= edit.span.end
            && edit.span.end <= text.len()
            && text.is_char_boundary(edit.span.start)
            && text.is_char_boundary(edit.span.end);
        // Overlaps the edit after it (already applied), or touches it with two inserts.
        if !valid || edit.span.end > floor || (edit.span.end == floor && edit.span.is_empty()) {
            continue;
        }
        out.replace_range(edit.span.clone(), &edit.replacement);
        floor = edit.span.start;
        applied += 1;
    }
    (out, applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_json, parse_toml};

    fn fix_toml(text: &str, pointer: &str, value: serde_json::Value) -> Option<String> {
        let tree = parse_toml(text).ok()?;
        let target = Target { name: "config.toml", text, tree: &tree, kind: FileKind::Config };
        let fix =
            resolve(Proposal::new("t", Applicability::Safe).set(FileKind::Config, pointer, value), |_| Some(target))?;
        Some(apply(text, &fix.edits.iter().collect::<Vec<_>>()).0)
    }

    fn fix_json(text: &str, pointer: &str, value: serde_json::Value) -> Option<String> {
        let tree = parse_json(text).ok()?;
        let fix = resolve(Proposal::new("t", Applicability::Safe).set(FileKind::Settings, pointer, value), |_| {
            Some(Target { name: "settings.json", text, tree: &tree, kind: FileKind::Settings })
        })?;
        Some(apply(text, &fix.edits.iter().collect::<Vec<_>>()).0)
    }

    #[test]
    fn a_toml_value_is_replaced_and_its_comment_kept() {
        let text = "[model]\nmax_model_len = 8192  # the context\n";
        assert_eq!(
            fix_toml(text, "/model/max_model_len", 10240.into()).unwrap(),
            "[model]\nmax_model_len = 10240  # the context\n"
        );
    }

    #[test]
    fn a_missing_toml_key_goes_under_its_table_header() {
        let text = "[model]\nname = \"m\"\n\n[batching] # knobs\nmax_num_seqs = 8\n";
        assert_eq!(
            fix_toml(text, "/batching/max_num_batched_tokens", 8192.into()).unwrap(),
            "[model]\nname = \"m\"\n\n[batching] # knobs\nmax_num_batched_tokens = 8192\nmax_num_seqs = 8\n"
        );
    }

    #[test]
    fn a_missing_toml_table_is_appended() {
        let text = "[model]\nname = \"m\"";
        assert_eq!(
            fix_toml(text, "/batching/max_num_batched_tokens", 8192.into()).unwrap(),
            "[model]\nname = \"m\"\n\n[batching]\nmax_num_batched_tokens = 8192\n"
        );
    }

    #[test]
    fn toml_strings_are_escaped() {
        let text = "[server]\napi_key = \"sk-live\"\n";
        assert_eq!(
            fix_toml(text, "/server/api_key", "${A \"B\"}".into()).unwrap(),
            "[server]\napi_key = \"${A \\\"B\\\"}\"\n"
        );
        assert!(parse_toml(&fix_toml(text, "/server/api_key", "a\\b\n".into()).unwrap()).is_ok());
    }

    #[test]
    fn json_values_and_missing_keys_keep_the_layout() {
        let text = "{\n  \"model\": \"m\",\n  \"concurrency\": 32\n}\n";
        assert_eq!(
            fix_json(text, "/concurrency", 16.into()).unwrap(),
            "{\n  \"model\": \"m\",\n  \"concurrency\": 16\n}\n"
        );
        assert_eq!(
            fix_json(text, "/api_key_env", "KEY".into()).unwrap(),
            "{\n  \"api_key_env\": \"KEY\",\n  \"model\": \"m\",\n  \"concurrency\": 32\n}\n"
        );
        assert_eq!(fix_json("{}", "/a", 1.into()).unwrap(), "{ \"a\": 1 }");
        assert_eq!(fix_json("{\"b\": 2}", "/a", 1.into()).unwrap(), "{\"a\": 1, \"b\": 2}");
    }

    #[test]
    fn overlapping_edits_apply_once() {
        let e = |s: Range<usize>, r: &str| Edit { file: "f".into(), span: s, replacement: r.into() };
        let (a, b, c) = (e(0..3, "x"), e(2..5, "y"), e(6..6, "z"));
        let (text, applied) = apply("abcdefg", &[&a, &b, &c]);
        assert_eq!((text.as_str(), applied), ("abyfzg", 2));
        let (text, applied) = apply("abc", &[&e(1..1, "x"), &e(1..1, "y")]);
        assert_eq!((text.as_str(), applied), ("aybc", 1));
        let (text, applied) = apply("abc", &[&e(2..9, "x")]);
        assert_eq!((text.as_str(), applied), ("abc", 0));
    }

    #[test]
    fn tables_and_inline_tables_are_not_overwritten() {
        assert_eq!(fix_toml("[model]\nname = \"m\"\n", "/model", 1.into()), None);
        assert_eq!(fix_toml("model = { name = \"m\" }\n", "/model/max_model_len", 1.into()), None);
    }
}
