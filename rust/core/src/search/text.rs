//! Code-point arithmetic over UTF-8 text, and 1-based line/column positions.
//!
//! Text arrives as bytes: UTF-8, or the "surrogate pass" encoding Python uses for strings that
//! hold lone surrogates (each encodes as a three-byte sequence). In both, a code point is one
//! byte that is not a continuation byte, so counting those bytes counts code points, and offsets
//! in code points index a Python `str` directly.

/// Counts the code points in `bytes`.
pub fn count_points(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| !is_continuation(byte)).count()
}

/// Counts the line breaks (`\n`) in `bytes`.
pub fn count_breaks(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Whether `at` falls between two code points of `text` (or at either end).
pub fn is_boundary(text: &[u8], at: usize) -> bool {
    match text.get(at) {
        None => at == text.len(),
        Some(&byte) => !is_continuation(byte),
    }
}

/// The byte offset of the code point after the one starting at `at`.
pub fn next_point(text: &[u8], at: usize) -> usize {
    let mut next = at + 1;
    while next < text.len() && is_continuation(text[next]) {
        next += 1;
    }
    next
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// A position pulled inside a text: its 1-based line and column (columns count code points)
/// and the code-point offset it designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// Clamps a 1-based `line`/`column` into `text` and gives its code-point offset.
///
/// Lines split at `\n` only, so a text with no line break is one line and an empty text has one
/// empty line. A line past the last becomes the last; a column past a line's end becomes the
/// column just after its last code point; zero becomes one.
pub fn locate(text: &[u8], line: usize, column: usize) -> Located {
    let wanted = line.max(1);
    let mut start = 0;
    let mut found = 1;
    for newline in memchr::memchr_iter(b'\n', text) {
        if found == wanted {
            break;
        }
        start = newline + 1;
        found += 1;
    }
    let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |at| start + at);
    let column = column.clamp(1, count_points(&text[start..end]) + 1);
    Located {
        line: found,
        column,
        offset: count_points(&text[..start]) + column - 1,
    }
}
