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
    let mut out = Errors { list: Vec::new(), cap };
    Walker { root }.check(root, instance, &mut String::new(), &mut out, 0);
    out.list
}

/// Whether `instance` is valid, without collecting errors.
pub fn is_valid(root: &'static Json, schema: &'static Json, instance: &Json) -> bool {
    let mut out = Errors { list: Vec::new(), cap: 1 };
    Walker { root }.check(schema, instance, &mut String::new(), &mut out, 0);
    out.list.is_empty()
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

struct Walker {
    root: &'static Json,
}

impl Walker {
    fn check(&self, schema: &'static Json, value: &Json, path: &mut String, out: &mut Errors, depth: usize) {
        if out.full() || depth > MAX_DEPTH {
            return;
        }
        let Some(s) = schema.as_object() else { return };
        // Draft 7: beside `$ref`, other keywords are ignored.
        if let Some(target) = s.get("$ref").and_then(Json::as_str) {
            if let Some(t) = target.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                self.check(t, value, path, out, depth + 1);
            }
            return;
        }
        if let Some(t) = s.get("type")
            && !type_matches(t, value)
        {
            let expected = match t {
                Json::String(n) => vec![n.clone()],
                Json::Array(a) => a.iter().filter_map(Json::as_str).map(str::to_string).collect(),
                _ => Vec::new(),
            };
            out.push(path, ErrorKind::Type { expected });
            // The other keywords would only repeat the mismatch.
            return;
        }
        if let Some(values) = s.get("enum").and_then(Json::as_array)
            && !values.iter().any(|v| equal(v, value))
        {
            out.push(path, ErrorKind::Enum);
        }
        if let Some(c) = s.get("const")
            && !equal(c, value)
        {
            out.push(path, ErrorKind::Constant);
        }
        match value {
            Json::Object(map) => self.object(s, map, path, out, depth),
            Json::Array(items) => self.array(s, items, path, out, depth),
            Json::String(text) => string(s, text, path, out),
            Json::Number(_) => number(s, value, path, out),
            _ => {}
        }
        for sub in s.get("allOf").and_then(Json::as_array).into_iter().flatten() {
            self.check(sub, value, path, out, depth + 1);
        }
        if let Some(alts) = s.get("anyOf").and_then(Json::as_array) {
            let mut context = Vec::new();
            for alt in alts {
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
        if let Some(alts) = s.get("oneOf").and_then(Json::as_array) {
            let valid = alts
                .iter()
                .filter(|alt| {
                    let mut branch = Errors { list: Vec::new(), cap: 1 };
                    self.check(alt, value, path, &mut branch, depth + 1);
                    branch.list.is_empty()
                })
                .take(2)
                .count();
            match valid {
                0 => out.push(path, ErrorKind::OneOfNotValid),
                1 => {}
                _ => out.push(path, ErrorKind::OneOfMultipleValid),
            }
        }
    }

    fn object(
        &self,
        s: &'static serde_json::Map<String, Json>,
        map: &serde_json::Map<String, Json>,
        path: &mut String,
        out: &mut Errors,
        depth: usize,
    ) {
        let props = s.get("properties").and_then(Json::as_object);
        for name in s.get("required").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str) {
            if !map.contains_key(name) {
                out.push(path, ErrorKind::Required { property: name.to_string() });
            }
        }
        if let Some(limit) = s.get("minProperties").and_then(Json::as_u64)
            && (map.len() as u64) < limit
        {
            out.push(path, ErrorKind::MinProperties { limit });
        }
        if let Some(limit) = s.get("maxProperties").and_then(Json::as_u64)
            && map.len() as u64 > limit
        {
            out.push(path, ErrorKind::MaxProperties { limit });
        }
        if let Some(names) = s.get("propertyNames") {
            for name in map.keys() {
                let mut first = Errors { list: Vec::new(), cap: 1 };
                self.check(names, &Json::String(name.clone()), &mut String::new(), &mut first, depth + 1);
                if let Some(e) = first.list.pop() {
                    out.push(path, ErrorKind::PropertyNames { name: name.clone(), error: Box::new(e.kind) });
                }
            }
        }
        let additional = s.get("additionalProperties");
        let mut unexpected = Vec::new();
        for (name, v) in map {
            if out.full() {
                return;
            }
            let sub = match props.and_then(|p| p.get(name)) {
                Some(sub) => sub,
                None => match additional {
                    Some(Json::Bool(false)) => {
                        unexpected.push(name.clone());
                        continue;
                    }
                    Some(sub @ Json::Object(_)) => sub,
                    _ => continue,
                },
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

    fn array(
        &self,
        s: &'static serde_json::Map<String, Json>,
        items: &[Json],
        path: &mut String,
        out: &mut Errors,
        depth: usize,
    ) {
        if let Some(limit) = s.get("minItems").and_then(Json::as_u64)
            && (items.len() as u64) < limit
        {
            out.push(path, ErrorKind::MinItems { limit });
        }
        if let Some(limit) = s.get("maxItems").and_then(Json::as_u64)
            && items.len() as u64 > limit
        {
            out.push(path, ErrorKind::MaxItems { limit });
        }
        let each = |i: usize| -> Option<&'static Json> {
            match s.get("items")? {
                Json::Array(tuple) => tuple.get(i),
                one => Some(one),
            }
        };
        for (i, v) in items.iter().enumerate() {
            if out.full() {
                return;
            }
            let Some(sub) = each(i) else { continue };
            let len = path.len();
            path.push('/');
            path.push_str(&i.to_string());
            self.check(sub, v, path, out, depth + 1);
            path.truncate(len);
        }
    }
}

fn string(s: &serde_json::Map<String, Json>, text: &str, path: &str, out: &mut Errors) {
    // Lengths count characters (code points), as JSON Schema does.
    let chars = || text.chars().count() as u64;
    if let Some(limit) = s.get("minLength").and_then(Json::as_u64)
        && chars() < limit
    {
        out.push(path, ErrorKind::MinLength { limit });
    }
    if let Some(limit) = s.get("maxLength").and_then(Json::as_u64)
        && chars() > limit
    {
        out.push(path, ErrorKind::MaxLength { limit });
    }
    if let Some(pattern) = s.get("pattern").and_then(Json::as_str)
        && !pattern_matches(pattern, text)
    {
        out.push(path, ErrorKind::Pattern { pattern: pattern.to_string() });
    }
}

fn number(s: &serde_json::Map<String, Json>, value: &Json, path: &str, out: &mut Errors) {
    let Some(v) = value.as_f64() else { return };
    let limit = |k: &str| s.get(k).filter(|l| l.is_number());
    let below = |l: &Json| compare(value, v, l) == Some(std::cmp::Ordering::Less);
    let above = |l: &Json| compare(value, v, l) == Some(std::cmp::Ordering::Greater);
    if let Some(l) = limit("minimum").filter(|l| below(l)) {
        out.push(path, ErrorKind::Minimum { limit: l.clone() });
    }
    if let Some(l) = limit("exclusiveMinimum").filter(|l| !above(l)) {
        out.push(path, ErrorKind::ExclusiveMinimum { limit: l.clone() });
    }
    if let Some(l) = limit("maximum").filter(|l| above(l)) {
        out.push(path, ErrorKind::Maximum { limit: l.clone() });
    }
    if let Some(l) = limit("exclusiveMaximum").filter(|l| !below(l)) {
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

fn type_matches(t: &Json, value: &Json) -> bool {
    match t {
        Json::String(name) => is_type(name, value),
        Json::Array(names) => names.iter().filter_map(Json::as_str).any(|n| is_type(n, value)),
        _ => true,
    }
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

/// ECMA-262 patterns are searched, not anchored: `regex_lite` does the same.
/// Each pattern is compiled once (the schemas are static).
fn pattern_matches(pattern: &str, text: &str) -> bool {
    static COMPILED: OnceLock<std::sync::Mutex<HashMap<String, Option<regex_lite::Regex>>>> = OnceLock::new();
    let cache = COMPILED.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let re = cache.entry(pattern.to_string()).or_insert_with(|| regex_lite::Regex::new(pattern).ok());
    // A pattern that does not compile refuses nothing (the schema test below
    // makes sure every committed pattern compiles).
    re.as_ref().is_none_or(|re| re.is_match(text))
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
        fn walk(node: &Json, in_names: bool, found: &mut Vec<String>) {
            match node {
                Json::Object(map) => {
                    for (k, v) in map {
                        if !in_names && !KEYWORDS.contains(&k.as_str()) {
                            found.push(k.clone());
                        }
                        if k == "pattern" {
                            let p = v.as_str().unwrap_or_default();
                            assert!(regex_lite::Regex::new(p).is_ok(), "pattern {p} does not compile");
                        }
                        // Under these, keys are names, not keywords.
                        let names = matches!(k.as_str(), "properties" | "definitions") && !in_names;
                        // Annotations hold data, not schemas.
                        if !in_names && matches!(k.as_str(), "default" | "examples" | "const" | "enum") {
                            continue;
                        }
                        walk(v, names, found);
                    }
                }
                Json::Array(items) => items.iter().for_each(|i| walk(i, false, found)),
                _ => {}
            }
        }
        for kind in FileKind::ALL {
            let mut unknown = Vec::new();
            walk(crate::schema::schema(kind), false, &mut unknown);
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
