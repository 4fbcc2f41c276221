//! JavaScript string semantics over WTF-8 bytes: UTF-16 lengths, whitespace, previews,
//! number text and object key order.
//!
//! Strings travel through the core as bytes so that lone surrogates (legal in JavaScript
//! and in Python, not in Rust `str`) survive: they are encoded as three-byte sequences.

pub mod keys;
pub mod number;
pub mod preview;
pub mod pyjson;

/// Iterates the code points of WTF-8 bytes; a malformed byte reads as U+FFFD.
pub fn code_points(bytes: &[u8]) -> CodePoints<'_> {
    CodePoints { bytes, at: 0 }
}

/// Iterator returned by [`code_points`].
pub struct CodePoints<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Iterator for CodePoints<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let lead = *self.bytes.get(self.at)?;
        let (width, init) = match lead {
            0x00..=0x7F => (1, u32::from(lead)),
            0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
            0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
            0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
            _ => {
                self.at += 1;
                return Some(0xFFFD);
            }
        };
        let mut value = init;
        for offset in 1..width {
            match self.bytes.get(self.at + offset) {
                Some(&b) if b & 0xC0 == 0x80 => value = (value << 6) | u32::from(b & 0x3F),
                _ => {
                    self.at += offset;
                    return Some(0xFFFD);
                }
            }
        }
        self.at += width;
        Some(value)
    }
}

/// The length of a string in code points, as JSON Schema counts `minLength`/`maxLength` (a
/// lone surrogate, three WTF-8 bytes, is one).
pub fn char_len(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The JavaScript `length` of a string: its count of UTF-16 code units.
pub fn utf16_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Whether a code point is JavaScript whitespace or a line terminator (`String.prototype.trim`).
pub fn is_js_space(c: u32) -> bool {
    matches!(
        c,
        0x09..=0x0D
            | 0x20
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// The width in bytes of the WTF-8 sequence that starts with `lead`.
fn width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Removes JavaScript whitespace from both ends, as `String.prototype.trim` does.
pub fn trim(bytes: &[u8]) -> &[u8] {
    // Every non-ASCII JavaScript space starts with a byte of 0x80 or more, so ASCII ends
    // that are not ASCII spaces are kept as they are.
    // The usual ends, printable ASCII, are told apart in one comparison each; control bytes
    // that are not spaces are solid too.
    let solid =
        |b: u8| (0x21..0x80).contains(&b) || (b < 0x21 && !matches!(b, b'\t'..=b'\r' | b' '));
    if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
        if solid(first) && solid(last) {
            return bytes;
        }
    }
    let mut start = 0;
    while start < bytes.len() {
        let step = width(bytes[start]);
        match code_points(&bytes[start..]).next() {
            Some(c) if is_js_space(c) => start += step,
            _ => break,
        }
    }
    let mut end = bytes.len();
    while end > start {
        let mut lead = end - 1;
        while lead > start && bytes[lead] & 0xC0 == 0x80 {
            lead -= 1;
        }
        match code_points(&bytes[lead..end]).next() {
            Some(c) if is_js_space(c) => end = lead,
            _ => break,
        }
    }
    &bytes[start..end]
}

/// Encodes a code point (surrogates included) as WTF-8.
pub fn push_code_point(out: &mut Vec<u8>, c: u32) {
    if c < 0x80 {
        out.push(c as u8);
    } else if c < 0x800 {
        out.extend_from_slice(&[0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]);
    } else if c < 0x10000 {
        out.extend_from_slice(&[
            0xE0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3F) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]);
    }
}

/// Lossy UTF-8 text of WTF-8 bytes, for messages.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
