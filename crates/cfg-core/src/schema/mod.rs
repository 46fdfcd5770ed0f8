//! JSON Schemas generated from the typed models (draft-07, which taplo and
//! SchemaStore need), and validation of a parsed file against them with every
//! error mapped back to the key or value it is about.

pub mod validator;

use std::sync::OnceLock;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value as Json;

use crate::diagnostic::{Finding, Severity, Target};
use crate::kind::FileKind;
use crate::model::{BenchResult, LoadTestSettings, ServerConfig};
use crate::tree::{join_pointer, pointer_tokens};
use validator::ErrorKind as ValidationErrorKind;

pub use validator::is_valid;

/// The schema of a file kind as pretty JSON with a trailing newline, exactly
/// as committed under `schemas/`.
pub fn schema_text(kind: FileKind) -> String {
    let mut text = serde_json::to_string_pretty(schema(kind)).expect("a schema always serialises");
    text.push('\n');
    text
}

pub fn schema(kind: FileKind) -> &'static Json {
    static SCHEMAS: OnceLock<[Json; 3]> = OnceLock::new();
    let all = SCHEMAS.get_or_init(|| {
        // The browser reads the committed schemas instead of generating them:
        // a fifth of the page's start-up, and the schema generator's code out
        // of the bundle. CI's schema stage keeps them equal to what the code
        // generates; natively they are always generated.
        #[cfg(target_arch = "wasm32")]
        {
            let read = |text: &str| serde_json::from_str::<Json>(text).expect("the committed schemas are JSON");
            return [
                read(include_str!("../../../../schemas/config.schema.json")),
                read(include_str!("../../../../schemas/settings.schema.json")),
                read(include_str!("../../../../schemas/result.schema.json")),
            ];
        }
        #[allow(unreachable_code)]
        let mut config = generate::<ServerConfig>();
        let mut settings = generate::<LoadTestSettings>();
        // An absent key is how these files say "default"; null is never meant.
        drop_null(&mut config);
        drop_null(&mut settings);
        [config, settings, generate::<BenchResult>()]
    });
    &all[kind as usize]
}

fn generate<T: JsonSchema>() -> Json {
    let schema = SchemaSettings::draft07().into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    strip_numeric_formats(&mut value);
    value
}

/// Optional fields come out as `anyOf: [T, null]` or `type: [T, "null"]`;
/// TOML has no null and a JSON null would only hide a mistake, so accept T.
fn drop_null(value: &mut Json) {
    match value {
        Json::Object(map) => {
            if let Some(Json::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            let alternatives = map.get("anyOf").and_then(Json::as_array).cloned();
            if let Some(alts) = alternatives {
                let rest: Vec<Json> =
                    alts.into_iter().filter(|a| a.get("type").and_then(Json::as_str) != Some("null")).collect();
                if rest.len() == 1 {
                    map.remove("anyOf");
                    let only = rest.into_iter().next().unwrap_or_default();
                    if only.get("$ref").is_some() {
                        map.insert("allOf".into(), Json::Array(vec![only]));
                    } else if let Json::Object(inner) = only {
                        for (k, v) in inner {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            map.values_mut().for_each(drop_null);
        }
        Json::Array(items) => items.iter_mut().for_each(drop_null),
        _ => {}
    }
}

/// schemars annotates integers with `"format": "uint32"` and the like, which
/// no validator or editor understands; strict tools (Ajv) reject them.
fn strip_numeric_formats(value: &mut Json) {
    match value {
        Json::Object(map) => {
            if map
                .get("format")
                .and_then(Json::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint") || f == "double" || f == "float")
            {
                map.remove("format");
            }
            map.values_mut().for_each(strip_numeric_formats);
        }
        Json::Array(items) => items.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}

/// Rule codes of schema violations. They are registered rules like any other
/// (see `rules::schema`), so `cfg-lint explain CFG002` works for them too.
pub mod codes {
    pub const SYNTAX: (&str, &str) = ("CFG001", "syntax-error");
    pub const UNKNOWN_KEY: (&str, &str) = ("CFG002", "unknown-key");
    pub const MISSING_KEY: (&str, &str) = ("CFG003", "missing-key");
    pub const WRONG_TYPE: (&str, &str) = ("CFG004", "wrong-type");
    pub const OUT_OF_RANGE: (&str, &str) = ("CFG005", "out-of-range");
    pub const INVALID_VALUE: (&str, &str) = ("CFG006", "invalid-value");
}

/// A rule's claim on the enum errors at one pointer: refused values there are
/// reported under its code, with a note about the value where it has one
/// (`gguf` in `model.quantization` is the quantization rule's, with its advice).
pub struct EnumClaim {
    pub code: &'static str,
    pub rule: &'static str,
    pub note: Option<String>,
}

/// Who claims the enum errors at a pointer, given the refused value.
pub type EnumClaims<'a> = &'a dyn Fn(&str, &str) -> Option<EnumClaim>;

/// Validates a parsed file (as plain JSON) against the schema of `kind`;
/// one finding per problem, pointing by JSON pointer.
pub fn validate(kind: FileKind, instance: &Json, claims: EnumClaims<'_>, limit: usize) -> Validation {
    let schema = schema(kind);
    let mut out = Validation::default();
    // Seen (target, code, message): a set, so thousands of findings stay linear.
    let mut seen = std::collections::HashSet::new();
    // One more than the limit: whether there were more is itself news (and
    // stays news when duplicates below are dropped).
    let errors = validator::validate(schema, instance, limit.saturating_add(1));
    out.more = errors.len() > limit;
    for error in errors {
        // Past `limit` the rest is only noted: explaining each (a suggestion, a
        // search of the schema) would cost far more than the file is worth.
        if out.findings.len() >= limit {
            out.more = true;
            break;
        }
        let pointer = error.path;
        let found: Vec<Finding> = match &error.kind {
            // One finding per unknown key, each pointing at its own key.
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let room = limit - out.findings.len();
                out.more |= unexpected.len() > room;
                unexpected.iter().take(room).map(|name| unknown_key(name, &pointer, schema, kind)).collect()
            }
            error_kind => {
                let value = instance.pointer(&pointer).unwrap_or(&Json::Null);
                vec![finding_for(error_kind, &pointer, value, schema, kind, claims)]
            }
        };
        for f in found {
            if seen.insert(format!("{:?}\u{0}{}\u{0}{}", f.target, f.code, f.message)) {
                out.findings.push(f);
            }
        }
    }
    out
}

/// What the schema found: the problems explained, and whether there were more.
#[derive(Debug, Default)]
pub struct Validation {
    pub findings: Vec<Finding>,
    /// There were more problems than the limit; they were not looked at.
    pub more: bool,
}

fn target(file: FileKind, pointer: String, key: bool) -> Target {
    if key { Target::key(file, pointer) } else { Target::value(file, pointer) }
}

fn describe(value: &Json, file: FileKind) -> String {
    match value {
        Json::String(s) if crate::secrets::looks_like_secret(s, "").is_some() => {
            "a value that looks like a key (not shown)".into()
        }
        Json::String(s) => format!("\"{s}\""),
        Json::Object(_) if file.is_json() => "an object".into(),
        Json::Object(_) => "a table".into(),
        Json::Array(_) => "an array".into(),
        other => other.to_string(),
    }
}

fn finding_for(
    kind: &ValidationErrorKind,
    pointer: &str,
    instance: &Json,
    schema: &Json,
    file: FileKind,
    claims: EnumClaims<'_>,
) -> Finding {
    use codes::*;
    let sub = schema_at(schema, pointer);
    let key_name = pointer_tokens(pointer).last().unwrap_or_else(|| "file".into());
    let doc = description_at(schema, pointer).map(first_sentence);
    let make = |(code, rule): (&'static str, &'static str), message: String, key: bool| {
        Finding::new(code, rule, Severity::Error, message, target(file, pointer.to_string(), key))
    };
    match kind {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str();
            let prop_doc = sub
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("description").or_else(|| resolve(schema, p).get("description")))
                .and_then(Json::as_str)
                .map(first_sentence);
            let mut f =
                make(MISSING_KEY, format!("missing required key `{name}` in {}", section_name(pointer, file)), false);
            f = f.help(match prop_doc {
                Some(d) => format!("add `{name}`: {d}"),
                None => format!("add `{name}`"),
            });
            f
        }
        ValidationErrorKind::Type { expected } => {
            let expected = expected_type(sub, file).unwrap_or_else(|| expected.join(" or "));
            let mut f =
                make(WRONG_TYPE, format!("`{key_name}` must be {expected}, found {}", describe(instance, file)), false);
            if let Some(d) = doc {
                f = f.help(d);
            }
            f
        }
        ValidationErrorKind::Enum
        | ValidationErrorKind::OneOfNotValid
        | ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::Constant => {
            let options = enum_values(schema, sub);
            if let (true, ValidationErrorKind::AnyOf { context }) = (options.is_empty(), kind) {
                // max_model_len = 0 is an integer out of range, "1.5K" a string of the
                // wrong form: report the alternative the value was written as.
                let same_shape = context.iter().find(|branch| {
                    !branch.is_empty()
                        && branch.iter().all(|e| {
                            !matches!(e.kind, ValidationErrorKind::Type { .. } | ValidationErrorKind::Constant)
                        })
                });
                if let Some(error) = same_shape.and_then(|b| b.first()) {
                    return finding_for(&error.kind, pointer, instance, schema, file, claims);
                }
            }
            if options.is_empty() {
                // An untagged union such as served_model_name: say what shapes fit.
                let mut f =
                    make(WRONG_TYPE, format!("`{key_name}` has the wrong shape: {}", describe(instance, file)), false);
                if let Some(d) = doc {
                    f = f.help(d);
                }
                return f;
            }
            let given = instance.as_str().map(str::to_string).unwrap_or_else(|| describe(instance, file));
            let claim = claims(pointer, &given);
            let mut message = format!("`{given}` is not a valid {key_name}");
            if let Some(note) = claim.as_ref().and_then(|c| c.note.as_deref()) {
                message = format!("{message}: {note}");
            }
            let owner = claim.map_or(INVALID_VALUE, |c| (c.code, c.rule));
            let mut f = make(owner, message, false);
            f = match crate::suggest::alias(&given)
                .filter(|a| options.iter().any(|o| o == a))
                .or_else(|| crate::suggest::nearest(&given, &options))
            {
                Some(best) => f
                    .help(format!("did you mean `{best}`? Valid values: {}", options.join(", ")))
                    .label(format!("did you mean `{best}`?")),
                None => f.help(format!("valid values: {}", options.join(", "))),
            };
            f
        }
        ValidationErrorKind::Minimum { limit } => bound(make, ">=", limit, &key_name, instance, file, doc),
        ValidationErrorKind::ExclusiveMinimum { limit } => bound(make, ">", limit, &key_name, instance, file, doc),
        ValidationErrorKind::Maximum { limit } => bound(make, "<=", limit, &key_name, instance, file, doc),
        ValidationErrorKind::ExclusiveMaximum { limit } => bound(make, "<", limit, &key_name, instance, file, doc),
        ValidationErrorKind::MinLength { limit } => range_finding(
            make(OUT_OF_RANGE, format!("`{key_name}` must have at least {limit} character(s)"), false),
            doc,
        ),
        ValidationErrorKind::MaxLength { limit } => {
            range_finding(make(OUT_OF_RANGE, format!("`{key_name}` is longer than {limit} characters"), false), doc)
        }
        ValidationErrorKind::MinItems { limit } => {
            range_finding(make(OUT_OF_RANGE, format!("`{key_name}` needs at least {limit} item(s)"), false), doc)
        }
        ValidationErrorKind::MaxItems { limit } => {
            range_finding(make(OUT_OF_RANGE, format!("`{key_name}` has more than {limit} items"), false), doc)
        }
        ValidationErrorKind::MinProperties { limit } => range_finding(
            make(
                OUT_OF_RANGE,
                format!("`{key_name}` needs at least {limit} entr{}", if *limit == 1 { "y" } else { "ies" }),
                false,
            ),
            doc,
        ),
        ValidationErrorKind::MaxProperties { limit } => {
            range_finding(make(OUT_OF_RANGE, format!("`{key_name}` has more than {limit} entries"), false), doc)
        }
        ValidationErrorKind::PropertyNames { name, error } => {
            let name = name.clone();
            let at = join_pointer(&pointer_tokens(pointer).chain(std::iter::once(name.clone())).collect::<Vec<_>>());
            let section = section_name(pointer, file);
            match error.as_ref() {
                ValidationErrorKind::MaxLength { limit } | ValidationErrorKind::MinLength { limit } => Finding::new(
                    OUT_OF_RANGE.0,
                    OUT_OF_RANGE.1,
                    Severity::Error,
                    if matches!(error.as_ref(), ValidationErrorKind::MaxLength { .. }) {
                        format!(
                            "the name `{}` is {} characters long; names in {section} have at most {limit}",
                            shorten(&name),
                            name.chars().count()
                        )
                    } else {
                        format!("an empty name in {section}: names have at least {limit} character")
                    },
                    target(file, at, true),
                )
                .help(if matches!(error.as_ref(), ValidationErrorKind::MaxLength { .. }) {
                    "use a shorter name: it labels the class in results, reports and charts"
                } else {
                    "give it a name"
                }),
                _ => Finding::new(
                    INVALID_VALUE.0,
                    INVALID_VALUE.1,
                    Severity::Error,
                    format!("`{name}` is not a valid key in {section}"),
                    target(file, at, true),
                )
                .help("percentile keys are written p50, p95, p99, p99.9, ..."),
            }
        }
        ValidationErrorKind::Pattern { pattern } => {
            let secret = instance.as_str().is_some_and(|v| crate::secrets::looks_like_secret(v, "").is_some());
            if let Some(why) = instance.as_str().filter(|_| !secret).and_then(|text| parser_says(pointer, text)) {
                return range_finding(
                    make(
                        INVALID_VALUE,
                        format!("`{key_name}` = \"{}\": {why}", instance.as_str().unwrap_or_default()),
                        false,
                    ),
                    doc,
                );
            }
            let message = if secret {
                // Diagnostics end up in logs: never echo what looks like a key.
                format!("`{key_name}` holds what looks like a key, not the expected form `{pattern}`")
            } else {
                format!("`{key_name}` value {} does not match the expected form `{pattern}`", describe(instance, file))
            };
            range_finding(make(INVALID_VALUE, message, false), doc)
        }
        _ => {
            let message = format!("`{key_name}` is invalid: {}", describe(instance, file));
            range_finding(make(INVALID_VALUE, message, false), doc)
        }
    }
}

/// For a value with its own parser, what the parser (written to say what vLLM
/// says) makes of it: more use than the pattern it failed.
fn parser_says(pointer: &str, text: &str) -> Option<String> {
    match pointer {
        "/model/max_model_len" => crate::model::MaxModelLen::parse(text).err(),
        _ => None,
    }
}

fn unknown_key(name: &str, pointer: &str, schema: &Json, file: FileKind) -> Finding {
    use codes::UNKNOWN_KEY;
    let known = property_names(schema_at(schema, pointer));
    let at = join_pointer(&pointer_tokens(pointer).chain(std::iter::once(name.to_string())).collect::<Vec<_>>());
    let mut f = Finding::new(
        UNKNOWN_KEY.0,
        UNKNOWN_KEY.1,
        Severity::Error,
        format!("unknown key `{name}` in {}", section_name(pointer, file)),
        target(file, at, true),
    );
    if let Some(home) = known_elsewhere(name, schema, pointer, file) {
        return f
            .help(format!("`{name}` belongs in {home}, not in {}", section_name(pointer, file)))
            .label(format!("move to {home}"));
    }
    f = match crate::suggest::nearest(name, &known) {
        Some(best) => f.help(format!("did you mean `{best}`?")).label(format!("did you mean `{best}`?")),
        None if known.is_empty() => f.help("remove it"),
        None => f.help(format!("valid keys here: {}", known.join(", "))),
    };
    f
}

fn bound(
    make: impl Fn((&'static str, &'static str), String, bool) -> Finding,
    op: &str,
    limit: &Json,
    key_name: &str,
    instance: &Json,
    file: FileKind,
    doc: Option<String>,
) -> Finding {
    let message = format!("`{key_name}` is {}, must be {op} {limit}", describe(instance, file));
    range_finding(make(codes::OUT_OF_RANGE, message, false), doc)
}

fn range_finding(f: Finding, doc: Option<String>) -> Finding {
    match doc {
        Some(d) => f.help(d),
        None => f,
    }
}

/// A section as its file writes it: `[batching]` in TOML, `metrics` in JSON.
fn section_name(pointer: &str, file: FileKind) -> String {
    let path: Vec<String> = pointer_tokens(pointer).collect();
    section_label(&path, file)
}

fn section_label(path: &[String], file: FileKind) -> String {
    match (path.is_empty(), file.is_json()) {
        (true, _) => "the top level".into(),
        (false, false) => format!("`[{}]`", path.join(".")),
        (false, true) => format!("`{}`", path.join(".")),
    }
}

/// First sentence of a description, for help lines.
pub fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut from = 0;
    while let Some(i) = flat[from..].find(". ").map(|i| i + from) {
        let before = &flat[..=i];
        if !(before.ends_with("e.g.") || before.ends_with("i.e.") || before.ends_with("vs.")) {
            return before.to_string();
        }
        from = i + 2;
    }
    flat
}

/// Follows `$ref`, a lone `allOf` and `anyOf [T, null]` to the schema that
/// describes a value (the web app builds its form from what this returns).
pub fn resolve<'a>(root: &'a Json, mut node: &'a Json) -> &'a Json {
    for _ in 0..16 {
        let next = node
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
            .or_else(|| node.get("allOf").and_then(|a| a.get(0)).filter(|_| node.get("properties").is_none()))
            .or_else(|| {
                // Option<T> becomes anyOf [T, null]: look through to T.
                node.get("anyOf").and_then(Json::as_array).and_then(|alts| {
                    let non_null: Vec<&Json> =
                        alts.iter().filter(|a| a.get("type") != Some(&Json::from("null"))).collect();
                    (non_null.len() == 1).then(|| non_null[0])
                })
            });
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node
}

/// What an editor shows for a key: its documentation on hover, and the
/// completion items of a section.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    pub name: String,
    pub description: Option<String>,
    /// The default, as the schema states it.
    pub default: Option<Json>,
    /// The allowed values of an enum.
    pub values: Vec<String>,
    /// The expected type in the file's own words ("an integer", "a table").
    pub expected: Option<String>,
    /// The value is itself a section (a table or an object).
    pub is_section: bool,
}

/// The documentation of the key at an instance pointer.
pub fn key_doc(kind: FileKind, pointer: &str) -> Option<KeyDoc> {
    let root = schema(kind);
    let (written, resolved) = walk_to(root, pointer)?;
    let name = pointer_tokens(pointer).last()?;
    Some(doc_of(root, name, written, resolved, kind))
}

/// The keys a section at an instance pointer may hold, in the schema's order
/// (none for a map of free names, such as the request classes).
pub fn keys_at(kind: FileKind, pointer: &str) -> Vec<KeyDoc> {
    let root = schema(kind);
    let Some(node) = schema_at(root, pointer) else { return Vec::new() };
    let Some(props) = node.get("properties").and_then(Json::as_object) else { return Vec::new() };
    props.iter().map(|(name, written)| doc_of(root, name.clone(), written, resolve(root, written), kind)).collect()
}

fn doc_of(root: &Json, name: String, written: &Json, resolved: &Json, kind: FileKind) -> KeyDoc {
    let field = |key: &str| written.get(key).or_else(|| resolved.get(key));
    KeyDoc {
        name,
        description: field("description").and_then(Json::as_str).map(str::to_string),
        default: field("default").cloned(),
        values: enum_values(root, Some(written)),
        expected: expected_type(Some(resolved), kind),
        is_section: resolved.get("properties").is_some()
            || resolved.get("additionalProperties").is_some_and(Json::is_object),
    }
}

/// The subschema describing the value at an instance pointer.
fn schema_at<'a>(root: &'a Json, pointer: &str) -> Option<&'a Json> {
    walk_to(root, pointer).map(|(_, resolved)| resolved)
}

/// The description of the value at an instance pointer: the property's own
/// (written beside a `$ref`, as for max_model_len), else its type's.
fn description_at<'a>(root: &'a Json, pointer: &str) -> Option<&'a str> {
    let (written, resolved) = walk_to(root, pointer)?;
    written.get("description").or_else(|| resolved.get("description")).and_then(Json::as_str)
}

/// The schema at an instance pointer as the parent writes it, and resolved
/// through `$ref` and the like.
fn walk_to<'a>(root: &'a Json, pointer: &str) -> Option<(&'a Json, &'a Json)> {
    let mut written = root;
    let mut node = resolve(root, root);
    for token in pointer_tokens(pointer) {
        written = node
            .get("properties")
            .and_then(|p| p.get(&token))
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))
            .or_else(|| node.get("items"))?;
        node = resolve(root, written);
    }
    Some((written, node))
}

fn property_names(schema: Option<&Json>) -> Vec<String> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(Json::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn expected_type(schema: Option<&Json>, file: FileKind) -> Option<String> {
    let t = schema?.get("type")?;
    let names: Vec<&str> = match t {
        Json::String(s) => vec![s.as_str()],
        Json::Array(a) => a.iter().filter_map(Json::as_str).filter(|s| *s != "null").collect(),
        _ => return None,
    };
    let words: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            "integer" => "an integer",
            "number" => "a number",
            "string" => "a string",
            "boolean" => "true or false",
            "object" if file.is_json() => "an object",
            "object" => "a table",
            "array" => "an array",
            _ => "valid",
        })
        .collect();
    Some(words.join(" or "))
}

/// The allowed values of an enum schema (`enum`, or `oneOf` of `const`s), also
/// when it is one alternative of an `anyOf` (the quantization names, which are
/// valid in any case too).
pub fn enum_values(root: &Json, schema: Option<&Json>) -> Vec<String> {
    let Some(schema) = schema else { return Vec::new() };
    let schema = resolve(root, schema);
    if let Some(values) = schema.get("enum").and_then(Json::as_array) {
        return values.iter().filter_map(Json::as_str).map(str::to_string).collect();
    }
    if let Some(alts) = schema.get("anyOf").and_then(Json::as_array) {
        return alts.iter().flat_map(|a| enum_values(root, Some(a))).collect();
    }
    schema
        .get("oneOf")
        .and_then(Json::as_array)
        .map(|alts| {
            alts.iter()
                .flat_map(|a| {
                    a.get("const").and_then(Json::as_str).map(|s| vec![s.to_string()]).unwrap_or_else(|| {
                        a.get("enum")
                            .and_then(Json::as_array)
                            .map(|e| e.iter().filter_map(Json::as_str).map(str::to_string).collect())
                            .unwrap_or_default()
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// If an unknown key is a valid key of another section, name that section
/// (`max_num_seqs` written under `[model]` belongs in `[batching]`).
fn known_elsewhere(name: &str, root: &Json, pointer: &str, file: FileKind) -> Option<String> {
    let here: Vec<String> = pointer_tokens(pointer).collect();
    let mut found = None;
    walk_properties(root, resolve(root, root), &mut Vec::new(), &mut |path, props| {
        if found.is_none() && path != here.as_slice() && props.contains_key(name) {
            found = Some(path.to_vec());
        }
    });
    found.map(|path| section_label(&path, file))
}

/// Called with each object schema's path and its properties.
type PropertyVisitor<'a> = dyn FnMut(&[String], &serde_json::Map<String, Json>) + 'a;

fn walk_properties(root: &Json, node: &Json, path: &mut Vec<String>, visit: &mut PropertyVisitor<'_>) {
    if path.len() > 4 {
        return;
    }
    let Some(props) = node.get("properties").and_then(Json::as_object) else { return };
    visit(path, props);
    for (key, sub) in props {
        path.push(key.clone());
        walk_properties(root, resolve(root, sub), path, visit);
        path.pop();
    }
}

/// A long name cut to fit a one-line message.
fn shorten(name: &str) -> String {
    if name.chars().count() <= 40 { name.to_string() } else { name.chars().take(37).collect::<String>() + "..." }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_draft07_and_describe_every_property() {
        for kind in FileKind::ALL {
            let s = schema(kind);
            assert_eq!(s["$schema"], "http://json-schema.org/draft-07/schema#");
            assert!(!schema_text(kind).contains("\"format\": \"uint"), "{kind:?}");
        }
        fn walk(root: &Json, node: &Json, at: &str) {
            if let Some(props) = node.get("properties").and_then(Json::as_object) {
                for (name, p) in props {
                    let has_doc = p.get("description").is_some() || resolve(root, p).get("description").is_some();
                    assert!(has_doc, "{at}/{name} has no description");
                    walk(root, resolve(root, p), &format!("{at}/{name}"));
                }
            }
        }
        walk(schema(FileKind::Config), resolve(schema(FileKind::Config), schema(FileKind::Config)), "");
        walk(schema(FileKind::Settings), schema(FileKind::Settings), "");
    }
}
