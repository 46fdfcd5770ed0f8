use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{SyntaxError, check_limits, check_value_count};
use crate::tree::{Entry, Node, Value};

/// Parses TOML into a spanned tree. Datetimes become RFC 3339 strings (none of
/// our keys takes one, so the schema reports them as wrong types).
pub fn parse_toml(text: &str) -> Result<Node, SyntaxError> {
    check_limits(text, Some(b'#'))?;
    check_value_count(text, Some(b'#'))?;
    let (table, mut errors) = DeTable::parse_recoverable(text);
    // The parser reports errors in the order it finds them, not file order.
    errors.sort_by_key(|e| e.span().map_or(usize::MAX, |s| s.start));
    let first = errors.into_iter().next();
    match first.map_or(Ok(table), Err) {
        Ok(table) => {
            let span = table.span();
            Ok(Node::new(Value::Object(convert_table(table.get_ref())), 0..text.len().max(span.end.min(text.len()))))
        }
        Err(err) => {
            let span = err.span().unwrap_or(0..0);
            let message = err.message().trim().to_string();
            Err(SyntaxError { message: format!("invalid TOML: {message}"), span, help: syntax_help(&message) })
        }
    }
}

fn syntax_help(message: &str) -> Option<String> {
    let help = if message.contains("duplicate key") {
        "each key may appear once per table; delete or rename one of them"
    } else if message.contains("string") {
        "TOML strings are quoted: key = \"value\""
    } else {
        "see https://toml.io for the syntax; keys look like `name = value` under `[section]` headers"
    };
    Some(help.to_string())
}

fn convert_table(table: &DeTable<'_>) -> Vec<Entry> {
    table
        .iter()
        .map(|(key, value)| Entry { key: key.get_ref().to_string(), key_span: key.span(), value: convert(value) })
        .collect()
}

fn convert(value: &Spanned<DeValue<'_>>) -> Node {
    let span = value.span();
    let v = match value.get_ref() {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => {
            let digits = i.as_str().replace('_', "");
            match i64::from_str_radix(&digits, i.radix()) {
                Ok(n) => Value::Integer(n),
                // Out of i64 range: keep the magnitude so the schema reports "too large".
                Err(_) => Value::Float(digits.parse::<f64>().unwrap_or(f64::MAX)),
            }
        }
        DeValue::Float(f) => {
            let text = f.as_str().replace('_', "");
            let parsed = match text.trim_start_matches(['+', '-']) {
                "inf" => Some(if text.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY }),
                "nan" => Some(f64::NAN),
                _ => text.parse::<f64>().ok(),
            };
            match parsed {
                Some(x) if x.is_finite() => Value::Float(x),
                // JSON has no inf/nan; a string makes the schema say "expected number".
                _ => Value::String(text),
            }
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::String(d.to_string()),
        DeValue::Array(items) => Value::Array(items.iter().map(convert).collect()),
        DeValue::Table(t) => Value::Object(convert_table(t)),
    };
    Node::new(v, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_and_value_spans() {
        let src = "[batching]\nmax_num_seqs = 256\n";
        let root = parse_toml(src).unwrap();
        let found = root.locate("/batching/max_num_seqs").unwrap();
        assert_eq!(&src[found.node.span.clone()], "256");
        assert_eq!(&src[found.key_span.unwrap()], "max_num_seqs");
        assert_eq!(&src[root.locate("/batching").unwrap().node.span.clone()], "[batching]");
    }

    #[test]
    fn reports_syntax_errors_with_a_span() {
        let err = parse_toml("[a]\nx = = 1\n").unwrap_err();
        assert!(err.span.start >= 4, "{err:?}");
        assert!(parse_toml("a = 1\na = 2\n").unwrap_err().message.contains("duplicate"));
    }

    #[test]
    fn refuses_deep_nesting_without_recursing() {
        let deep = format!("a = {}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_toml(&deep).unwrap_err().message.contains("nesting"));
    }
}
