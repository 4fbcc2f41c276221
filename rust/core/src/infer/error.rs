//! Errors of JSON and JSON Lines input.

use std::fmt;

/// Why a piece of JSON text could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    End,
    Unexpected,
    Trailing,
    Key,
    Colon,
    ObjectSeparator,
    ArraySeparator,
    Number,
    Unterminated,
    Control,
    Escape,
    Utf8,
    TooLong,
}

impl Reason {
    /// A short, stable code for the reason.
    pub fn code(self) -> &'static str {
        match self {
            Reason::End => "truncated",
            Reason::Unexpected => "unexpected",
            Reason::Trailing => "trailing",
            Reason::Key => "key",
            Reason::Colon => "colon",
            Reason::ObjectSeparator | Reason::ArraySeparator => "separator",
            Reason::Number => "number",
            Reason::Unterminated => "unterminated",
            Reason::Control => "control",
            Reason::Escape => "escape",
            Reason::Utf8 => "utf8",
            Reason::TooLong => "too-long",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::End => "unexpected end of input",
            Reason::Unexpected => "unexpected character",
            Reason::Trailing => "unexpected content after the value",
            Reason::Key => "expected a string key",
            Reason::Colon => "expected ':' after a key",
            Reason::ObjectSeparator => "expected ',' or '}'",
            Reason::ArraySeparator => "expected ',' or ']'",
            Reason::Number => "invalid number",
            Reason::Unterminated => "unterminated string",
            Reason::Control => "control character in a string",
            Reason::Escape => "invalid escape sequence",
            Reason::Utf8 => "invalid UTF-8",
            Reason::TooLong => "input too long",
        })
    }
}

/// A syntax error at a byte offset of the parsed text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub reason: Reason,
}

/// A bad line (or document position): 1-based line and byte column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: u64,
    pub column: u64,
    pub reason: Reason,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.reason
        )
    }
}

impl LineError {
    /// Locates a syntax error inside a document by counting newlines before it.
    pub fn locate(text: &[u8], error: SyntaxError) -> LineError {
        let before = &text[..error.offset.min(text.len())];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        LineError {
            line,
            column: (before.len() - start) as u64 + 1,
            reason: error.reason,
        }
    }
}
