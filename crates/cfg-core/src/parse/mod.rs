//! Parsers that keep spans: TOML through `toml`'s spanned document API, JSON
//! through a small strict parser of our own (serde_json forgets positions).

mod json;
mod toml;

pub use json::parse_json;
pub use toml::parse_toml;

use std::ops::Range;

/// Largest file the linter reads. Real configs are a few hundred bytes; this
/// bounds the work an accidental (or hostile) input can cause.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Deepest nesting of arrays/tables accepted. The deepest file, result.json,
/// nests five levels; 64 leaves room and still bounds the parsers' recursion.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Range<usize>,
    pub help: Option<String>,
}

/// Refuses inputs that are too large or too deeply nested before a parser
/// recurses into them. The depth scan is lexical (brackets outside strings and
/// comments), so it runs in one pass whatever the input.
pub(crate) fn check_limits(text: &str, comment: Option<u8>) -> Result<(), SyntaxError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(SyntaxError {
            message: format!("file is {} bytes; the limit is {} bytes", text.len(), MAX_FILE_BYTES),
            span: 0..0,
            help: Some(
                "a config or settings file is a few kilobytes at most; check that this is the right file".into(),
            ),
        });
    }
    let mut depth = 0usize;
    for (i, b) in structure(text, comment) {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(SyntaxError {
                        message: format!("nesting deeper than {MAX_DEPTH} levels"),
                        span: i..i + 1,
                        help: Some("config and settings files nest a few levels; this input is not one of them".into()),
                    });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Most values (keys and array items) a config or settings file may hold. The
/// largest real ones hold a few hundred; a file with tens of thousands is
/// generated or hostile, and parsing and explaining each of them is where the
/// time would go. (result.json, written by the runner, has no such limit.)
pub const MAX_VALUES: usize = 10_000;

/// Refuses a file with more than [`MAX_VALUES`] values, counted lexically
/// before parsing: a TOML key's `=` and the `,` between JSON members and array
/// items, outside strings and comments.
pub fn check_value_count(text: &str, comment: Option<u8>) -> Result<(), SyntaxError> {
    let mut separators = structure(text, comment).filter(|&(_, b)| matches!(b, b'=' | b','));
    match separators.nth(MAX_VALUES) {
        None => Ok(()),
        Some((i, _)) => Err(SyntaxError {
            message: format!("more than {MAX_VALUES} values"),
            span: i..i + 1,
            help: Some(
                "a config or settings file holds a few hundred values at most; check that this is the right file"
                    .into(),
            ),
        }),
    }
}

/// The bytes outside strings and comments, with their offsets: what a lexical
/// scan of structure needs, in one pass.
fn structure(text: &str, comment: Option<u8>) -> impl Iterator<Item = (usize, u8)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0usize;
    let mut quote: Option<u8> = None;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let at = i;
            let b = bytes[i];
            i += 1;
            match quote {
                Some(q) => {
                    if b == b'\\' && q == b'"' {
                        i += 1;
                    } else if b == q || b == b'\n' {
                        quote = None;
                    }
                }
                None if Some(b) == comment => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                None if b == b'"' || b == b'\'' => quote = Some(b),
                None => return Some((at, b)),
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings_and_comments() {
        let members =
            |n: usize| format!("{{{}}}", (0..n).map(|i| format!("\"k{i}\": 1")).collect::<Vec<_>>().join(","));
        assert!(check_value_count(&members(MAX_VALUES), None).is_ok(), "{MAX_VALUES} members are allowed");
        let many = members(MAX_VALUES + 2);
        let err = check_value_count(&many, None).unwrap_err();
        assert_eq!(err.message, format!("more than {MAX_VALUES} values"));
        // The error points at the separator that passed the limit.
        assert_eq!(&many[err.span.clone()], ",");
        let quoted = format!("{{\"k\": \"{}\"}}", ",".repeat(MAX_VALUES * 2));
        assert!(check_value_count(&quoted, None).is_ok());
        let commented = format!("a = 1 # {}\n", "=".repeat(MAX_VALUES * 2));
        assert!(check_value_count(&commented, Some(b'#')).is_ok());
    }
}
