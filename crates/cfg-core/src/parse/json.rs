//! A strict RFC 8259 JSON parser that records the byte span of every key and
//! value. No comments, no trailing commas, no duplicate keys: editors and
//! serde_json would disagree on those, so we reject them with a position.

use super::{SyntaxError, check_limits};
use crate::tree::{Entry, Node, Value};

pub fn parse_json(text: &str) -> Result<Node, SyntaxError> {
    check_limits(text, None)?;
    let mut p = Parser { text, bytes: text.as_bytes(), pos: 0 };
    p.skip_bom();
    p.skip_ws();
    if p.pos == p.bytes.len() {
        return Err(p.error_at(
            p.pos..p.pos,
            "the file is empty; expected a JSON object",
            Some("start with `{` and the settings keys; `cfg-lint init` writes a starter file"),
        ));
    }
    let node = p.value()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error_at(
            p.pos..p.pos + 1,
            "unexpected text after the end of the JSON value",
            Some("a JSON file holds exactly one value; remove what follows it"),
        ));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_bom(&mut self) {
        if self.text.starts_with('\u{feff}') {
            self.pos = 3;
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn error_at(&self, span: std::ops::Range<usize>, message: &str, help: Option<&str>) -> SyntaxError {
        SyntaxError { message: format!("invalid JSON: {message}"), span, help: help.map(str::to_string) }
    }

    fn unexpected(&self, expected: &str) -> SyntaxError {
        match self.text[self.pos..].chars().next() {
            None => self.error_at(
                self.pos..self.pos,
                &format!("unexpected end of file, expected {expected}"),
                Some("the file ends too early: close every `{` and `[`"),
            ),
            Some(c) => {
                let help = match c {
                    '/' | '#' => Some("JSON has no comments; remove them"),
                    '}' | ']' => Some("JSON allows no trailing comma before a closing bracket"),
                    '\'' => Some("JSON strings use double quotes"),
                    _ => None,
                };
                self.error_at(
                    self.pos..self.pos + c.len_utf8(),
                    &format!(
                        "unexpected character `{}`, expected {expected}",
                        if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }
                    ),
                    help,
                )
            }
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.bytes.get(self.pos) == Some(&b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        let value = match self.bytes.get(self.pos) {
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(),
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.keyword("true", Value::Bool(true))?,
            Some(b'f') => self.keyword("false", Value::Bool(false))?,
            Some(b'n') => self.keyword("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.unexpected("a value")),
        };
        Ok(Node::new(value, start..self.pos))
    }

    fn keyword(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected("a value"))
        }
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        self.eat(b'-');
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - s
        };
        let int_start = self.pos;
        if digits(self) == 0 {
            return Err(self.unexpected("a digit"));
        }
        if self.bytes[int_start] == b'0' && self.pos - int_start > 1 {
            return Err(self.error_at(int_start..self.pos, "numbers may not have leading zeros", None));
        }
        let mut integer = true;
        if self.eat(b'.') {
            integer = false;
            if digits(self) == 0 {
                return Err(self.unexpected("a digit after the decimal point"));
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if digits(self) == 0 {
                return Err(self.unexpected("a digit in the exponent"));
            }
        }
        let text = &self.text[start..self.pos];
        if integer && let Ok(n) = text.parse::<i64>() {
            return Ok(Value::Integer(n));
        }
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Value::Float(x)),
            _ => Err(self.error_at(start..self.pos, "number out of range", None)),
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let Some(c) = rest.chars().next() else {
                return Err(self.error_at(open..self.pos, "unterminated string", Some("close the string with `\"`")));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\\' => {
                    let esc_start = self.pos;
                    self.pos += 1;
                    let e = self.bytes.get(self.pos).copied();
                    self.pos += 1;
                    match e {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4(esc_start)?;
                            let code = if (0xD800..0xDC00).contains(&hi) && self.text[self.pos..].starts_with("\\u") {
                                self.pos += 2;
                                let lo = self.hex4(esc_start)?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.error_at(esc_start..self.pos, "invalid surrogate pair", None));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(ch) => out.push(ch),
                                None => return Err(self.error_at(esc_start..self.pos, "invalid unicode escape", None)),
                            }
                        }
                        _ => {
                            let end = self.pos.min(self.bytes.len());
                            return Err(self.error_at(
                                esc_start..end,
                                "invalid escape sequence",
                                Some("valid escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
                            ));
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    return Err(self.error_at(
                        self.pos..self.pos + 1,
                        "control character inside a string",
                        Some("write line breaks as \\n"),
                    ));
                }
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn hex4(&mut self, esc_start: usize) -> Result<u32, SyntaxError> {
        let digits = self.text.get(self.pos..self.pos + 4).filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits {
            Some(d) => {
                self.pos += 4;
                Ok(u32::from_str_radix(d, 16).unwrap_or(0xFFFD))
            }
            None => Err(self.error_at(
                esc_start..self.pos.min(self.bytes.len()),
                "\\u must be followed by four hex digits",
                None,
            )),
        }
    }

    fn array(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if !self.eat(b']') {
            loop {
                self.skip_ws();
                items.push(self.value()?);
                self.skip_ws();
                if self.eat(b']') {
                    break;
                }
                if !self.eat(b',') {
                    return Err(self.unexpected("`,` or `]`"));
                }
            }
        }
        Ok(Node::new(Value::Array(items), start..self.pos))
    }

    fn object(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut entries: Vec<Entry> = Vec::new();
        // Keys seen, as a set: an object of a hundred thousand keys stays linear.
        let mut keys = std::collections::HashSet::new();
        self.skip_ws();
        if !self.eat(b'}') {
            loop {
                self.skip_ws();
                if self.bytes.get(self.pos) != Some(&b'"') {
                    return Err(self.unexpected("a quoted key"));
                }
                let key_start = self.pos;
                let key = self.string()?;
                let key_span = key_start..self.pos;
                if !keys.insert(key.clone()) {
                    return Err(self.error_at(
                        key_span,
                        &format!("duplicate key `{key}`"),
                        Some("each key may appear once per object; delete or rename one of them"),
                    ));
                }
                self.skip_ws();
                if !self.eat(b':') {
                    return Err(self.unexpected("`:`"));
                }
                self.skip_ws();
                let value = self.value()?;
                entries.push(Entry { key, key_span, value });
                self.skip_ws();
                if self.eat(b'}') {
                    break;
                }
                if !self.eat(b',') {
                    return Err(self.unexpected("`,` or `}`"));
                }
            }
        }
        Ok(Node::new(Value::Object(entries), start..self.pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_spans() {
        let src = r#"{"a": {"b": [1, 2.5, "x\u00e9"]}, "c": null}"#;
        let root = parse_json(src).unwrap();
        let b1 = root.locate("/a/b/1").unwrap();
        assert_eq!(&src[b1.node.span.clone()], "2.5");
        assert_eq!(&src[root.locate("/a/b").unwrap().key_span.unwrap()], "\"b\"");
        assert_eq!(root.to_json(), serde_json::json!({"a": {"b": [1, 2.5, "xé"]}, "c": null}));
    }

    #[test]
    fn rejects_what_editors_would_disagree_on() {
        for bad in [
            "",
            "{",
            "{\"a\":1,}",
            "{\"a\":1 // c\n}",
            "{'a':1}",
            "{\"a\":01}",
            "{\"a\":1,\"a\":2}",
            "[1] 2",
            "\"\\x\"",
            "{\"a\":\"\u{1}\"}",
            "1e999",
        ] {
            let err = parse_json(bad).unwrap_err();
            assert!(err.span.end <= bad.len(), "{bad:?}: {err:?}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_spans_still_count_from_the_file_start() {
        let text = "\u{feff}{\"a\": 1}";
        let root = parse_json(text).expect("a BOM before the object is accepted");
        let located = root.locate("/a").expect("key a");
        assert_eq!(&text[located.node.span.clone()], "1");
    }

    #[test]
    fn garbage_is_refused_with_a_span_inside_the_text() {
        let samples: Vec<String> =
            vec!["\"\\ud800\\u0041\"".into(), "\"\\u12".into(), "-".into(), "[".repeat(70), "\u{ff}".into()];
        for s in samples {
            let err = parse_json(&s).expect_err(&s);
            assert!(err.span.start <= err.span.end && err.span.end <= s.len(), "{s:?}: {err:?}");
        }
    }
}
