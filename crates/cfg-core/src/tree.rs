//! A format-neutral value tree that remembers where every key and value sits
//! in the source. TOML and JSON both parse into it; the schema validator sees
//! its plain-JSON projection, and validation errors come back through
//! [`Node::locate`] to the exact bytes to underline.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
    Array(Vec<Node>),
    Object(Vec<Entry>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Node,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    /// The value's bytes. For a TOML `[table]` this is its header.
    pub span: Range<usize>,
}

/// What a JSON pointer resolves to: the key's span (if the last step was a
/// key) and the value's span.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<'a> {
    pub node: &'a Node,
    pub key_span: Option<Range<usize>>,
}

impl Node {
    pub fn new(value: Value, span: Range<usize>) -> Self {
        Node { value, span }
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Object(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    /// Resolves a JSON pointer. Returns `None` if any step is missing.
    pub fn locate(&self, pointer: &str) -> Option<Located<'_>> {
        let mut here = Located { node: self, key_span: None };
        for token in pointer_tokens(pointer) {
            here = match &here.node.value {
                Value::Object(entries) => {
                    let e = entries.iter().find(|e| e.key == token)?;
                    Located { node: &e.value, key_span: Some(e.key_span.clone()) }
                }
                Value::Array(items) => {
                    let node = items.get(token.parse::<usize>().ok()?)?;
                    Located { node, key_span: None }
                }
                _ => return None,
            };
        }
        Some(here)
    }

    /// Resolves as much of a pointer as exists: the deepest existing node and
    /// whether the whole pointer was found. Findings about a missing key point
    /// at its parent table, which is where the key has to be added.
    pub fn locate_nearest(&self, pointer: &str) -> (Located<'_>, bool) {
        let tokens: Vec<String> = pointer_tokens(pointer).collect();
        for n in (0..=tokens.len()).rev() {
            let prefix = join_pointer(&tokens[..n]);
            if let Some(found) = self.locate(&prefix) {
                return (found, n == tokens.len());
            }
        }
        (Located { node: self, key_span: None }, false)
    }

    /// The plain JSON value, for the schema validator and serde.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Integer(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::String(s) => J::String(s.clone()),
            Value::Array(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Object(entries) => J::Object(entries.iter().map(|e| (e.key.clone(), e.value.to_json())).collect()),
        }
    }

    /// Every string value in the tree with its pointer (for the secret scan).
    pub fn strings(&self) -> Vec<(String, &str, Range<usize>)> {
        let mut out = Vec::new();
        self.collect_strings(String::new(), &mut out);
        out
    }

    fn collect_strings<'a>(&'a self, at: String, out: &mut Vec<(String, &'a str, Range<usize>)>) {
        match &self.value {
            Value::String(s) => out.push((at, s, self.span.clone())),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    item.collect_strings(format!("{at}/{i}"), out);
                }
            }
            Value::Object(entries) => {
                for e in entries {
                    e.value.collect_strings(format!("{at}/{}", escape_token(&e.key)), out);
                }
            }
            _ => {}
        }
    }
}

pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

pub fn pointer_tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~"))
}

pub fn join_pointer<S: AsRef<str>>(tokens: &[S]) -> String {
    tokens.iter().map(|t| format!("/{}", escape_token(t.as_ref()))).collect()
}
