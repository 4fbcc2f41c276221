//! [`Source`] over a parsed tape: values are read straight from the input bytes.

use std::borrow::Cow;

use super::escape::unescape;
use super::json::Json;
use super::source::{Kind, NumberClass, Source};
use super::tape::{
    Tape, Tok, ARRAY, ESCAPED, EXPONENT, FALSE, FRACTION, NULL, NUMBER, OBJECT, STRING, TRUE,
};
use super::terms;

/// A value on a tape.
#[derive(Clone, Copy)]
pub struct Parsed<'a> {
    toks: &'a [Tok],
    buf: &'a [u8],
    at: u32,
}

impl<'a> Parsed<'a> {
    /// The root value of a tape filled from `buf`.
    pub fn root(tape: &'a Tape, buf: &'a [u8]) -> Parsed<'a> {
        Parsed {
            toks: &tape.toks,
            buf,
            at: 0,
        }
    }

    fn tok(self) -> Tok {
        self.toks[self.at as usize]
    }

    fn raw(self) -> &'a [u8] {
        let t = self.tok();
        &self.buf[t.a as usize..(t.a + t.b) as usize]
    }

    fn next(self) -> u32 {
        let t = self.tok();
        // Without a branch: whether a value is a container is as good as random.
        let container = 0u32.wrapping_sub(u32::from(t.tag >= ARRAY));
        (t.a & container) | ((self.at + 1) & !container)
    }

    fn at(self, at: u32) -> Parsed<'a> {
        Parsed { at, ..self }
    }
}

/// The masks that keep the first `n` of 16 bytes loaded as two little-endian words.
pub(crate) const HEAD_MASKS: [[u64; 2]; 17] = {
    let mut masks = [[0u64; 2]; 17];
    let mut n = 0;
    while n <= 16 {
        let low = if n >= 8 { u64::MAX } else { (1 << (8 * n)) - 1 };
        let high = match n {
            16 => u64::MAX,
            9..=15 => (1 << (8 * (n - 8))) - 1,
            _ => 0,
        };
        masks[n] = [low, high];
        n += 1;
    }
    masks
};

/// [`Source::key_head`] of the key token `t`: most keys are short and followed by more input,
/// two loads and a mask; the rest go to `slow`.
#[inline(always)]
fn key_head_of(buf: &[u8], t: Tok, slow: impl FnOnce() -> (usize, [u64; 2])) -> (usize, [u64; 2]) {
    key_head_fast(buf, t).unwrap_or_else(slow)
}

/// [`key_head_of`] for a short key followed by more input; `None` for any other.
#[inline(always)]
fn key_head_fast(buf: &[u8], t: Tok) -> Option<(usize, [u64; 2])> {
    let (start, len) = (t.a as usize, t.b as usize);
    match buf.get(start..start + 16) {
        Some(bytes) if len <= 16 && t.flag & ESCAPED == 0 => {
            let word = |at: usize| {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(&bytes[at..at + 8]);
                u64::from_le_bytes(raw)
            };
            let [low, high] = HEAD_MASKS[len];
            Some((len, [word(0) & low, word(8) & high]))
        }
        _ => None,
    }
}

/// [`Source::key_head`] of a long or escaped key, or one at the very end of the input: out of
/// line, so the common case keeps the key in registers.
#[cold]
#[inline(never)]
fn key_head_slow(key: Parsed<'_>) -> (usize, [u64; 2]) {
    let text = key.text();
    (text.len(), super::fields::pack(&text))
}

/// Parses the double of a validated JSON number literal.
fn parse_f64(text: &[u8]) -> f64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// Classifies a JSON number literal, parsing it only when the digits cannot decide.
#[inline(always)]
pub(crate) fn classify(text: &[u8], flag: u8) -> NumberClass {
    // The common case inline: an integer literal with fewer digits than any that can overflow.
    if flag == 0 && text.len() <= 308 {
        return NumberClass::Integer;
    }
    classify_other(text, flag)
}

/// [`classify`] for fractions, exponents and long integers.
fn classify_other(text: &[u8], flag: u8) -> NumberClass {
    // A short fraction whose last digit is not zero has a fraction, as reading every digit
    // after the point below would find.
    if flag == FRACTION && text.len() <= 16 && text.last() != Some(&b'0') {
        return NumberClass::Fraction;
    }
    let body = text.strip_prefix(b"-").unwrap_or(text);
    if flag == 0 {
        return match body.len() {
            0..=308 => NumberClass::Integer,
            309 => NumberClass::of(parse_f64(text)),
            _ => NumberClass::NonFinite,
        };
    }
    if flag == FRACTION && body.len() <= 16 {
        let fraction = body
            .iter()
            .position(|&b| b == b'.')
            .map_or(&[][..], |p| &body[p + 1..]);
        return if fraction.iter().all(|&b| b == b'0') {
            NumberClass::Integer
        } else {
            NumberClass::Fraction
        };
    }
    NumberClass::of(parse_f64(text))
}

/// [`Source::leaf`] of the token `t` of a tape filled from `buf`.
#[inline(always)]
fn tok_leaf(buf: &[u8], t: Tok) -> Option<u32> {
    // Indexed by tag: the leaf of a literal or a string; numbers and containers below.
    const LEAVES: [u32; 8] = [
        terms::NULL,
        terms::BOOLEAN,
        terms::BOOLEAN,
        terms::EMPTY,
        terms::STRING,
        terms::EMPTY,
        terms::EMPTY,
        terms::EMPTY,
    ];
    match t.tag {
        ARRAY | OBJECT => None,
        NUMBER => {
            let raw = &buf[t.a as usize..(t.a + t.b) as usize];
            Some(match classify(raw, t.flag & (FRACTION | EXPONENT)) {
                NumberClass::Integer => terms::INTEGER,
                NumberClass::Fraction => terms::NUMBER,
                NumberClass::NonFinite => terms::EMPTY,
            })
        }
        tag => Some(LEAVES.get(tag as usize).copied().unwrap_or(terms::EMPTY)),
    }
}

/// Iterates the children of a container.
pub struct Children<'a> {
    node: Parsed<'a>,
    left: u32,
}

impl<'a> Iterator for Children<'a> {
    type Item = Parsed<'a>;

    fn next(&mut self) -> Option<Parsed<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let item = self.node;
        self.node = item.at(item.next());
        Some(item)
    }
}

/// Iterates the entries of an object.
pub struct Entries<'a> {
    node: Parsed<'a>,
    left: u32,
}

impl<'a> Iterator for Entries<'a> {
    type Item = (Option<Parsed<'a>>, Parsed<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.node;
        let value = key.at(key.at + 1);
        self.node = value.at(value.next());
        Some((Some(key), value))
    }
}

impl<'a> Source<'a> for Parsed<'a> {
    type Items = Children<'a>;
    type Key = Parsed<'a>;
    type Entries = Entries<'a>;
    type StringEntries = std::iter::Empty<(Parsed<'a>, Parsed<'a>)>;

    fn key_text(key: Parsed<'a>) -> Cow<'a, [u8]> {
        key.text()
    }

    #[inline]
    fn key_head(key: Parsed<'a>) -> (usize, [u64; 2]) {
        key_head_of(key.buf, key.tok(), move || key_head_slow(key))
    }

    /// The trait's walk over the tape itself: the object's tokens are one slice, so each key
    /// and the value after it are read with one bounds check, and nothing but the entry count
    /// and the position of the next key is carried from one entry to the next.
    #[inline(always)]
    fn all_key_leaves<const HEADS: bool>(
        self,
        mut check: impl FnMut(usize, usize, [u64; 2], Option<u32>, Parsed<'a>) -> bool,
        mut long: impl FnMut(usize, Parsed<'a>) -> bool,
    ) -> bool {
        let t = self.tok();
        let first = self.at + 1;
        // The object's own tokens: keys and values, the values' descendants included.
        let Some(inner) = self.toks.get(first as usize..t.a as usize) else {
            return false;
        };
        let mut i = 0usize;
        for pos in 0..t.b as usize {
            let (Some(k), Some(value)) = (inner.get(i), inner.get(i + 1)) else {
                return false;
            };
            let leaf = tok_leaf(self.buf, *value);
            let item = self.at(first + i as u32 + 1);
            // The common case apart, so its key head stays in registers.
            let passed = match HEADS.then(|| key_head_fast(self.buf, *k)) {
                None => check(pos, 0, [0; 2], leaf, item),
                Some(Some((len, head))) => check(pos, len, head, leaf, item),
                Some(None) => {
                    let key = self.at(first + i as u32);
                    let (len, head) = key_head_slow(key);
                    (len <= 16 || long(pos, key)) && check(pos, len, head, leaf, item)
                }
            };
            if !passed {
                return false;
            }
            // The next key follows the value, or everything a container value holds.
            i = if value.tag >= ARRAY {
                (value.a - first) as usize
            } else {
                i + 2
            };
        }
        true
    }

    #[inline]
    fn kind(self) -> Kind {
        let t = self.tok();
        match t.tag {
            NULL => Kind::Null,
            TRUE | FALSE => Kind::Boolean,
            NUMBER => Kind::Number(classify(self.raw(), t.flag & (FRACTION | EXPONENT))),
            STRING => Kind::String,
            ARRAY => Kind::Array,
            OBJECT => Kind::Object,
            _ => Kind::Other,
        }
    }

    #[inline]
    fn leaf(self) -> Option<u32> {
        tok_leaf(self.buf, self.tok())
    }

    fn number(self) -> f64 {
        parse_f64(self.raw())
    }

    fn number_exact(self) -> bool {
        let raw = self.raw();
        if self.tok().flag != 0 || raw.len() <= 15 {
            return true;
        }
        std::str::from_utf8(raw)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .is_some_and(|v| v.unsigned_abs() <= 1 << 53)
    }

    fn text(self) -> Cow<'a, [u8]> {
        let raw = self.raw();
        if self.tok().flag & ESCAPED != 0 {
            Cow::Owned(unescape(raw))
        } else {
            Cow::Borrowed(raw)
        }
    }

    fn len(self) -> usize {
        self.tok().b as usize
    }

    fn items(self) -> Children<'a> {
        Children {
            node: self.at(self.at + 1),
            left: self.tok().b,
        }
    }

    fn entries(self) -> Entries<'a> {
        Entries {
            node: self.at(self.at + 1),
            left: self.tok().b,
        }
    }

    /// Never: a parsed object may repeat a key, and is read by `entries` alone.
    fn string_entries(self) -> Option<Self::StringEntries> {
        None
    }

    fn identity(self) -> Option<usize> {
        None
    }

    fn duplicate_keys() -> bool {
        true
    }
}

impl<'a> Parsed<'a> {
    /// The value under `key` when this is an object (the last duplicate wins).
    pub fn get(self, key: &str) -> Option<Parsed<'a>> {
        if self.kind() != Kind::Object {
            return None;
        }
        self.entries()
            .filter(|(k, _)| k.is_some_and(|k| *k.text() == *key.as_bytes()))
            .map(|(_, v)| v)
            .last()
    }

    /// Converts the value into an owned [`Json`] tree, giving up (`None`) past `depth` levels.
    pub fn to_json(self, depth: u32) -> Option<Json> {
        Some(match self.kind() {
            Kind::Null => Json::Null,
            Kind::Boolean => Json::Bool(self.tok().tag == TRUE),
            Kind::Number(NumberClass::Integer) if self.tok().flag == 0 => {
                let x = self.number();
                std::str::from_utf8(self.raw())
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                    .map_or(Json::Float(x), Json::Int)
            }
            Kind::Number(_) => Json::Float(self.number()),
            Kind::String => Json::Str(self.text().into_owned().into()),
            Kind::Array => Json::Array(
                self.items()
                    .map(|item| item.to_json(depth.checked_sub(1)?))
                    .collect::<Option<_>>()?,
            ),
            Kind::Object => Json::Object(
                self.entries()
                    .map(|(k, v)| {
                        let k = k?.text().into_owned().into();
                        Some((k, v.to_json(depth.checked_sub(1)?)?))
                    })
                    .collect::<Option<_>>()?,
            ),
            Kind::Temporal(_) | Kind::Other => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Parsed, Source};
    use crate::infer::fields::pack;
    use crate::infer::source::leaf_of;
    use crate::infer::tape::Tape;

    #[test]
    fn key_head_is_the_packed_key_text() {
        for n in 0..24 {
            let key: String = (0..n)
                .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
                .collect();
            for (spelling, tail) in [(key.clone(), ""), (key.clone(), " , \"pad\": [1, 2, 3]")] {
                let line = format!("{{\"{spelling}\": 1{tail}}}");
                let mut tape = Tape::default();
                tape.parse(line.as_bytes()).unwrap();
                let root = Parsed::root(&tape, line.as_bytes());
                let (k, _) = root.entries().next().unwrap();
                let head = Parsed::key_head(k.unwrap());
                assert_eq!(head, (n, pack(key.as_bytes())), "{line}");
            }
        }
        // An escaped key is unescaped first.
        let line = br#"{"\u0061bc": 1}"#;
        let mut tape = Tape::default();
        tape.parse(line).unwrap();
        let (k, _) = Parsed::root(&tape, line).entries().next().unwrap();
        assert_eq!(Parsed::key_head(k.unwrap()), (3, pack(b"abc")));
    }

    #[test]
    fn short_fractions_classify_by_their_digits() {
        use super::{classify, FRACTION};
        use crate::infer::source::NumberClass;
        for text in [
            "0.5",
            "-0.5",
            "1.0",
            "-1.00",
            "7.392",
            "25.0",
            "100.000000000000",
            "1.0000000000001",
            "-1.000000000000010",
            "12345678.90000000",
            "0.00000000000000",
            "3.14159265358979",
        ] {
            let fraction = text.split('.').nth(1).unwrap_or("");
            let expected = if fraction.bytes().all(|b| b == b'0') {
                NumberClass::Integer
            } else {
                NumberClass::Fraction
            };
            assert_eq!(classify(text.as_bytes(), FRACTION), expected, "{text}");
        }
    }

    #[test]
    fn leaf_agrees_with_kind() {
        let line = br#"[null, true, false, 0, -0, 1.5, 2.0, 1e400, 1e2, "s", "\u00e9", [], {}, [1], {"a": 1}]"#;
        let mut tape = Tape::default();
        tape.parse(line).unwrap();
        for item in Parsed::root(&tape, line).items() {
            // The trait's default `leaf`, which maps `kind`.
            assert_eq!(item.leaf(), leaf_of(item.kind()));
        }
    }
}
