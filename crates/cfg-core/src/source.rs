//! A file's text with its line index, so byte offsets turn into 1-based
//! line/column pairs without rescanning.

/// A 1-based line and column; columns count Unicode scalar values, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// For text that is not ASCII: the characters before every [`MARK`]-th
    /// byte (rounded up to a character), so a column costs at most a mark's
    /// worth of counting, however long its line.
    char_marks: Option<Vec<usize>>,
}

/// Bytes between two character-count marks.
const MARK: usize = 1024;

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let char_marks = (!text.is_ascii()).then(|| {
            let mut marks = Vec::with_capacity(text.len() / MARK + 1);
            let mut next = 0;
            for (chars, (i, _)) in text.char_indices().enumerate() {
                while i >= next {
                    marks.push(chars);
                    next += MARK;
                }
            }
            marks
        });
        SourceFile { name: name.into(), text, line_starts, char_marks }
    }

    /// Characters before byte `offset` (a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        let Some(marks) = &self.char_marks else { return offset };
        let Some(last) = marks.len().checked_sub(1) else { return self.text[..offset].chars().count() };
        let i = (offset / MARK).min(last);
        // marks[i] counts the characters before the first boundary at or after i x MARK.
        let mut at = i * MARK;
        while !self.text.is_char_boundary(at) {
            at += 1;
        }
        match offset.checked_sub(at) {
            Some(_) => marks[i] + self.text[at..offset].chars().count(),
            None => self.text[..offset].chars().count(),
        }
    }

    /// 1-based line and column of a byte offset (clamped into the file and onto
    /// a character boundary, so any offset is safe).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        LineCol { line: line + 1, column: self.chars_before(offset) - self.chars_before(start) + 1 }
    }

    /// The byte range of a 1-based line, without its line break (empty past the end).
    pub fn line_span(&self, line: usize) -> std::ops::Range<usize> {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else { return self.text.len()..self.text.len() };
        let end = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        start..start + self.text[start..end].trim_end_matches(['\n', '\r']).len()
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let f = SourceFile::new("x", "ab\nçd\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(f.line_col(4), LineCol { line: 2, column: 1 }, "inside a multibyte char");
        assert_eq!(f.line_col(999), LineCol { line: 3, column: 1 });
        assert_eq!(&f.text[f.line_span(2)], "çd");
        assert_eq!(f.line_span(9), 7..7, "past the end: empty, at the end");
    }

    #[test]
    fn columns_on_long_lines_of_any_text_count_characters() {
        // Multibyte characters straddling the marks, on one long line.
        let text: String = "aé€😀".repeat(3000);
        let f = SourceFile::new("x", text.clone());
        for (offset, _) in text.char_indices().step_by(97) {
            let want = text[..offset].chars().count() + 1;
            assert_eq!(f.line_col(offset).column, want, "at byte {offset}");
        }
    }
}
