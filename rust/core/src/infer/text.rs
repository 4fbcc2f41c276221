//! JavaScript string and number semantics over (WTF-8) byte strings: UTF-16 ordering and
//! length, `JSON.stringify` quoting, `String(number)` and array-index keys.

use std::cmp::Ordering;

/// Decodes the code point starting at `i` (lone surrogates included) and its byte length.
fn decode_at(text: &[u8], i: usize) -> (u32, usize) {
    let lead = text[i];
    let (len, init) = match lead {
        0x00..=0x7F => return (u32::from(lead), 1),
        0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
        0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
        0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
        _ => return (u32::from(lead), 1),
    };
    let mut code = init;
    for k in 1..len {
        match text.get(i + k) {
            Some(&b) if b & 0xC0 == 0x80 => code = (code << 6) | u32::from(b & 0x3F),
            _ => return (u32::from(lead), 1),
        }
    }
    (code, len)
}

/// The first UTF-16 code unit of a code point, then the code point itself as a tie-break.
fn unit_key(code: u32) -> (u32, u32) {
    if code >= 0x1_0000 {
        (0xD800 + ((code - 0x1_0000) >> 10), code)
    } else {
        (code, code)
    }
}

/// Compares two strings as JavaScript's `<` does: by UTF-16 code units.
pub fn cmp_utf16(a: &[u8], b: &[u8]) -> Ordering {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if same == a.len() || same == b.len() {
        return a.len().cmp(&b.len());
    }
    let mut start = same;
    while start > 0 && a[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    let (ca, _) = decode_at(a, start);
    let (cb, _) = decode_at(b, start);
    unit_key(ca).cmp(&unit_key(cb))
}

fn word(s: &[u8], at: usize) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&s[at..at + 8]);
    u64::from_ne_bytes(raw)
}

/// Byte equality tuned for short keys (no library call below 17 bytes).
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0..=7 => a.iter().zip(b).all(|(x, y)| x == y),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// Length in UTF-16 code units (`String.prototype.length`).
pub fn utf16_len(text: &[u8]) -> usize {
    text.iter()
        .map(|&b| match b {
            0x80..=0xBF => 0,
            0xF0..=0xFF => 2,
            _ => 1,
        })
        .sum()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` quoted as `JSON.stringify` writes it (lone surrogates as `\udxxx`).
pub fn push_quoted(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let short = match b {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            0x08 => Some(b'b'),
            0x0C => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            _ => None,
        };
        if let Some(c) = short {
            out.extend_from_slice(&[b'\\', c]);
            i += 1;
        } else if b < 0x20 {
            out.extend_from_slice(b"\\u00");
            out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            i += 1;
        } else if b == 0xED && text.get(i + 1).is_some_and(|&n| n >= 0xA0) {
            let (code, len) = decode_at(text, i);
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((code >> shift) & 15) as usize]);
            }
            i += len;
        } else {
            out.push(b);
            i += 1;
        }
    }
    out.push(b'"');
}

pub use crate::text::number::push_number;

/// `String(x)` as an owned string.
pub fn number_text(x: f64) -> String {
    let mut out = Vec::new();
    push_number(&mut out, x);
    String::from_utf8(out).unwrap_or_default()
}

use crate::text::keys::array_index;

/// Orders keys as `Object.keys` enumerates a record whose keys were inserted sorted:
/// array-index keys first by value, then the rest in UTF-16 order.
pub fn cmp_enumeration(a: &[u8], b: &[u8]) -> Ordering {
    match (array_index(a), array_index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => cmp_utf16(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_order_puts_astral_before_high_bmp() {
        let mut keys: Vec<&[u8]> = vec!["～".as_bytes(), "😀".as_bytes(), b"a"];
        keys.sort_by(|a, b| cmp_utf16(a, b));
        assert_eq!(
            keys,
            vec![b"a".as_slice(), "😀".as_bytes(), "～".as_bytes()]
        );
        assert_eq!(cmp_utf16(b"ab", b"abc"), Ordering::Less);
        assert_eq!(cmp_utf16("é".as_bytes(), b"z"), Ordering::Greater);
    }

    #[test]
    fn numbers_print_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (5e-324, "5e-324"),
            (-0.0, "0"),
            (-3.25, "-3.25"),
            (123456.789, "123456.789"),
            (9007199254740991.0, "9007199254740991"),
            (4.940656458412466e-24, "4.940656458412466e-24"),
            (1.5e300, "1.5e+300"),
            (100.0, "100"),
        ];
        for &(x, text) in cases {
            assert_eq!(number_text(x), text, "{x}");
        }
    }

    #[test]
    fn quoting_matches_json_stringify() {
        let mut out = Vec::new();
        push_quoted(&mut out, b"a\"b\\\n\x01\x7f");
        assert_eq!(out, b"\"a\\\"b\\\\\\n\\u0001\x7f\"");
        out.clear();
        push_quoted(&mut out, b"\xed\xa0\x80");
        assert_eq!(out, b"\"\\ud800\"");
    }

    #[test]
    fn array_index_keys() {
        assert_eq!(array_index(b"0"), Some(0));
        assert_eq!(array_index(b"4294967294"), Some(4294967294));
        assert_eq!(array_index(b"4294967295"), None);
        assert_eq!(array_index(b"01"), None);
        assert_eq!(array_index(b"-1"), None);
        assert_eq!(array_index(b""), None);
        assert_eq!(cmp_enumeration(b"10", b"9"), Ordering::Greater);
        assert_eq!(cmp_enumeration(b"9", b"A"), Ordering::Less);
        assert_eq!(utf16_len("a😀é".as_bytes()), 4);
    }
}
