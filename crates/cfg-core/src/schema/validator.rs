//! A JSON Schema draft-07 validator for the keywords the generated schemas
//! use, and no more. A general validator (jsonschema with two regex engines)
//! was over a third of the web app's bundle and a sixth of its start-up, for
//! schemas that need `type`, `properties`, bounds, `$ref` and a few simple
//! patterns. Unknown keywords are refused by a test over the committed
//! schemas, so a schema change cannot slip past it; independent validators
//! (check-jsonschema, taplo) check the same schemas and examples in CI.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::tree::escape_token;

/// What is wrong, in the words of the keyword that failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    AdditionalProperties {
        unexpected: Vec<String>,
    },
    Required {
        property: String,
    },
    /// The schema's type names ("integer", "string"...).
    Type {
        expected: Vec<String>,
    },
    Enum,
    Constant,
    OneOfNotValid,
    OneOfMultipleValid,
    /// Each alternative's own errors.
    AnyOf {
        context: Vec<Vec<Error>>,
    },
    Minimum {
        limit: Json,
    },
    ExclusiveMinimum {
        limit: Json,
    },
    Maximum {
        limit: Json,
    },
    ExclusiveMaximum {
        limit: Json,
    },
    MinLength {
        limit: u64,
    },
    MaxLength {
        limit: u64,
    },
    MinItems {
        limit: u64,
    },
    MaxItems {
        limit: u64,
    },
    MinProperties {
        limit: u64,
    },
    MaxProperties {
        limit: u64,
    },
    /// A key of an object failed the `propertyNames` schema.
    PropertyNames {
        name: String,
        error: Box<ErrorKind>,
    },
    Pattern {
        pattern: String,
    },
    /// The schema `false`: no value is valid.
    FalseSchema,
}

/// One error: where in the instance (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub path: String,
    pub kind: ErrorKind,
}

/// Validates `instance` against `root` (a draft-07 schema whose `$ref`s point
/// into itself); stops after `cap` errors.
pub fn validate(root: &'static Json, instance: &Json, cap: usize) -> Vec<Error> {
    let tree = compiled(root, root);
    let mut out = Errors { list: Vec::new(), cap };
    tree.check(tree.start, instance, &mut String::new(), &mut out, 0);
    out.list
}

/// Whether `instance` is valid against `schema` (inside `root`), without
/// collecting errors.
pub fn is_valid(root: &'static Json, schema: &'static Json, instance: &Json) -> bool {
    let tree = compiled(root, schema);
    let mut out = Errors { list: Vec::new(), cap: 1 };
    tree.check(tree.start, instance, &mut String::new(), &mut out, 0);
    out.list.is_empty()
}

/// The schema compiled once per (root, start) and kept: keyword lookups,
/// `$ref` resolution and regex compilation happen here, not per value.
fn compiled(root: &'static Json, start: &'static Json) -> &'static Tree {
    type Cache = std::sync::Mutex<HashMap<(usize, usize), &'static Tree>>;
    static TREES: OnceLock<Cache> = OnceLock::new();
    let key = (root as *const Json as usize, start as *const Json as usize);
    let mut trees = TREES.get_or_init(Default::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    trees.entry(key).or_insert_with(|| Box::leak(Box::new(Tree::compile(root, start))))
}

struct Errors {
    list: Vec<Error>,
    cap: usize,
}

impl Errors {
    fn full(&self) -> bool {
        self.list.len() >= self.cap
    }

    fn push(&mut self, path: &str, kind: ErrorKind) {
        if !self.full() {
            self.list.push(Error { path: path.to_string(), kind });
        }
    }
}

/// How deep `$ref`s and nested values may go: the generated schemas nest a
/// few levels; a cycle or a hostile instance stops here instead of the stack.
const MAX_DEPTH: usize = 64;

type NodeId = usize;

enum Additional {
    Any,
    Forbidden,
    Schema(NodeId),
}

enum Items {
    Any,
    Each(NodeId),
    Tuple(Vec<NodeId>),
}

/// One schema object, its keywords read out.
struct Node {
    /// The schema `false`.
    refuse_all: bool,
    /// `$ref`: in draft 7 the other keywords beside it are ignored.
    reference: Option<NodeId>,
    types: Option<Vec<String>>,
    enum_values: Option<&'static [Json]>,
    constant: Option<&'static Json>,
    properties: HashMap<&'static str, NodeId>,
    additional: Additional,
    required: Vec<&'static str>,
    property_names: Option<NodeId>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    items: Items,
    min_items: Option<u64>,
    max_items: Option<u64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// The pattern as written, and compiled (`None` when it does not compile:
    /// then it refuses nothing; a test makes sure every committed one does).
    pattern: Option<(&'static str, Option<regex_lite::Regex>)>,
    minimum: Option<&'static Json>,
    maximum: Option<&'static Json>,
    exclusive_minimum: Option<&'static Json>,
    exclusive_maximum: Option<&'static Json>,
    all_of: Vec<NodeId>,
    any_of: Vec<NodeId>,
    one_of: Vec<NodeId>,
    /// When every `oneOf` alternative is only a string `const` (how schemars
    /// writes a documented enum): the strings, matched without recursion.
    one_of_strings: Option<Vec<&'static str>>,
}

struct Tree {
    nodes: Vec<Node>,
    start: NodeId,
}

impl Tree {
    fn compile(root: &'static Json, start: &'static Json) -> Tree {
        let mut tree = Tree { nodes: Vec::new(), start: 0 };
        let mut ids = HashMap::new();
        tree.start = tree.node(root, start, &mut ids);
        tree
    }

    /// The node for a schema object, compiled once (by address: `$ref` cycles end here).
    fn node(&mut self, root: &'static Json, schema: &'static Json, ids: &mut HashMap<usize, NodeId>) -> NodeId {
        let address = schema as *const Json as usize;
        if let Some(&id) = ids.get(&address) {
            return id;
        }
        let id = self.nodes.len();
        ids.insert(address, id);
        self.nodes.push(Node::empty());
        let s: &'static serde_json::Map<String, Json> = match schema {
            Json::Object(m) => m,
            // `false` refuses every value; `true` (or anything else) accepts it.
            other => {
                self.nodes[id].refuse_all = other == &Json::Bool(false);
                return id;
            }
        };
        let mut sub = |this: &mut Tree, v: &'static Json| this.node(root, v, ids);
        let mut node = Node::empty();
        if let Some(target) = s.get("$ref").and_then(Json::as_str) {
            if let Some(t) = target.strip_prefix('#').and_then(|p| root.pointer(p)) {
                node.reference = Some(sub(self, t));
            }
            self.nodes[id] = node;
            return id;
        }
        let u64_of = |k: &str| s.get(k).and_then(Json::as_u64);
        let number_of = |k: &str| s.get(k).filter(|v| v.is_number());
        node.types = s.get("type").map(|t| match t {
            Json::String(n) => vec![n.clone()],
            Json::Array(a) => a.iter().filter_map(Json::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        });
        node.enum_values = s.get("enum").and_then(Json::as_array).map(Vec::as_slice);
        node.constant = s.get("const");
        if let Some(props) = s.get("properties").and_then(Json::as_object) {
            for (name, v) in props {
                let child = sub(self, v);
                node.properties.insert(name.as_str(), child);
            }
        }
        node.additional = match s.get("additionalProperties") {
            Some(Json::Bool(false)) => Additional::Forbidden,
            Some(v @ Json::Object(_)) => Additional::Schema(sub(self, v)),
            _ => Additional::Any,
        };
        node.required =
            s.get("required").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).collect();
        node.property_names = s.get("propertyNames").map(|v| sub(self, v));
        node.min_properties = u64_of("minProperties");
        node.max_properties = u64_of("maxProperties");
        node.items = match s.get("items") {
            Some(Json::Array(tuple)) => Items::Tuple(tuple.iter().map(|v| sub(self, v)).collect()),
            Some(one) => Items::Each(sub(self, one)),
            None => Items::Any,
        };
        node.min_items = u64_of("minItems");
        node.max_items = u64_of("maxItems");
        node.min_length = u64_of("minLength");
        node.max_length = u64_of("maxLength");
        node.pattern = s.get("pattern").and_then(Json::as_str).map(|p| (p, ecma_regex(p)));
        node.minimum = number_of("minimum");
        node.maximum = number_of("maximum");
        node.exclusive_minimum = number_of("exclusiveMinimum");
        node.exclusive_maximum = number_of("exclusiveMaximum");
        let list = |this: &mut Tree, k: &str, sub: &mut dyn FnMut(&mut Tree, &'static Json) -> NodeId| -> Vec<NodeId> {
            s.get(k).and_then(Json::as_array).into_iter().flatten().map(|v| sub(this, v)).collect()
        };
        node.all_of = list(self, "allOf", &mut sub);
        node.any_of = list(self, "anyOf", &mut sub);
        node.one_of = list(self, "oneOf", &mut sub);
        node.one_of_strings = s.get("oneOf").and_then(Json::as_array).and_then(|alts| {
            alts.iter()
                .map(|a| {
                    let m = a.as_object()?;
                    let only_const = m.keys().all(|k| matches!(k.as_str(), "const" | "description" | "title" | "type"));
                    let text = m.get("const")?.as_str()?;
                    let typed = m.get("type").is_none_or(|t| t == "string");
                    (only_const && typed).then_some(text)
                })
                .collect()
        });
        self.nodes[id] = node;
        id
    }

    fn check(&self, id: NodeId, value: &Json, path: &mut String, out: &mut Errors, depth: usize) {
        if out.full() || depth > MAX_DEPTH {
            return;
        }
        let n = &self.nodes[id];
        if n.refuse_all {
            out.push(path, ErrorKind::FalseSchema);
            return;
        }
        if let Some(target) = n.reference {
            self.check(target, value, path, out, depth + 1);
            return;
        }
        if let Some(types) = &n.types
            && !types.iter().any(|t| is_type(t, value))
        {
            out.push(path, ErrorKind::Type { expected: types.clone() });
            // The other keywords would only repeat the mismatch.
            return;
        }
        if let Some(values) = n.enum_values
            && !values.iter().any(|v| equal(v, value))
        {
            out.push(path, ErrorKind::Enum);
        }
        if let Some(c) = n.constant
            && !equal(c, value)
        {
            out.push(path, ErrorKind::Constant);
        }
        match value {
            Json::Object(map) => self.object(n, map, path, out, depth),
            Json::Array(items) => self.array(n, items, path, out, depth),
            Json::String(text) => string(n, text, path, out),
            Json::Number(_) => number(n, value, path, out),
            _ => {}
        }
        for &sub in &n.all_of {
            self.check(sub, value, path, out, depth + 1);
        }
        if !n.any_of.is_empty() {
            let mut context = Vec::new();
            for &alt in &n.any_of {
                let mut branch = Errors { list: Vec::new(), cap: out.cap };
                self.check(alt, value, path, &mut branch, depth + 1);
                if branch.list.is_empty() {
                    context.clear();
                    break;
                }
                context.push(branch.list);
            }
            if !context.is_empty() {
                out.push(path, ErrorKind::AnyOf { context });
            }
        }
        if !n.one_of.is_empty() {
            let valid = match (&n.one_of_strings, value.as_str()) {
                (Some(strings), Some(text)) => strings.iter().filter(|s| **s == text).take(2).count(),
                (Some(_), None) => 0,
                (None, _) => n
                    .one_of
                    .iter()
                    .filter(|&&alt| {
                        let mut branch = Errors { list: Vec::new(), cap: 1 };
                        self.check(alt, value, path, &mut branch, depth + 1);
                        branch.list.is_empty()
                    })
                    .take(2)
                    .count(),
            };
            match valid {
                0 => out.push(path, ErrorKind::OneOfNotValid),
                1 => {}
                _ => out.push(path, ErrorKind::OneOfMultipleValid),
            }
        }
    }

    fn object(&self, n: &Node, map: &serde_json::Map<String, Json>, path: &mut String, out: &mut Errors, depth: usize) {
        for name in &n.required {
            if !map.contains_key(*name) {
                out.push(path, ErrorKind::Required { property: name.to_string() });
            }
        }
        if let Some(limit) = n.min_properties
            && (map.len() as u64) < limit
        {
            out.push(path, ErrorKind::MinProperties { limit });
        }
        if let Some(limit) = n.max_properties
            && map.len() as u64 > limit
        {
            out.push(path, ErrorKind::MaxProperties { limit });
        }
        if let Some(names) = n.property_names {
            for name in map.keys() {
                let mut first = Errors { list: Vec::new(), cap: 1 };
                self.check(names, &Json::String(name.clone()), &mut String::new(), &mut first, depth + 1);
                if let Some(e) = first.list.pop() {
                    out.push(path, ErrorKind::PropertyNames { name: name.clone(), error: Box::new(e.kind) });
                }
            }
        }
        let mut unexpected = Vec::new();
        for (name, v) in map {
            if out.full() {
                return;
            }
            let sub = match (n.properties.get(name.as_str()), &n.additional) {
                (Some(&sub), _) => sub,
                (None, Additional::Forbidden) => {
                    unexpected.push(name.clone());
                    continue;
                }
                (None, Additional::Schema(sub)) => *sub,
                (None, Additional::Any) => continue,
            };
            let len = path.len();
            path.push('/');
            path.push_str(&escape_token(name));
            self.check(sub, v, path, out, depth + 1);
            path.truncate(len);
        }
        if !unexpected.is_empty() {
            out.push(path, ErrorKind::AdditionalProperties { unexpected });
        }
    }

    fn array(&self, n: &Node, items: &[Json], path: &mut String, out: &mut Errors, depth: usize) {
        if let Some(limit) = n.min_items
            && (items.len() as u64) < limit
        {
            out.push(path, ErrorKind::MinItems { limit });
        }
        if let Some(limit) = n.max_items
            && items.len() as u64 > limit
        {
            out.push(path, ErrorKind::MaxItems { limit });
        }
        for (i, v) in items.iter().enumerate() {
            if out.full() {
                return;
            }
            let sub = match &n.items {
                Items::Any => break,
                Items::Each(one) => *one,
                Items::Tuple(tuple) => match tuple.get(i) {
                    Some(&t) => t,
                    None => break,
                },
            };
            let len = path.len();
            path.push('/');
            path.push_str(&i.to_string());
            self.check(sub, v, path, out, depth + 1);
            path.truncate(len);
        }
    }
}

impl Node {
    fn empty() -> Node {
        Node {
            refuse_all: false,
            reference: None,
            types: None,
            enum_values: None,
            constant: None,
            properties: HashMap::new(),
            additional: Additional::Any,
            required: Vec::new(),
            property_names: None,
            min_properties: None,
            max_properties: None,
            items: Items::Any,
            min_items: None,
            max_items: None,
            min_length: None,
            max_length: None,
            pattern: None,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            all_of: Vec::new(),
            any_of: Vec::new(),
            one_of: Vec::new(),
            one_of_strings: None,
        }
    }
}

/// ECMA-262's `\s` (what JSON Schema patterns mean, and what editors check
/// with) is Unicode white space; regex-lite's is ASCII only. Spelled out, both
/// agree, and so does the parser that trims such values.
const ECMA_SPACE: &str =
    r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// A schema pattern compiled with ECMA-262's white space.
fn ecma_regex(pattern: &str) -> Option<regex_lite::Regex> {
    let mut spelled = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            spelled.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => spelled.push_str(ECMA_SPACE),
            Some(escaped) => {
                spelled.push('\\');
                spelled.push(escaped);
            }
            None => spelled.push('\\'),
        }
    }
    regex_lite::Regex::new(&spelled).ok()
}

fn string(n: &Node, text: &str, path: &str, out: &mut Errors) {
    // Lengths count characters (code points), as JSON Schema does.
    let chars = || text.chars().count() as u64;
    if let Some(limit) = n.min_length
        && chars() < limit
    {
        out.push(path, ErrorKind::MinLength { limit });
    }
    if let Some(limit) = n.max_length
        && chars() > limit
    {
        out.push(path, ErrorKind::MaxLength { limit });
    }
    // ECMA-262 patterns are searched, not anchored; `regex_lite` does the same.
    if let Some((pattern, Some(re))) = &n.pattern
        && !re.is_match(text)
    {
        out.push(path, ErrorKind::Pattern { pattern: pattern.to_string() });
    }
}

fn number(n: &Node, value: &Json, path: &str, out: &mut Errors) {
    let Some(v) = value.as_f64() else { return };
    let below = |l: &Json| compare(value, v, l) == Some(std::cmp::Ordering::Less);
    let above = |l: &Json| compare(value, v, l) == Some(std::cmp::Ordering::Greater);
    if let Some(l) = n.minimum.filter(|l| below(l)) {
        out.push(path, ErrorKind::Minimum { limit: l.clone() });
    }
    if let Some(l) = n.exclusive_minimum.filter(|l| !above(l)) {
        out.push(path, ErrorKind::ExclusiveMinimum { limit: l.clone() });
    }
    if let Some(l) = n.maximum.filter(|l| above(l)) {
        out.push(path, ErrorKind::Maximum { limit: l.clone() });
    }
    if let Some(l) = n.exclusive_maximum.filter(|l| !below(l)) {
        out.push(path, ErrorKind::ExclusiveMaximum { limit: l.clone() });
    }
}

/// Compares a number with a limit exactly when both are integers (u64 values
/// past 2^53 do not survive a trip through f64), else as f64.
fn compare(value: &Json, v: f64, limit: &Json) -> Option<std::cmp::Ordering> {
    if let (Some(a), Some(b)) = (value.as_i64(), limit.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (value.as_u64(), limit.as_u64()) {
        return Some(a.cmp(&b));
    }
    v.partial_cmp(&limit.as_f64()?)
}

fn is_type(name: &str, value: &Json) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        // Draft 6 and later: any number with a zero fractional part (32.0 too).
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => true,
    }
}

/// JSON equality where numbers compare by value (1 and 1.0 are equal).
fn equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(_), Json::Number(_)) => {
            compare(a, a.as_f64().unwrap_or(f64::NAN), b) == Some(std::cmp::Ordering::Equal)
        }
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileKind;

    /// The keywords this validator understands (annotations included).
    const KEYWORDS: &[&str] = &[
        "$schema",
        "$ref",
        "title",
        "description",
        "default",
        "examples",
        "definitions",
        "type",
        "enum",
        "const",
        "properties",
        "additionalProperties",
        "required",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "allOf",
        "anyOf",
        "oneOf",
    ];

    /// Every keyword in every generated schema is one this validator knows,
    /// and every pattern compiles.
    #[test]
    fn the_schemas_use_only_known_keywords() {
        fn walk(node: &Json, in_names: bool, found: &mut Vec<String>, root: &Json) {
            match node {
                Json::Object(map) => {
                    for (k, v) in map {
                        if !in_names && !KEYWORDS.contains(&k.as_str()) {
                            found.push(k.clone());
                        }
                        if k == "$ref" {
                            let target = v.as_str().and_then(|r| r.strip_prefix('#'));
                            assert!(
                                target.is_some_and(|p| root.pointer(p).is_some()),
                                "$ref {v} does not resolve inside the schema"
                            );
                        }
                        if k == "type" && !in_names {
                            let names: Vec<&str> = match v {
                                Json::String(t) => vec![t.as_str()],
                                Json::Array(a) => a.iter().filter_map(Json::as_str).collect(),
                                _ => vec![""],
                            };
                            for t in names {
                                assert!(
                                    ["null", "boolean", "object", "array", "number", "integer", "string"].contains(&t),
                                    "unknown type {t:?}"
                                );
                            }
                        }
                        if k == "pattern" {
                            let p = v.as_str().unwrap_or_default();
                            assert!(ecma_regex(p).is_some(), "pattern {p} does not compile");
                        }
                        // Under these, keys are names, not keywords.
                        let names = matches!(k.as_str(), "properties" | "definitions") && !in_names;
                        // Annotations hold data, not schemas.
                        if !in_names && matches!(k.as_str(), "default" | "examples" | "const" | "enum") {
                            continue;
                        }
                        walk(v, names, found, root);
                    }
                }
                Json::Array(items) => items.iter().for_each(|i| walk(i, false, found, root)),
                _ => {}
            }
        }
        for kind in FileKind::ALL {
            let mut unknown = Vec::new();
            let root = crate::schema::schema(kind);
            walk(root, false, &mut unknown, root);
            assert!(unknown.is_empty(), "{kind:?}: keywords the validator does not know: {unknown:?}");
        }
    }

    fn schema(json: Json) -> &'static Json {
        Box::leak(Box::new(json))
    }

    fn kinds(s: &'static Json, v: Json) -> Vec<(String, ErrorKind)> {
        validate(s, &v, 100).into_iter().map(|e| (e.path, e.kind)).collect()
    }

    #[test]
    fn each_keyword_fails_where_draft_7_says() {
        let s = schema(serde_json::json!({
            "type": "object",
            "required": ["a"],
            "additionalProperties": false,
            "properties": {
                "a": { "type": "integer", "minimum": 1, "maximum": 10 },
                "b": { "type": "string", "minLength": 2, "maxLength": 3, "pattern": "^x" },
                "c": { "$ref": "#/definitions/C" },
                "d": { "type": "array", "items": { "type": "number", "exclusiveMinimum": 0 }, "maxItems": 2 },
                "e": { "oneOf": [{ "const": "on" }, { "const": "off" }] },
                "f": { "anyOf": [{ "type": "integer", "minimum": 1 }, { "type": "string", "pattern": "^[0-9]+k$" }] },
                "g": { "type": "object", "propertyNames": { "maxLength": 2 }, "additionalProperties": { "type": "boolean" } }
            },
            "definitions": { "C": { "enum": ["x", "y"] } }
        }));
        assert_eq!(kinds(s, serde_json::json!({"a": 5})), vec![]);
        assert_eq!(kinds(s, serde_json::json!({"a": 5.0})), vec![], "32.0 is an integer in draft 7");
        let got = kinds(
            s,
            serde_json::json!({
                "a": 0, "b": "yyyy", "c": "z", "d": [1, 0, 2], "e": "maybe", "f": "1.5k", "g": {"abc": true, "ok": 1}, "zz": 1
            }),
        );
        let want = [
            ("/a".to_string(), ErrorKind::Minimum { limit: 1.into() }),
            ("/b".to_string(), ErrorKind::MaxLength { limit: 3 }),
            ("/b".to_string(), ErrorKind::Pattern { pattern: "^x".into() }),
            ("/c".to_string(), ErrorKind::Enum),
            ("/d".to_string(), ErrorKind::MaxItems { limit: 2 }),
            ("/d/1".to_string(), ErrorKind::ExclusiveMinimum { limit: 0.into() }),
            ("/e".to_string(), ErrorKind::OneOfNotValid),
        ];
        assert_eq!(got[..want.len()], want[..], "{got:#?}");
        let rest = &got[want.len()..];
        assert!(matches!(&rest[0], (p, ErrorKind::AnyOf { context }) if p == "/f" && context.len() == 2), "{rest:#?}");
        assert_eq!(
            rest[1],
            (
                "/g".into(),
                ErrorKind::PropertyNames { name: "abc".into(), error: Box::new(ErrorKind::MaxLength { limit: 2 }) }
            )
        );
        assert_eq!(rest[2], ("/g/ok".into(), ErrorKind::Type { expected: vec!["boolean".into()] }));
        assert_eq!(rest[3], (String::new(), ErrorKind::AdditionalProperties { unexpected: vec!["zz".into()] }));
        assert_eq!(
            kinds(s, serde_json::json!({})),
            vec![(String::new(), ErrorKind::Required { property: "a".into() })]
        );
        assert_eq!(
            kinds(s, serde_json::json!([])),
            vec![(String::new(), ErrorKind::Type { expected: vec!["object".into()] })]
        );
    }

    #[test]
    fn white_space_in_a_pattern_is_ecma_262_white_space() {
        let re = ecma_regex(r"^\s*[0-9]+\s*$").unwrap();
        for ok in ["8192", " 8192\t", "8192\u{a0}", "\u{3000}8192"] {
            assert!(re.is_match(ok), "{ok:?}");
        }
        assert!(!re.is_match("8192x"));
        // An escaped backslash before an s is not white space.
        assert!(ecma_regex(r"^a\\s$").unwrap().is_match("a\\s"));
    }

    #[test]
    fn the_false_schema_refuses_everything() {
        let s = schema(serde_json::json!({ "type": "array", "items": false }));
        assert!(validate(s, &serde_json::json!([]), 10).is_empty());
        assert_eq!(kinds(s, serde_json::json!([1])), vec![("/0".to_string(), ErrorKind::FalseSchema)]);
        let t = schema(serde_json::json!({ "properties": { "a": true } }));
        assert!(validate(t, &serde_json::json!({"a": [1, {}]}), 10).is_empty());
    }

    #[test]
    fn big_integers_compare_exactly_and_the_cap_holds() {
        let s = schema(serde_json::json!({ "type": "integer", "maximum": 18446744073709551614u64 }));
        assert!(validate(s, &serde_json::json!(18446744073709551615u64), 10).len() == 1);
        assert!(validate(s, &serde_json::json!(18446744073709551614u64), 10).is_empty());
        let many = schema(serde_json::json!({ "type": "array", "items": { "type": "string" } }));
        let instance = Json::Array((0..1000).map(Json::from).collect());
        assert_eq!(validate(many, &instance, 7).len(), 7);
        assert!(!is_valid(many, many, &instance));
    }
}
