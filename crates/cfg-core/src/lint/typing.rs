//! The typed file from its validated JSON. The schema and the types agree on
//! nearly everything; where they do not (a whole number written `32.0` passes
//! the schema's `integer` but not a `u32`), the file must not pass silently:
//! the value's position comes from the deserializer's path and becomes a
//! diagnostic.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diagnostic::{Finding, Severity, Target};
use crate::kind::FileKind;
use crate::schema::codes;
use crate::tree::{escape_token, pointer_tokens};

/// The typed file, or the finding that says which value it could not take.
pub fn typed<T: DeserializeOwned>(json: &Value, kind: FileKind) -> Result<T, Box<Finding>> {
    serde_path_to_error::deserialize(json).map_err(|e| {
        let pointer: String = e
            .path()
            .iter()
            .map(|seg| match seg {
                serde_path_to_error::Segment::Seq { index } => format!("/{index}"),
                serde_path_to_error::Segment::Map { key } => format!("/{}", escape_token(key)),
                serde_path_to_error::Segment::Enum { variant } => format!("/{}", escape_token(variant)),
                serde_path_to_error::Segment::Unknown => String::new(),
            })
            .collect();
        let key = pointer_tokens(&pointer).last().unwrap_or_else(|| "file".into());
        let value = pointer_value(json, &pointer);
        let whole = value.and_then(Value::as_f64).filter(|v| v.fract() == 0.0 && v.is_finite());
        let (message, help) = match whole {
            Some(v) if e.inner().to_string().contains("floating point") => (
                format!(
                    "`{key}` must be a whole number written without a decimal point, found {}",
                    value.map_or(String::new(), Value::to_string)
                ),
                format!("write {v:.0}"),
            ),
            _ => (
                format!("`{key}` cannot be read: {}", e.inner()),
                "give the value in the type the schema describes (`cfg-lint schema`)".to_string(),
            ),
        };
        Box::new(
            Finding::new(
                codes::WRONG_TYPE.0,
                codes::WRONG_TYPE.1,
                Severity::Error,
                message,
                Target::value(kind, pointer),
            )
            .help(help),
        )
    })
}

fn pointer_value<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer_tokens(pointer).try_fold(root, |node, token| match node {
        Value::Object(map) => map.get(&token),
        Value::Array(items) => items.get(token.parse::<usize>().ok()?),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LoadTestSettings;

    #[test]
    fn a_whole_number_written_as_a_float_is_named_at_its_key() {
        let json = serde_json::json!({
            "endpoint": "http://127.0.0.1:8000/v1/completions", "model": "m", "concurrency": 32.0,
            "duration_seconds": 10, "request_distribution": {"a": {"weight": 1, "input_tokens": 10, "output_tokens": 5}}
        });
        let f = typed::<LoadTestSettings>(&json, FileKind::Settings).unwrap_err();
        assert_eq!(f.target, Target::settings("/concurrency"));
        assert!(
            f.message.contains("`concurrency` must be a whole number") && f.message.contains("32.0"),
            "{}",
            f.message
        );
        assert_eq!(f.help.as_deref(), Some("write 32"));
    }
}
