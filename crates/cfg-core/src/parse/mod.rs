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
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
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
            None => match b {
                b'"' | b'\'' => quote = Some(b),
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(SyntaxError {
                            message: format!("nesting deeper than {MAX_DEPTH} levels"),
                            span: i..i + 1,
                            help: Some(
                                "config and settings files nest a few levels; this input is not one of them".into(),
                            ),
                        });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        i += 1;
    }
    Ok(())
}
