//! Where a finding points: the span of the value or key at its JSON pointer,
//! or, for a key that is absent, the section it belongs in.

use crate::diagnostic::{Diagnostic, Finding, Place};
use crate::source::SourceFile;
use crate::tree::Node;

/// Ties a finding to a span: the value (or key) at its pointer, or, for a key
/// that is absent, the section it belongs in.
pub(super) fn place(f: Finding, source: &SourceFile, tree: &Node) -> Diagnostic {
    let (pointer, want_key) = match &f.target.place {
        Place::Value(p) => (p.clone(), false),
        Place::Key(p) => (p.clone(), true),
        Place::Span { span, pointer } => {
            let (span, pointer) = (span.clone(), pointer.clone());
            return Diagnostic::at(f, source, span, pointer);
        }
    };
    let (found, exact) = tree.locate_nearest(&pointer);
    let span = if found.node.span == tree.span && found.key_span.is_none() {
        first_line(source)
    } else if want_key && exact {
        found.key_span.unwrap_or(found.node.span.clone())
    } else if !exact {
        // The key is missing: underline the section header it belongs in.
        found
            .key_span
            .clone()
            .filter(|_| !is_table_header(source, &found.node.span))
            .unwrap_or_else(|| found.node.span.clone())
    } else {
        found.node.span.clone()
    };
    Diagnostic::at(f, source, span, pointer)
}

fn is_table_header(source: &SourceFile, span: &std::ops::Range<usize>) -> bool {
    source.text.get(span.clone()).is_some_and(|s| s.starts_with('['))
}

/// The first non-blank, non-comment line: where whole-file findings point.
fn first_line(source: &SourceFile) -> std::ops::Range<usize> {
    let mut offset = 0;
    for line in source.text.split_inclusive('\n') {
        let t = line.trim();
        if !t.is_empty() && !t.starts_with('#') {
            let start = offset + (line.len() - line.trim_start().len());
            return start..start + t.len();
        }
        offset += line.len();
    }
    0..0
}
