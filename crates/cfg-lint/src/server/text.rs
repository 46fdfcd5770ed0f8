//! Positions as the editor counts them and byte offsets as the core does.
//! LSP positions are (line, character) with characters in UTF-16 code units
//! unless both sides agree on UTF-8; every conversion clamps, so a position
//! past the end of a line (or of the file) is the end, never a panic.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// How the client counts characters within a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// The byte offset of an editor position in `text`.
pub fn offset(text: &str, position: Position, encoding: Encoding) -> usize {
    let mut start = 0;
    for _ in 0..position.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[start..line_end];
    let want = position.character as usize;
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= want {
            return start + i;
        }
        units += match encoding {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        };
    }
    line_end
}

/// The editor position of a byte offset in `text` (clamped onto a character).
pub fn position(text: &str, offset: usize, encoding: Encoding) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count();
    let character: usize = match encoding {
        Encoding::Utf8 => offset - line_start,
        Encoding::Utf16 => before[line_start..].chars().map(char::len_utf16).sum(),
    };
    Position { line: u32::try_from(line).unwrap_or(u32::MAX), character: u32::try_from(character).unwrap_or(u32::MAX) }
}

pub fn range(text: &str, span: &std::ops::Range<usize>, encoding: Encoding) -> Range {
    Range { start: position(text, span.start, encoding), end: position(text, span.end, encoding) }
}

/// Applies an editor's change (a range replaced, or the whole text) in place.
pub fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent, encoding: Encoding) {
    match change.range {
        Some(r) => {
            let start = offset(text, r.start, encoding);
            let end = offset(text, r.end, encoding).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_and_utf8_columns_round_trip() {
        let text = "a = \"é😀x\"\nb = 1\n";
        let x = text.find('x').unwrap();
        assert_eq!(position(text, x, Encoding::Utf16), pos(0, 8));
        assert_eq!(position(text, x, Encoding::Utf8), pos(0, 11));
        assert_eq!(offset(text, pos(0, 8), Encoding::Utf16), x);
        assert_eq!(offset(text, pos(0, 11), Encoding::Utf8), x);
        assert_eq!(offset(text, pos(1, 2), Encoding::Utf16), text.find("= 1").unwrap());
    }

    #[test]
    fn positions_past_the_end_clamp() {
        let text = "ab\ncd";
        assert_eq!(offset(text, pos(0, 99), Encoding::Utf16), 2);
        assert_eq!(offset(text, pos(9, 0), Encoding::Utf16), text.len());
        assert_eq!(position(text, 999, Encoding::Utf16), pos(1, 2));
        // Inside a surrogate pair: the character's start.
        assert_eq!(offset("😀b", pos(0, 1), Encoding::Utf16), 4);
    }

    #[test]
    fn changes_replace_ranges_and_whole_texts() {
        let mut text = "max_model_len = 8192\n".to_string();
        let change =
            |range, text: &str| TextDocumentContentChangeEvent { range, range_length: None, text: text.into() };
        apply_change(&mut text, change(Some(Range { start: pos(0, 16), end: pos(0, 20) }), "10240"), Encoding::Utf16);
        assert_eq!(text, "max_model_len = 10240\n");
        apply_change(&mut text, change(None, "x"), Encoding::Utf16);
        assert_eq!(text, "x");
    }
}
