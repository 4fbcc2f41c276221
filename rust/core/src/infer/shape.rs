//! A line that repeats the structure of a recent line the tokenizer read: the same bytes
//! everywhere but in its scalars (strings, numbers, `true`, `false`, `null`). Most JSON Lines
//! files hold few record shapes, written by one serializer, so most lines differ from one
//! before only in their scalar values. Such a line is read by comparing the bytes between its
//! scalars with the kept line's, and reading each scalar in place; its tape is the kept line's
//! with the scalars' tokens (and the keys' offsets) rewritten, so no structural scan runs.
//!
//! It never reports an error, and declines (`None`) at the first difference: a line it accepts
//! is a line that parsed with each scalar replaced by a scalar (strings without escapes or
//! control bytes, valid UTF-8), which parses to the same tape the other two parsers give, as
//! the tests hold it to the scalar parser.

use super::error::SyntaxError;
use super::skeleton::scalar_kind;
use super::tape::{
    is_utf8, number_end, scan, Tape, Tok, FALSE, KEY, NULL, NUMBER, OBJECT, STRING, TRUE,
};

/// The longest line, and the most tokens, kept as a shape: larger lines are not worth a copy.
const MAX_LINE: usize = 1 << 14;
const MAX_TOKS: usize = 1 << 10;
/// How many recent shapes are kept.
const SHAPES: usize = 4;
/// Zero bytes after a kept line, so a gap's first 16 bytes can be read as two words.
const PAD: usize = 16;

/// The bytes of a kept line between two scalars (or before the first, or after the last).
#[derive(Clone, Copy, Default)]
struct Gap {
    start: u32,
    len: u32,
    /// Its first 16 bytes as two little-endian words (with the bytes after it, which the masks
    /// drop), and the masks.
    words: [u64; 2],
    masks: [u64; 2],
}

/// The masks that keep the first `n` bytes of a little-endian word.
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1 << (8 * n)) - 1
    }
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(raw)
}

impl Gap {
    fn new(line: &[u8], start: usize, end: usize) -> Gap {
        let len = end - start;
        let padded = &line[start..];
        Gap {
            start: start as u32,
            len: len as u32,
            words: [word(padded, 0), word(padded, 8)],
            masks: [low_bytes(len), low_bytes(len.saturating_sub(8))],
        }
    }

    /// Whether `buf[at..]` starts with this gap of `line`.
    #[inline(always)]
    fn at(&self, buf: &[u8], at: usize, line: &[u8]) -> bool {
        let len = self.len as usize;
        if let Some(have) = buf.get(at..at + 16) {
            let low = (word(have, 0) ^ self.words[0]) & self.masks[0];
            let high = (word(have, 8) ^ self.words[1]) & self.masks[1];
            if low | high != 0 {
                return false;
            }
            if len <= 16 {
                return true;
            }
        }
        let start = self.start as usize;
        buf.get(at..at + len) == line.get(start..start + len)
    }
}

/// The bytes and tape of a line read before, and where its scalars are.
#[derive(Default)]
struct Shape {
    /// The line, then `PAD` zero bytes.
    line: Vec<u8>,
    toks: Vec<Tok>,
    /// Each scalar's token index, the gap before it, and where the gap's keys end in `keys`.
    scalars: Vec<(u32, Gap, u32)>,
    tail: Gap,
    /// Each key's token index and offset in its gap, in order.
    keys: Vec<(u32, u32)>,
    /// Unique among the shapes one tape kept.
    stamp: u64,
}

/// The recent shapes, the last one matched first.
#[derive(Default)]
pub(crate) struct Shapes {
    kept: Vec<Shape>,
    /// Rises by one with each line that matched a kept shape (up to `CREDIT`), falls by
    /// `MISS` with each that did not: shapes pay only when nearly every line repeats one.
    credit: i32,
    /// Lines left before shapes are tried again, once the credit fell below zero: a file whose
    /// lines rarely repeat a shape would pay for the tries and the copies.
    pause: u32,
    /// The next pause, doubled each time the tries fail again.
    backoff: u32,
    /// Whether the tape holds the first kept shape's tokens (see `Shape::read`).
    laid: bool,
    /// Whether the first kept shape has the structure and keys of the last line parsed.
    described: bool,
    /// Whether the line just parsed was read by the first kept shape while it described the
    /// line before: the two lines then have the same keys everywhere, in the same order.
    repeat: bool,
    /// Whether the line just parsed was read by a kept shape.
    shaped: bool,
    /// The last stamp given to a shape.
    stamps: u64,
}

/// The most credit kept, and what a miss costs.
const CREDIT: i32 = 16;
const MISS: i32 = 4;
/// The first pause, in lines, and the longest.
const PAUSE: u32 = 64;
const MAX_PAUSE: u32 = 1 << 14;

/// The token of the scalar at `buf[at]` and the index after it; `high` is set when a string
/// may hold bytes that are not ASCII.
#[inline(always)]
fn scalar(buf: &[u8], at: usize, high: &mut bool) -> Option<(Tok, usize)> {
    let literal = |word: &[u8], tag: u8| {
        (buf.get(at..at + word.len()) == Some(word)).then_some((
            Tok {
                tag,
                flag: 0,
                a: at as u32,
                b: word.len() as u32,
            },
            at + word.len(),
        ))
    };
    match *buf.get(at)? {
        b'"' => {
            let (end, seen) = scan(buf, at + 1);
            if buf.get(end) != Some(&b'"') {
                return None;
            }
            *high |= seen;
            let tok = Tok {
                tag: STRING,
                flag: 0,
                a: (at as u32).wrapping_add(1),
                b: (end - at - 1) as u32,
            };
            Some((tok, end + 1))
        }
        b'-' | b'0'..=b'9' => {
            let (end, flag) = number_end(buf, at).ok()?;
            let tok = Tok {
                tag: NUMBER,
                flag,
                a: at as u32,
                b: (end - at) as u32,
            };
            Some((tok, end))
        }
        b't' => literal(b"true", TRUE),
        b'f' => literal(b"false", FALSE),
        b'n' => literal(b"null", NULL),
        _ => None,
    }
}

impl Shape {
    /// Fills `toks` with the tape of `buf` when it repeats this shape; the line's end.
    /// `laid` when `toks` already holds this shape's tape, from the last line read or tried
    /// with it: a read rewrites every scalar and key, and nothing else differs.
    #[inline(always)]
    fn read(&self, buf: &[u8], toks: &mut Vec<Tok>, laid: bool) -> Option<usize> {
        if !laid || toks.len() != self.toks.len() {
            toks.clear();
            toks.extend_from_slice(&self.toks);
        }
        let toks = &mut toks[..];
        let mut new = 0usize;
        let mut next = 0usize;
        let mut high = false;
        // The keys in a gap move with it.
        let keys = |toks: &mut [Tok], from: usize, to: usize, new: usize| -> Option<()> {
            for &(k, offset) in self.keys.get(from..to)? {
                toks.get_mut(k as usize)?.a = (new as u32).wrapping_add(offset);
            }
            Some(())
        };
        for &(at, ref gap, end) in &self.scalars {
            if !gap.at(buf, new, &self.line) {
                return None;
            }
            keys(toks, next, end as usize, new)?;
            next = end as usize;
            new += gap.len as usize;
            let (tok, end) = scalar(buf, new, &mut high)?;
            *toks.get_mut(at as usize)? = tok;
            new = end;
        }
        if !self.tail.at(buf, new, &self.line) {
            return None;
        }
        keys(toks, next, self.keys.len(), new)?;
        new += self.tail.len as usize;
        if !matches!(buf.get(new), None | Some(b'\n')) || new >= u32::MAX as usize {
            return None;
        }
        if high && !is_utf8(&buf[..new]) {
            return None;
        }
        Some(new)
    }
}

impl Tape {
    /// Parses one JSON Lines line as [`Tape::parse_line`] does: by a recent line's shape when
    /// it repeats one, else by the structural scan, else by the scalar parser (which alone
    /// reports errors).
    #[inline(never)]
    pub(crate) fn parse_line_any(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        let shapes = &mut self.shapes;
        if shapes.pause == 0 {
            for i in 0..shapes.kept.len() {
                let laid = i == 0 && shapes.laid;
                let read = shapes.kept[i].read(buf, &mut self.toks, laid);
                shapes.laid = i == 0;
                if let Some(end) = read {
                    shapes.shaped = true;
                    shapes.repeat = i == 0 && shapes.described;
                    shapes.described = true;
                    shapes.kept.swap(0, i);
                    shapes.laid = true;
                    shapes.credit = (shapes.credit + 1).min(CREDIT);
                    if shapes.credit == CREDIT {
                        shapes.backoff = PAUSE;
                    }
                    return Ok(end);
                }
            }
        }
        let parsed = match self.parse_line_fast(buf) {
            Some(end) => Ok(end),
            None => self.parse_line(buf),
        };
        let shapes = &mut self.shapes;
        shapes.shaped = false;
        shapes.laid = false;
        shapes.repeat = false;
        shapes.described = false;
        if shapes.pause > 0 {
            shapes.pause -= 1;
        } else if let Ok(end) = parsed {
            shapes.credit -= MISS;
            if shapes.credit < 0 {
                shapes.credit = 0;
                shapes.pause = shapes.backoff.max(PAUSE);
                shapes.backoff = (shapes.pause * 2).min(MAX_PAUSE);
            }
            self.shapes.laid = self.remember(buf, end);
            self.shapes.described = self.shapes.laid;
        }
        parsed
    }

    /// Whether the line just parsed has the keys of the line parsed before it, everywhere and
    /// in the same order (both read by one kept shape, or the first kept when read).
    #[inline]
    pub(crate) fn repeats_keys(&self) -> bool {
        self.shapes.repeat
    }

    /// For a line just read by a kept shape (`line` holding its bytes), that shape's stamp and
    /// its scalars' kinds, four bits each: two lines with both equal have one skeleton, their
    /// keys and nesting being the shape's. `None` for another line or more than sixteen scalars.
    #[inline]
    pub(crate) fn shaped_kinds(&self, line: &[u8]) -> Option<(u64, u64)> {
        let shape = self.shapes.kept.first().filter(|_| self.shapes.shaped)?;
        if shape.scalars.len() > 16 {
            return None;
        }
        let mut kinds = 0u64;
        for &(at, _, _) in &shape.scalars {
            kinds = (kinds << 4) | scalar_kind(self.toks.get(at as usize)?, line);
        }
        Some((shape.stamp, kinds))
    }

    /// Whether the line just parsed was read by a kept shape.
    #[inline]
    pub(crate) fn read_by_shape(&self) -> bool {
        self.shapes.shaped
    }

    /// Keeps the line just parsed (`buf[..end]`, whose tape this is) as the first shape the
    /// next line is compared with, in place of the oldest; false when it is too large to keep.
    fn remember(&mut self, buf: &[u8], end: usize) -> bool {
        if end > MAX_LINE || self.toks.len() > MAX_TOKS {
            return false;
        }
        self.shapes.stamps += 1;
        let stamp = self.shapes.stamps;
        let kept = &mut self.shapes.kept;
        if kept.len() < SHAPES {
            kept.push(Shape::default());
        }
        kept.rotate_right(1);
        let shape = &mut kept[0];
        shape.stamp = stamp;
        shape.line.clear();
        shape.toks.clear();
        shape.scalars.clear();
        shape.keys.clear();
        shape.line.extend_from_slice(&buf[..end]);
        shape.line.extend_from_slice(&[0; PAD]);
        shape.toks.extend_from_slice(&self.toks);
        let mut old = 0usize;
        for (i, t) in self.toks.iter().enumerate() {
            // Where the scalar starts and ends, a string's quotes included.
            let (start, stop) = match t.tag {
                STRING => (t.a as usize - 1, (t.a + t.b) as usize + 1),
                KEY => {
                    shape.keys.push((i as u32, t.a - old as u32));
                    continue;
                }
                OBJECT | super::tape::ARRAY => continue,
                _ => (t.a as usize, (t.a + t.b) as usize),
            };
            let gap = Gap::new(&shape.line, old, start);
            shape.scalars.push((i as u32, gap, shape.keys.len() as u32));
            old = stop;
        }
        shape.tail = Gap::new(&shape.line, old, end);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::builder::Accumulator;
    use super::super::lines::{read_chunk, ErrorMode};
    use super::super::options::Options;
    use super::super::parsed::Parsed;
    use super::super::skeleton::Skeletons;
    use super::super::structural::tests::{mutate, number, string, value, Rng};
    use super::super::tape::ARRAY;
    use super::*;

    /// `line` with each scalar replaced by a random one (a string, a number or a literal, in
    /// any mix, or kept): the same structure, so a shape kept from `line` may read it. `plain`:
    /// never kept, never with escapes, so a shape kept from a line like it reads it.
    fn rescalar(rng: &mut Rng, line: &[u8], plain: bool) -> Vec<u8> {
        let mut tape = Tape::default();
        tape.parse_line(line).expect("a valid line");
        let mut out = Vec::new();
        let mut at = 0;
        for t in &tape.toks {
            let (start, end) = match t.tag {
                STRING => (t.a as usize - 1, (t.a + t.b) as usize + 1),
                KEY | OBJECT | ARRAY => continue,
                _ => (t.a as usize, (t.a + t.b) as usize),
            };
            out.extend_from_slice(&line[at..start]);
            match rng.below(8) {
                // The generator's strings (escapes, any text) rarely: one in a line declines.
                _ if !plain && rng.below(64) == 0 => string(rng, &mut out),
                0 if !plain => out.extend_from_slice(&line[start..end]),
                1 => out.extend_from_slice([&b"true"[..], b"false", b"null"][rng.below(3)]),
                2 | 3 => number(rng, &mut out),
                _ => {
                    let texts = [
                        "",
                        "a",
                        "hello",
                        "é",
                        "😀 x",
                        "a much longer text, past one word",
                    ];
                    out.push(b'"');
                    out.extend_from_slice(texts[rng.below(texts.len())].as_bytes());
                    out.push(b'"');
                }
            }
            at = end;
        }
        out.extend_from_slice(&line[at..]);
        out
    }

    #[test]
    fn lines_read_by_a_recent_shape_agree_with_the_scalar_parser() {
        let mut rng = Rng(0x5eed_1234_5678_9abc);
        let mut tape = Tape::default();
        let (mut read, mut first, mut lines) = (0, 0, 0);
        for _ in 0..1_000 {
            let mut base = Vec::new();
            let depth = 1 + rng.below(4);
            value(&mut rng, depth, &mut base);
            for _ in 0..32 {
                let mut line = rescalar(&mut rng, &base, false);
                if rng.below(8) == 0 {
                    mutate(&mut rng, &mut line);
                }
                if rng.below(4) == 0 {
                    line.extend_from_slice(b"\n{\"next\": 1}\n");
                }
                // As `read_chunk` hands lines over: leading blanks skipped, never empty.
                let start = line
                    .iter()
                    .position(|b| !b" \t\r".contains(b))
                    .unwrap_or(line.len());
                let line = &line[start..];
                if line.first().is_none_or(|&b| b == b'\n') {
                    continue;
                }
                let mut slow = Tape::default();
                let expected = slow.parse_line(line);
                let text = String::from_utf8_lossy(line);
                // Every kept shape that reads the line reads the scalar parser's tape.
                let mut toks = Vec::new();
                for shape in &tape.shapes.kept {
                    if let Some(end) = shape.read(line, &mut toks, false) {
                        assert_eq!(Ok(end), expected, "{text}");
                        assert_eq!(format!("{toks:?}"), format!("{:?}", slow.toks), "{text}");
                        read += 1;
                    }
                }
                // Lines the tape reads by its first shape, with its tape laid by the last line.
                if tape.shapes.pause == 0
                    && tape
                        .shapes
                        .kept
                        .first()
                        .is_some_and(|s| s.read(line, &mut toks, false).is_some())
                {
                    first += 1;
                }
                assert_eq!(tape.parse_line_any(line), expected, "{text}");
                if expected.is_ok() {
                    assert_eq!(
                        format!("{:?}", tape.toks),
                        format!("{:?}", slow.toks),
                        "{text}"
                    );
                }
                lines += 1;
            }
        }
        assert!(
            read > lines / 8 && first > 1_000,
            "{read}, {first} of {lines}"
        );
    }

    /// A record of a few structures that share keys: `{"a": .., "b": .., "c": {"d": .., "e": ..}}`
    /// with a key added at the top (`x`) or inside `c` (`f`), records of other keys in an array,
    /// or other keys as many; values from the structural tests' generator (arrays of records
    /// among them).
    fn records(rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut values = Vec::new();
        for _ in 0..6 {
            let mut v = Vec::new();
            let depth = 1 + rng.below(3);
            value(rng, depth, &mut v);
            values.push(String::from_utf8(v).expect("generated text"));
        }
        let [a, b, d, e, x, f] = &values[..] else {
            unreachable!()
        };
        let twice = if rng.below(4) == 0 { r#", "a": 0"# } else { "" };
        [
            format!(r#"{{"a": {a}, "b": {b}, "c": {{"d": {d}, "e": {e}}}{twice}}}"#),
            format!(r#"{{"a": {a}, "x": {x}, "b": {b}, "c": {{"d": {d}, "e": {e}}}}}"#),
            format!(r#"{{"a": {a}, "b": {b}, "c": {{"d": {d}, "e": {e}, "f": {f}}}}}"#),
            format!(r#"{{"a": {a}, "b": {b}, "c": [{{"d": {d}}}, {{"d": {e}, "e": 1}}]}}"#),
            format!(r#"{{"a": {a}, "b": {b}, "c": [{{"d": {d}}}, {{"e": {e}}}]}}"#),
            format!(r#"{{"a": {a}, "y": {b}, "c": {{"e": {d}, "d": {e}}}}}"#),
        ]
        .into_iter()
        .map(String::into_bytes)
        .collect()
    }

    /// The schema and sample count of `chunk`'s lines, each parsed alone by the scalar parser.
    fn without_shapes(opts: Options, chunk: &[u8]) -> (String, u64) {
        let mut acc = Accumulator::new(opts);
        for line in chunk.split(|&b| b == b'\n') {
            let start = line.iter().position(|b| !b" \t\r".contains(b));
            let Some(line) = start.map(|start| &line[start..]) else {
                continue;
            };
            let mut tape = Tape::default();
            if tape.parse_line(line).is_ok() {
                acc.add(Parsed::root(&tape, line));
            }
        }
        (
            acc.schema().expect("a small schema").to_text(),
            acc.samples(),
        )
    }

    #[test]
    fn lines_of_one_shape_infer_what_the_scalar_parser_infers() {
        let mut rng = Rng(0x0c07_3200_5eed_0001);
        let (mut repeats, mut lines) = (0, 0);
        for round in 0..200 {
            let opts = match round % 6 {
                0 => Options::default(),
                1 => Options {
                    merge: true,
                    ..Options::default()
                },
                2 => Options {
                    enums: true,
                    format: true,
                    ..Options::default()
                },
                3 => Options {
                    max_properties: 2 + rng.below(2),
                    ..Options::default()
                },
                4 => Options {
                    max_depth: 1 + rng.below(3) as u32,
                    ..Options::default()
                },
                _ => Options {
                    closed: true,
                    merge: rng.below(2) == 0,
                    ..Options::default()
                },
            };
            let bases = records(&mut rng);
            let mut chunk = Vec::new();
            // Two of the structures, mostly the last one again, its values changing kind.
            let pair = [rng.below(bases.len()), rng.below(bases.len())];
            let mut base = pair[0];
            let mut strangers = 0;
            for i in 0..256 {
                // The tries pause for the first lines, then need a run of hits to go on.
                if i > 96 && rng.below(16) == 0 {
                    base = pair[rng.below(2)];
                }
                // Now and then lines of new structures, that pause the tries again: the lines
                // read meanwhile are not kept, so the first kept shape is no longer the last's.
                if i > 96 && rng.below(48) == 0 {
                    strangers = 6;
                }
                let mut line = if strangers > 0 {
                    strangers -= 1;
                    records(&mut rng).swap_remove(0)
                } else {
                    rescalar(&mut rng, &bases[base], true)
                };
                if rng.below(48) == 0 {
                    mutate(&mut rng, &mut line);
                }
                chunk.extend_from_slice(&line);
                chunk.push(b'\n');
            }
            // How many lines repeat the keys of the line before, as `read_chunk` sees them.
            let (mut tape, mut counted) = (Tape::default(), Tape::default());
            for line in chunk.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                if counted.parse_line_any(line).is_ok() && counted.repeats_keys() {
                    repeats += 1;
                }
                lines += 1;
            }
            let got = read_shaped(opts, &mut tape, &chunk);
            let text = String::from_utf8_lossy(&chunk);
            assert_eq!(got, without_shapes(opts, &chunk), "{opts:?}\n{text}");
        }
        assert!(repeats > lines / 5, "{repeats} of {lines}");
    }

    /// The schema and sample count `read_chunk` gives with kept shapes and no skeletons.
    fn read_shaped(opts: Options, tape: &mut Tape, chunk: &[u8]) -> (String, u64) {
        let mut acc = Accumulator::new(opts);
        let out = read_chunk(
            &mut acc,
            tape,
            &mut Skeletons::off(),
            chunk,
            ErrorMode::Skip,
        );
        (acc.schema().expect("a small schema").to_text(), out.samples)
    }

    #[test]
    fn a_line_read_after_a_pause_is_not_taken_for_a_repeat_of_the_paused_line() {
        // The first line is kept and starts a pause; the paused lines have other keys, as many;
        // the last line is read by the first kept shape, which no longer describes the line
        // before it, so its record's keys must be checked.
        let mut chunk = b"{\"a\": 1, \"b\": \"x\"}\n".to_vec();
        for _ in 0..PAUSE {
            chunk.extend_from_slice(b"{\"c\": true, \"d\": null}\n");
        }
        chunk.extend_from_slice(b"{\"a\": 2, \"b\": \"y\"}\n");
        for opts in [
            Options::default(),
            Options {
                merge: true,
                ..Options::default()
            },
        ] {
            let got = read_shaped(opts, &mut Tape::default(), &chunk);
            assert_eq!(got, without_shapes(opts, &chunk), "{opts:?}");
        }
    }

    #[test]
    fn a_line_too_large_to_keep_leaves_no_stale_tape_behind() {
        let mut tape = Tape::default();
        let kept = br#"{"a": [1, 2]}"#;
        // As many tokens as the kept line, other containers, more bytes than a shape keeps.
        let mut large = b"[[1, 2, 3".to_vec();
        large.extend(std::iter::repeat_n(b' ', MAX_LINE));
        large.extend_from_slice(b"]]");
        let again = br#"{"a": [3, 4]}"#;
        // The first line misses and pauses the tries for `PAUSE` lines; then they earn credit.
        let mut lines = vec![&kept[..]; PAUSE as usize + 8];
        lines.extend([&large[..], &again[..], &large[..], &again[..]]);
        for line in lines {
            let mut slow = Tape::default();
            assert_eq!(tape.parse_line_any(line), slow.parse_line(line));
            assert_eq!(format!("{:?}", tape.toks), format!("{:?}", slow.toks));
        }
    }
}
