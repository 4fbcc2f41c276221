//! The `received` text of faults and errors (spec §6).

use std::borrow::Cow;

use super::code_points;
use super::number::number_to_string;
use crate::constants::PREVIEW_LIMIT;
use crate::value::{Node, View};

/// Appends the JSON escape token of one code point, as `JSON.stringify` writes it.
pub fn push_json_escape(out: &mut String, c: u32) {
    match c {
        0x22 => out.push_str("\\\""),
        0x5C => out.push_str("\\\\"),
        0x08 => out.push_str("\\b"),
        0x0C => out.push_str("\\f"),
        0x0A => out.push_str("\\n"),
        0x0D => out.push_str("\\r"),
        0x09 => out.push_str("\\t"),
        0x00..=0x1F | 0xD800..=0xDFFF => out.push_str(&format!("\\u{c:04x}")),
        _ => out.push(char::from_u32(c).unwrap_or('\u{FFFD}')),
    }
}

/// The UTF-16 length of a code point's JSON escape token.
fn escape_width(c: u32) -> usize {
    match c {
        0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => 2,
        0x00..=0x1F | 0xD800..=0xDFFF => 6,
        0x10000.. => 2,
        _ => 1,
    }
}

/// A JSON-quoted string preview, cut near [`PREVIEW_LIMIT`] UTF-16 units with `…`.
pub fn preview_string(bytes: &[u8]) -> String {
    // Printable ASCII with nothing to escape, short enough to keep whole: the text itself,
    // quoted, without a step per code point.
    if plain(bytes) {
        let mut text = Vec::with_capacity(bytes.len() + 2);
        text.push(b'"');
        text.extend_from_slice(bytes);
        text.push(b'"');
        return String::from_utf8(text).unwrap_or_default();
    }
    let mut text = String::with_capacity(bytes.len().min(PREVIEW_LIMIT) + 4);
    text.push('"');
    let mut units = 1;
    for c in code_points(bytes) {
        let width = escape_width(c);
        if units + width > PREVIEW_LIMIT {
            text.push('…');
            return text;
        }
        push_json_escape(&mut text, c);
        units += width;
    }
    text.push(if units < PREVIEW_LIMIT { '"' } else { '…' });
    text
}

/// Printable ASCII with nothing to escape, short enough for its preview to be kept whole.
fn plain(bytes: &[u8]) -> bool {
    bytes.len() + 1 < PREVIEW_LIMIT
        && bytes
            .iter()
            .all(|&b| (0x20..0x7F).contains(&b) && b != b'"' && b != b'\\')
}

/// The preview of a string as a fault's `received`: a short plain one is quoted in place.
pub fn preview_received(bytes: &[u8]) -> Received {
    if bytes.len() + 2 <= INLINE && plain(bytes) {
        let mut quoted = [0u8; INLINE];
        quoted[0] = b'"';
        quoted[1..=bytes.len()].copy_from_slice(bytes);
        quoted[bytes.len() + 1] = b'"';
        return Received::Inline(bytes.len() as u8 + 2, quoted);
    }
    Received::Text(preview_string(bytes))
}

const INLINE: usize = 22;

/// The `received` text of a value (spec §6 `preview`).
pub fn preview<N: Node>(value: &N) -> String {
    preview_view(&value.view())
}

/// The `received` text of a classified value.
pub fn preview_view(view: &View<'_>) -> String {
    match Received::of(view) {
        Received::Text(text) => text,
        received => received.text().into_owned(),
    }
}

/// The `received` text of a fault, kept as what it is written from until it is read.
#[derive(Clone, Debug, PartialEq)]
pub enum Received {
    /// Text already written (a string's preview).
    Text(String),
    /// A short string's preview (printable ASCII), its length and bytes, kept without an
    /// allocation.
    Inline(u8, [u8; INLINE]),
    /// A number, written as ECMAScript `String(n)` when read.
    Number(f64),
    /// A fixed word: `"null"`, `"true"`, `"array"`, a kind name.
    Word(&'static str),
}

impl Received {
    /// The preview of a classified value.
    pub fn of(view: &View<'_>) -> Received {
        match view {
            View::Null => Received::Word("null"),
            View::Bool(b) => Received::Word(if *b { "true" } else { "false" }),
            View::Int(_) | View::Float(_) => Received::Number(view.number().unwrap_or(f64::NAN)),
            View::Str(text) => preview_received(text),
            View::Array => Received::Word("array"),
            View::Object => Received::Word("object"),
            View::Other(kind) => Received::Word(kind),
        }
    }

    /// The text.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Received::Text(text) => Cow::Borrowed(text),
            Received::Inline(len, bytes) => {
                String::from_utf8_lossy(&bytes[..usize::from(*len).min(INLINE)])
            }
            Received::Number(n) => Cow::Owned(number_to_string(*n)),
            Received::Word(word) => Cow::Borrowed(word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_cuts() {
        assert_eq!(preview_string(b"hi"), "\"hi\"");
        assert_eq!(preview_string(b"a\"\n\x01"), "\"a\\\"\\n\\u0001\"");
        let body62 = "a".repeat(62);
        assert_eq!(preview_string(body62.as_bytes()), format!("\"{body62}\""));
        let body63 = "a".repeat(63);
        assert_eq!(preview_string(body63.as_bytes()), format!("\"{body63}…"));
        let long = "b".repeat(100);
        assert_eq!(
            preview_string(long.as_bytes()),
            format!("\"{}…", "b".repeat(63))
        );
        assert_eq!(preview_string(b"a\\b\x7f"), "\"a\\\\b\u{7f}\"");
        let lone = [0xED, 0xA0, 0x80];
        assert_eq!(preview_string(&lone), "\"\\ud800\"");
    }
    #[test]
    fn a_received_string_reads_as_its_preview() {
        let alphabet: [&[u8]; 8] = [b"a", b"Z", b" ", b"~", b"\"", b"\\", b"\n", "é".as_bytes()];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut inline = 0;
        for _ in 0..20_000 {
            crate::testing::xorshift(&mut state);
            let len = (state % 26) as usize;
            let mut text = Vec::new();
            for at in 0..len {
                let pick = (state >> (at % 60)) % 64;
                text.extend_from_slice(
                    alphabet[if pick < 58 {
                        (pick % 4) as usize
                    } else {
                        (pick % 8) as usize
                    }],
                );
            }
            let received = preview_received(&text);
            inline += usize::from(matches!(received, Received::Inline(..)));
            assert_eq!(received.text(), preview_string(&text), "{text:?}");
        }
        assert!(inline > 1000, "{inline}");
    }
}
