//! What the cursor is on: the key under it (for hover), and where completion
//! is asked (which section, and a key or a value). Completion reads the text
//! itself, not the parsed tree: while someone types, the file rarely parses.

use cfg_core::FileKind;
use cfg_core::tree::{Node, Value, escape_token, join_pointer};

/// The JSON pointer of the key or value that covers `offset`, the deepest one.
pub fn pointer_at(tree: &Node, offset: usize) -> Option<String> {
    fn walk(node: &Node, offset: usize, path: &mut Vec<String>, found: &mut Option<String>) {
        let Value::Object(entries) = &node.value else { return };
        for e in entries {
            path.push(e.key.clone());
            let on_key = e.key_span.start <= offset && offset <= e.key_span.end;
            let on_value = e.value.span.start <= offset && offset <= e.value.span.end;
            if on_key || (on_value && !matches!(e.value.value, Value::Object(_))) {
                *found = Some(join_pointer(path));
            }
            // A TOML table's entries lie outside its header's span: always look inside.
            walk(&e.value, offset, path, found);
            path.pop();
        }
    }
    let mut found = None;
    walk(tree, offset, &mut Vec::new(), &mut found);
    found
}

/// Where completion was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spot {
    /// A key of the section at this pointer; `quoted` when the user has
    /// already typed the opening quote (JSON).
    Key { section: String, quoted: bool },
    /// The value of the key at this pointer; `quoted` as above.
    Value { pointer: String, quoted: bool },
    /// A TOML table header (`[` typed).
    Header,
}

pub fn spot(text: &str, offset: usize, kind: FileKind) -> Option<Spot> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    match kind {
        FileKind::Config => toml_spot(&text[..offset]),
        _ => json_spot(&text[..offset]),
    }
}

fn toml_spot(before: &str) -> Option<Spot> {
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        return (!trimmed.contains(']')).then_some(Spot::Header);
    }
    if trimmed.starts_with('#') {
        return None;
    }
    let section = before[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .and_then(|l| l.strip_prefix('[')?.split(']').next())
        .map(|name| join_pointer(&name.split('.').map(|t| t.trim().trim_matches('"').to_string()).collect::<Vec<_>>()))
        .unwrap_or_default();
    match trimmed.split_once('=') {
        Some((key, value)) => {
            let key = key.trim().trim_matches('"');
            if key.is_empty() || value.contains('#') {
                return None;
            }
            let quoted = value.matches('"').count() % 2 == 1;
            Some(Spot::Value { pointer: format!("{section}/{}", escape_token(key)), quoted })
        }
        None => Some(Spot::Key { section, quoted: false }),
    }
}

fn json_spot(before: &str) -> Option<Spot> {
    // The keys of the open objects (None for an array), and the state at the cursor.
    let mut stack: Vec<Option<String>> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut current = String::new();
    let mut last_key: Option<String> = None;
    let mut after_colon = false;
    for c in before.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => {
                    escaped = false;
                    current.push(c);
                }
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    if !after_colon {
                        last_key = Some(std::mem::take(&mut current));
                    }
                }
                (false, _) => current.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                current.clear();
            }
            ':' => after_colon = true,
            ',' => {
                after_colon = stack.last().is_some_and(Option::is_none);
                last_key = None;
            }
            '{' => {
                stack.push(Some(if after_colon { last_key.take().unwrap_or_default() } else { String::new() }));
                after_colon = false;
            }
            '[' => {
                stack.push(None);
                after_colon = true;
            }
            '}' | ']' => {
                stack.pop();
                after_colon = stack.last().is_some_and(Option::is_none);
                last_key = None;
            }
            _ => {}
        }
    }
    // The outermost object is the root: its own "key" is not part of the path.
    let keys: Option<Vec<String>> = stack.iter().skip(1).cloned().collect();
    let section = join_pointer(&keys?);
    if stack.is_empty() {
        return None;
    }
    if after_colon {
        let key = last_key?;
        return Some(Spot::Value { pointer: format!("{section}/{}", escape_token(&key)), quoted: in_string });
    }
    Some(Spot::Key { section, quoted: in_string })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfg_core::parse::{parse_json, parse_toml};

    fn at(text: &str, marker: &str) -> usize {
        text.find(marker).unwrap()
    }

    #[test]
    fn the_pointer_under_the_cursor() {
        let toml = "[model]\nname = \"m\"\n[batching]\nmax_num_seqs = 8\n";
        let tree = parse_toml(toml).unwrap();
        assert_eq!(pointer_at(&tree, at(toml, "num_seqs")).as_deref(), Some("/batching/max_num_seqs"));
        assert_eq!(pointer_at(&tree, at(toml, "8")).as_deref(), Some("/batching/max_num_seqs"));
        let json = "{\"request_distribution\": {\"tail\": {\"weight\": 0.1}}}";
        let tree = parse_json(json).unwrap();
        assert_eq!(pointer_at(&tree, at(json, "eight")).as_deref(), Some("/request_distribution/tail/weight"));
    }

    #[test]
    fn toml_spots() {
        let text = "[model]\nname = \"m\"\n\n[batching]\nmax_n";
        assert_eq!(
            spot(text, text.len(), FileKind::Config),
            Some(Spot::Key { section: "/batching".into(), quoted: false })
        );
        let text = "[model]\ndtype = \"bf";
        assert_eq!(
            spot(text, text.len(), FileKind::Config),
            Some(Spot::Value { pointer: "/model/dtype".into(), quoted: true })
        );
        assert_eq!(spot("[mo", 3, FileKind::Config), Some(Spot::Header));
        assert_eq!(spot("# [x", 4, FileKind::Config), None);
    }

    #[test]
    fn json_spots() {
        let text = "{\n  \"model\": \"m\",\n  \"request_distribution\": {\n    \"tail\": {\"wei";
        assert_eq!(
            spot(text, text.len(), FileKind::Settings),
            Some(Spot::Key { section: "/request_distribution/tail".into(), quoted: true })
        );
        let text = "{\"endpoint\": \"x\", \"model\": \"m\", ";
        assert_eq!(
            spot(text, text.len(), FileKind::Settings),
            Some(Spot::Key { section: String::new(), quoted: false })
        );
        let text = "{\"metrics\": {\"percentiles\": [50, ";
        assert_eq!(spot(text, text.len(), FileKind::Settings), None);
        let text = "{\"warmup_requests\": ";
        assert_eq!(
            spot(text, text.len(), FileKind::Settings),
            Some(Spot::Value { pointer: "/warmup_requests".into(), quoted: false })
        );
    }
}
