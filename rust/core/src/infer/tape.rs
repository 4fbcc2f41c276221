//! A strict JSON (RFC 8259, as `JSON.parse` reads it) parser into a flat token tape.
//!
//! The tape is reused from line to line, so parsing allocates nothing in steady state and no
//! value tree is ever built. Nesting is handled with an explicit stack: any depth parses.

use super::error::{Reason, SyntaxError};

pub(crate) const NULL: u8 = 0;
pub(crate) const TRUE: u8 = 1;
pub(crate) const FALSE: u8 = 2;
pub(crate) const NUMBER: u8 = 3;
pub(crate) const STRING: u8 = 4;
pub(crate) const KEY: u8 = 5;
pub(crate) const ARRAY: u8 = 6;
pub(crate) const OBJECT: u8 = 7;

/// Number flags.
pub(crate) const FRACTION: u8 = 1;
pub(crate) const EXPONENT: u8 = 2;
/// String flag: the raw text holds escapes.
pub(crate) const ESCAPED: u8 = 1;

/// One token. Scalars point into the input (`a` = start, `b` = length); containers hold the
/// index just past their last token (`a`) and their child count (`b`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    pub tag: u8,
    pub flag: u8,
    pub a: u32,
    pub b: u32,
}

#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub tok: u32,
    pub count: u32,
    pub object: bool,
}

/// A reusable token buffer.
#[derive(Default)]
pub struct Tape {
    pub(crate) toks: Vec<Tok>,
    pub(crate) stack: Vec<Frame>,
    /// The last line read, for [`Tape::parse_like_last`].
    pub(crate) shapes: super::shape::Shapes,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Index of the first `"`, `\\` or control byte at or after `i` (or the end), and whether a
/// byte with the high bit set was seen on the way (possibly also a few bytes past the index:
/// a hint that the text may not be ASCII, never a miss).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn scan(buf: &[u8], mut i: usize) -> (usize, bool) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let mut high = 0;
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics always exist; every
    // load reads the 16 bytes at `i..i + 16`, inside `buf` (checked by the loop condition),
    // and an unaligned load is allowed anywhere.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let control = _mm_set1_epi8(0x1f);
        while i + 16 <= buf.len() {
            let v = _mm_loadu_si128(buf.as_ptr().add(i).cast());
            // An unsigned byte is at most 0x1f exactly when max(byte, 0x1f) is 0x1f.
            let low = _mm_cmpeq_epi8(_mm_max_epu8(v, control), control);
            let stop = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                low,
            );
            let hits = _mm_movemask_epi8(stop);
            let top = _mm_movemask_epi8(v);
            if hits != 0 {
                let at = hits.trailing_zeros();
                high |= top & ((1 << at) - 1);
                return (i + at as usize, high != 0);
            }
            high |= top;
            i += 16;
        }
    }
    let (at, seen) = scan_words(buf, i);
    (at, seen || high != 0)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn scan(buf: &[u8], i: usize) -> (usize, bool) {
    scan_words(buf, i)
}

/// [`scan`] eight bytes at a time, without SIMD instructions.
#[inline]
fn scan_words(buf: &[u8], mut i: usize) -> (usize, bool) {
    let mut high = 0u64;
    while let Some(chunk) = buf.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        high |= w;
        let q = w ^ (LO * u64::from(b'"'));
        let s = w ^ (LO * u64::from(b'\\'));
        let hits = (q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (w.wrapping_sub(LO * 0x20) & !w);
        let hits = hits & HI;
        if hits != 0 {
            return (i + (hits.trailing_zeros() / 8) as usize, high & HI != 0);
        }
        i += 8;
    }
    while let Some(&b) = buf.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        high |= u64::from(b);
        i += 1;
    }
    (i, high & HI != 0)
}

/// `std::str::from_utf8(bytes).is_ok()` with SIMD: std checks a byte at a time past ASCII,
/// which cost the fast paths 1.3 to 1.8 instructions a byte on lines with non-ASCII text. Out of
/// line, as inlined it grew the walks that only call it for such lines.
#[inline(never)]
pub(super) fn is_utf8(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// Skips JSON whitespace; in `LINES` mode a newline ends the line instead.
#[inline]
fn skip_ws<const LINES: bool>(buf: &[u8], mut i: usize) -> usize {
    loop {
        match buf.get(i) {
            Some(b' ' | b'\t' | b'\r') => i += 1,
            Some(b'\n') if !LINES => i += 1,
            _ => return i,
        }
    }
}

/// Token offsets are 32-bit: a value may not reach past 4 GiB.
#[inline]
fn offset(i: usize) -> Result<u32, SyntaxError> {
    u32::try_from(i).map_err(|_| SyntaxError {
        offset: 0,
        reason: Reason::TooLong,
    })
}

fn fail<T>(offset: usize, reason: Reason) -> Result<T, SyntaxError> {
    Err(SyntaxError { offset, reason })
}

/// The index of the first byte at or after `i` that is not an ASCII digit (or the end).
#[inline]
fn digits(buf: &[u8], mut i: usize) -> usize {
    // Eight bytes at a time: a byte is a digit when its value minus `'0'` is below 10.
    while let Some(chunk) = buf.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let t = u64::from_le_bytes(word) ^ (LO * u64::from(b'0'));
        // High bit of each byte set when that byte of `t` is at least 10 (no carry crosses
        // bytes: each byte is at most 0x7f + 0x76 before the `|`).
        let other = (((t & !HI) + LO * 0x76) | t) & HI;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while buf.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

impl Tape {
    /// Parses exactly one value spanning `buf` (surrounding whitespace allowed).
    pub fn parse(&mut self, buf: &[u8]) -> Result<(), SyntaxError> {
        if buf.len() > u32::MAX as usize {
            return fail(0, Reason::TooLong);
        }
        self.toks.clear();
        self.stack.clear();
        let end = self.value::<false>(buf, 0)?;
        let end = skip_ws::<false>(buf, end);
        if end < buf.len() {
            return fail(end, Reason::Trailing);
        }
        Ok(())
    }

    /// Parses the one value of a JSON Lines line that starts at `buf[0]` (after leading
    /// blanks); returns the index of the line's `\n` (or the end of `buf`).
    pub(crate) fn parse_line(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        self.toks.clear();
        self.stack.clear();
        let ended = |mut e: SyntaxError| {
            if buf.get(e.offset) == Some(&b'\n') {
                e.reason = match e.reason {
                    Reason::Control => Reason::Unterminated,
                    _ => Reason::End,
                };
            }
            e
        };
        let end = self.value::<true>(buf, 0).map_err(ended)?;
        let end = skip_ws::<true>(buf, end);
        match buf.get(end) {
            None | Some(b'\n') => Ok(end),
            Some(_) => fail(end, Reason::Trailing),
        }
    }

    fn value<const LINES: bool>(
        &mut self,
        buf: &[u8],
        mut pos: usize,
    ) -> Result<usize, SyntaxError> {
        'value: loop {
            pos = skip_ws::<LINES>(buf, pos);
            let Some(&b) = buf.get(pos) else {
                return fail(pos, Reason::End);
            };
            match b {
                b'{' | b'[' => {
                    let object = b == b'{';
                    let tok = offset(self.toks.len())?;
                    let tag = if object { OBJECT } else { ARRAY };
                    self.toks.push(Tok {
                        tag,
                        flag: 0,
                        a: 0,
                        b: 0,
                    });
                    pos = skip_ws::<LINES>(buf, pos + 1);
                    let close = if object { b'}' } else { b']' };
                    if buf.get(pos) == Some(&close) {
                        self.toks[tok as usize].a = self.toks.len() as u32;
                        pos += 1;
                    } else {
                        self.stack.push(Frame {
                            tok,
                            count: 1,
                            object,
                        });
                        if object {
                            pos = self.key::<LINES>(buf, pos)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => pos = self.string(buf, pos, STRING)?,
                b't' => pos = self.literal(buf, pos, b"true", TRUE)?,
                b'f' => pos = self.literal(buf, pos, b"false", FALSE)?,
                b'n' => pos = self.literal(buf, pos, b"null", NULL)?,
                b'-' | b'0'..=b'9' => pos = self.number(buf, pos)?,
                _ => return fail(pos, Reason::Unexpected),
            }
            loop {
                let Some(&frame) = self.stack.last() else {
                    return Ok(pos);
                };
                pos = skip_ws::<LINES>(buf, pos);
                match buf.get(pos) {
                    Some(b',') => {
                        if let Some(top) = self.stack.last_mut() {
                            top.count += 1;
                        }
                        pos += 1;
                        if frame.object {
                            pos = self.key::<LINES>(buf, skip_ws::<LINES>(buf, pos))?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if frame.object => {}
                    Some(b']') if !frame.object => {}
                    Some(_) => {
                        let reason = if frame.object {
                            Reason::ObjectSeparator
                        } else {
                            Reason::ArraySeparator
                        };
                        return fail(pos, reason);
                    }
                    None => return fail(pos, Reason::End),
                }
                self.stack.pop();
                let end = self.toks.len() as u32;
                let tok = &mut self.toks[frame.tok as usize];
                tok.a = end;
                tok.b = frame.count;
                pos += 1;
            }
        }
    }

    fn key<const LINES: bool>(&mut self, buf: &[u8], pos: usize) -> Result<usize, SyntaxError> {
        match buf.get(pos) {
            Some(b'"') => {}
            Some(_) => return fail(pos, Reason::Key),
            None => return fail(pos, Reason::End),
        }
        let pos = skip_ws::<LINES>(buf, self.string(buf, pos, KEY)?);
        match buf.get(pos) {
            Some(b':') => Ok(pos + 1),
            Some(_) => fail(pos, Reason::Colon),
            None => fail(pos, Reason::End),
        }
    }

    #[inline(always)]
    pub(super) fn literal<const N: usize>(
        &mut self,
        buf: &[u8],
        pos: usize,
        word: &[u8; N],
        tag: u8,
    ) -> Result<usize, SyntaxError> {
        // A fixed-length compare: no call to `memcmp` for four or five bytes.
        if buf.get(pos..pos + N) != Some(&word[..]) {
            return fail(pos, Reason::Unexpected);
        }
        // Where the literal is, for `shape`: a line's offsets past 4 GiB are never read there,
        // so one there is kept truncated rather than refused.
        self.toks.push(Tok {
            tag,
            flag: 0,
            a: pos as u32,
            b: N as u32,
        });
        Ok(pos + N)
    }

    #[inline(always)]
    pub(super) fn number(&mut self, buf: &[u8], start: usize) -> Result<usize, SyntaxError> {
        let (i, flag) = number_end(buf, start)?;
        self.toks.push(Tok {
            tag: NUMBER,
            flag,
            a: offset(start)?,
            b: offset(i - start)?,
        });
        Ok(i)
    }

    pub(super) fn string(
        &mut self,
        buf: &[u8],
        open: usize,
        tag: u8,
    ) -> Result<usize, SyntaxError> {
        let start = open + 1;
        let mut i = start;
        let mut flag = 0;
        let mut high = false;
        loop {
            let (at, seen) = scan(buf, i);
            i = at;
            high |= seen;
            match buf.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    flag = ESCAPED;
                    i = escape(buf, i)?;
                }
                Some(_) => return fail(i, Reason::Control),
                None => return fail(open, Reason::Unterminated),
            }
        }
        let text = &buf[start..i];
        if high {
            if let Err(e) = std::str::from_utf8(text) {
                return fail(start + e.valid_up_to(), Reason::Utf8);
            }
        }
        self.toks.push(Tok {
            tag,
            flag,
            a: offset(start)?,
            b: offset(i - start)?,
        });
        Ok(i + 1)
    }
}

/// Validates the escape at `i` (a backslash) and returns the index after it.
fn escape(buf: &[u8], i: usize) -> Result<usize, SyntaxError> {
    match buf.get(i + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
        Some(b'u') => match buf.get(i + 2..i + 6) {
            Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => Ok(i + 6),
            _ => fail(i, Reason::Escape),
        },
        Some(_) => fail(i, Reason::Escape),
        None => fail(i, Reason::Unterminated),
    }
}

/// The end of the number that starts at `buf[start]`, and its flags.
#[inline(always)]
pub(super) fn number_end(buf: &[u8], start: usize) -> Result<(usize, u8), SyntaxError> {
    let mut i = start + usize::from(buf.get(start) == Some(&b'-'));
    match buf.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(buf, i + 1),
        _ => return fail(start, Reason::Number),
    }
    let mut flag = 0;
    if buf.get(i) == Some(&b'.') {
        let after = digits(buf, i + 1);
        if after == i + 1 {
            return fail(start, Reason::Number);
        }
        i = after;
        flag |= FRACTION;
    }
    if let Some(b'e' | b'E') = buf.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = buf.get(i) {
            i += 1;
        }
        let after = digits(buf, i);
        if after == i {
            return fail(start, Reason::Number);
        }
        i = after;
        flag |= EXPONENT;
    }
    Ok((i, flag))
}

#[cfg(test)]
mod tests {
    use super::super::structural::tests::Rng;
    use super::{digits, is_utf8, scan, scan_words};

    #[test]
    fn is_utf8_answers_as_std_does_on_generated_bytes() {
        let valid: [&[u8]; 5] = [
            b"{\"key\": [1, true]}",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            "\u{10ffff}".as_bytes(),
        ];
        // A lone continuation, an overlong, a surrogate, past U+10FFFF, cut sequences, and
        // bytes UTF-8 never holds.
        let invalid: [&[u8]; 8] = [
            b"\x80",
            b"\xc0\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
            b"\xc3",
            b"\xff",
        ];
        let mut rng = Rng(0x7574_6638);
        let mut refused = 0;
        for round in 0..40_000 {
            // Long enough for several 64-byte blocks and a tail, with ASCII runs between.
            let len = rng.below(300);
            let mut bytes = Vec::new();
            while bytes.len() < len {
                if rng.below(2) == 0 {
                    bytes.extend((0..1 + rng.below(40)).map(|i| b'a' + (i % 26) as u8));
                } else {
                    bytes.extend_from_slice(valid[rng.below(valid.len())]);
                }
            }
            if round % 2 == 1 {
                let at = rng.below(bytes.len() + 1);
                let piece = invalid[rng.below(invalid.len())];
                bytes.splice(at..at, piece.iter().copied());
            }
            let expected = std::str::from_utf8(&bytes).is_ok();
            refused += usize::from(!expected);
            assert_eq!(is_utf8(&bytes), expected, "{bytes:?}");
        }
        assert!(refused > 10_000, "{refused}");
    }

    #[test]
    fn digits_stops_at_the_first_byte_that_is_not_one() {
        let others = [
            b'/', b':', b'.', b'e', b'-', 0x00, 0x7f, 0x80, 0xb0, 0xff, b' ',
        ];
        for len in 0..40 {
            for start in 0..3 {
                for &stop in &others {
                    let mut buf: Vec<u8> = (0..start).map(|_| b'x').collect();
                    buf.extend((0..len).map(|i| b'0' + (i * 7 % 10) as u8));
                    assert_eq!(digits(&buf, start), start + len, "{len} {start}");
                    buf.push(stop);
                    buf.extend_from_slice(b"123456789");
                    assert_eq!(digits(&buf, start), start + len, "{len} {start} {stop}");
                }
            }
        }
        // Every byte value in every position of a word.
        for b in 0..=255u8 {
            for at in 0..10 {
                let mut buf = vec![b'5'; 12];
                buf[at] = b;
                let expected = if b.is_ascii_digit() { 12 } else { at };
                assert_eq!(digits(&buf, 0), expected, "{b} {at}");
            }
        }
    }

    #[test]
    fn scan_finds_the_first_stop_byte_and_never_misses_a_high_byte() {
        let fillers: [&[u8]; 3] = [b"abcdefgh", "é😀x".as_bytes(), b"0123456789abcdefXYZ"];
        for filler in fillers {
            for len in 0..70 {
                let body: Vec<u8> = filler.iter().copied().cycle().take(len).collect();
                for stop in [b'"', b'\\', b'\n', 0x00, 0x1f] {
                    for tail in [
                        &b""[..],
                        b"xyz\xc3\xa9",
                        b"\xf0\x9f\x98\x80 padding padding",
                    ] {
                        let mut buf = body.clone();
                        buf.push(stop);
                        buf.extend_from_slice(tail);
                        for start in 0..len.min(20) {
                            let (at, high) = scan(&buf, start);
                            assert_eq!(at, len, "{filler:?} {len} {stop} {start}");
                            assert_eq!(at, scan_words(&buf, start).0);
                            let exact = buf[start..at].iter().any(|&b| b >= 0x80);
                            assert!(high || !exact, "{filler:?} {len} {start}");
                        }
                    }
                }
                let (at, high) = scan(&body, 0);
                assert_eq!(at, body.len());
                assert!(high || !body.iter().any(|&b| b >= 0x80));
            }
        }
    }
}
