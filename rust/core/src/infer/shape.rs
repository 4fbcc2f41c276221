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
use super::tape::{number_end, scan, Tape, Tok, FALSE, KEY, NULL, NUMBER, OBJECT, STRING, TRUE};

/// The longest line, and the most tokens, kept as a shape: larger lines are not worth a copy.
const MAX_LINE: usize = 1 << 14;
const MAX_TOKS: usize = 1 << 10;
/// How many recent shapes are kept.
const SHAPES: usize = 32;
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
    /// Each key's token index, the gap it lies in (by the index of the scalar after it), and
    /// its offset there.
    keys: Vec<(u32, u32, u32)>,
}

/// What a read found so far in the line being read: each scalar's token and where each gap
/// starts, up to where the read stopped.
#[derive(Default)]
struct Found {
    toks: Vec<Tok>,
    starts: Vec<usize>,
    /// Set when a string may hold bytes that are not ASCII.
    high: bool,
    /// Lines read by a kept shape, and those of them read from where an earlier try parted.
    #[cfg(test)]
    hits: (u32, u32),
}

/// The recent shapes.
#[derive(Default)]
pub(crate) struct Shapes {
    kept: Vec<Shape>,
    /// Indexes into `kept`, the last one matched first.
    order: Vec<u8>,
    /// For each two kept shapes, how many of their first gaps are the same bytes: a line
    /// that one shape read up to a gap reads the same by the other up to there, so a try
    /// goes on from where the shapes part, and a shape that agrees past where the line
    /// failed is not tried.
    common: Vec<[u16; SHAPES]>,
    found: Found,
    /// Rises by one with each line that matched a kept shape (up to `CREDIT`), falls by
    /// `MISS` with each that did not: shapes pay only when nearly every line repeats one.
    credit: i32,
    /// Lines left before shapes are tried again, once the credit fell below zero: a file whose
    /// lines rarely repeat a shape would pay for the tries and the copies.
    pause: u32,
    /// The next pause, doubled each time the tries fail again.
    backoff: u32,
    /// The kept shape whose tokens the tape holds (see `Shape::lay`).
    laid: Option<u8>,
    /// Whether the last line was read by the shape read before it.
    repeat: bool,
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
    /// Reads `buf` by this shape from its gap `from` on, `found` holding the line's scalars
    /// before that gap and where the gap starts: the line's end, or the index of the gap
    /// (or of the scalar after it) that differs, the tail's being the scalar count. Never
    /// changes `found` below `from`.
    #[inline(always)]
    fn read_from(&self, buf: &[u8], from: usize, found: &mut Found) -> Result<usize, usize> {
        let mut new = found.starts[from];
        for (i, (_, gap, _)) in self.scalars.iter().enumerate().skip(from) {
            if !gap.at(buf, new, &self.line) {
                return Err(i);
            }
            new += gap.len as usize;
            let Some((tok, end)) = scalar(buf, new, &mut found.high) else {
                return Err(i);
            };
            found.toks[i] = tok;
            new = end;
            found.starts[i + 1] = new;
        }
        let count = self.scalars.len();
        if !self.tail.at(buf, new, &self.line) {
            return Err(count);
        }
        new += self.tail.len as usize;
        if !matches!(buf.get(new), None | Some(b'\n')) || new >= u32::MAX as usize {
            return Err(count);
        }
        Ok(new)
    }

    /// Reads `buf` by this shape as `read_from` does from the first gap, rewriting the
    /// scalars and keys of `toks` (this shape's tape) in place; `found` gets the gaps' starts
    /// only, its scalars being those of `toks`.
    #[inline(always)]
    fn read_laid(&self, buf: &[u8], toks: &mut [Tok], found: &mut Found) -> Result<usize, usize> {
        let mut new = 0usize;
        let mut next = 0usize;
        // The keys in a gap move with it.
        let keys = |toks: &mut [Tok], from: usize, to: usize, new: usize| {
            for &(k, _, offset) in &self.keys[from..to] {
                toks[k as usize].a = (new as u32).wrapping_add(offset);
            }
        };
        for (i, &(at, ref gap, end)) in self.scalars.iter().enumerate() {
            if !gap.at(buf, new, &self.line) {
                return Err(i);
            }
            keys(toks, next, end as usize, new);
            next = end as usize;
            new += gap.len as usize;
            let Some((tok, end)) = scalar(buf, new, &mut found.high) else {
                return Err(i);
            };
            toks[at as usize] = tok;
            new = end;
            found.starts[i + 1] = new;
        }
        let count = self.scalars.len();
        if !self.tail.at(buf, new, &self.line) {
            return Err(count);
        }
        keys(toks, next, self.keys.len(), new);
        new += self.tail.len as usize;
        if !matches!(buf.get(new), None | Some(b'\n')) || new >= u32::MAX as usize {
            return Err(count);
        }
        Ok(new)
    }

    /// Fills `toks` with the tape of the line this shape read into `found`. `laid` when
    /// `toks` already holds this shape's tape, from an earlier line: a line rewrites every
    /// scalar and key, and nothing else differs.
    #[inline(always)]
    fn lay(&self, toks: &mut Vec<Tok>, laid: bool, found: &Found) {
        if !laid || toks.len() != self.toks.len() {
            toks.clear();
            toks.extend_from_slice(&self.toks);
        }
        for (&(at, _, _), &tok) in self.scalars.iter().zip(&found.toks) {
            toks[at as usize] = tok;
        }
        for &(key, gap, offset) in &self.keys {
            toks[key as usize].a = (found.starts[gap as usize] as u32).wrapping_add(offset);
        }
    }

    /// How many of the first gaps of two shapes are the same bytes.
    fn common(&self, other: &Shape) -> u16 {
        fn gap<'a>(shape: &'a Shape, gap: &Gap) -> &'a [u8] {
            let start = gap.start as usize;
            &shape.line[start..start + gap.len as usize]
        }
        let same = self
            .scalars
            .iter()
            .zip(&other.scalars)
            .take_while(|((_, a, _), (_, b, _))| gap(self, a) == gap(other, b))
            .count();
        same as u16
    }
}

impl Shapes {
    /// The kept shape that reads `buf` and the line's end; `toks` then holds its tape.
    #[inline(always)]
    fn find(&mut self, buf: &[u8], toks: &mut Vec<Tok>) -> Option<(usize, usize)> {
        self.found.high = false;
        // The shape that read furthest, the gap where it stopped, and how many of its
        // scalars `found` still holds (a shorter try since may have written past them).
        let mut best = None;
        let (mut reached, mut valid) = (0, 0);
        let mut tried = 0;
        if self.repeat {
            // The last line repeated the shape before it, as most lines of a file with few
            // shapes do: this one is read straight into the tape.
            let first = *self.order.first()? as usize;
            let shape = &self.kept[first];
            if self.laid != Some(first as u8) || toks.len() != shape.toks.len() {
                toks.clear();
                toks.extend_from_slice(&shape.toks);
                self.laid = Some(first as u8);
            }
            let at = match shape.read_laid(buf, toks, &mut self.found) {
                Ok(end) => return check(&mut self.found, buf, end).then_some((first, end)),
                Err(at) => at,
            };
            for (i, &(tok, _, _)) in shape.scalars[..at].iter().enumerate() {
                self.found.toks[i] = toks[tok as usize];
            }
            (best, reached, valid, tried) = (Some(first), at, at, 1);
        }
        for &slot in &self.order[tried..] {
            let slot = slot as usize;
            let from = match best {
                None => 0,
                Some(best) => {
                    let common = self.common[best][slot] as usize;
                    if common > reached {
                        continue;
                    }
                    common.min(valid)
                }
            };
            match self.kept[slot].read_from(buf, from, &mut self.found) {
                Ok(end) => {
                    if !check(&mut self.found, buf, end) {
                        return None;
                    }
                    #[cfg(test)]
                    {
                        self.found.hits.1 += u32::from(from > 0);
                    }
                    self.kept[slot].lay(toks, self.laid == Some(slot as u8), &self.found);
                    self.laid = Some(slot as u8);
                    return Some((slot, end));
                }
                Err(at) if best.is_none() || at > reached => {
                    best = Some(slot);
                    (reached, valid) = (at, at);
                }
                Err(at) => {
                    if at > from {
                        valid = valid.min(from);
                    }
                }
            }
        }
        None
    }
}

/// Whether the line read, `buf[..end]`, is UTF-8 (checked only if a string may not be ASCII).
#[inline(always)]
fn check(found: &mut Found, buf: &[u8], end: usize) -> bool {
    if found.high && std::str::from_utf8(&buf[..end]).is_err() {
        return false;
    }
    #[cfg(test)]
    {
        found.hits.0 += 1;
    }
    true
}

impl Tape {
    /// Parses one JSON Lines line as [`Tape::parse_line`] does: by a recent line's shape when
    /// it repeats one, else by the structural scan, else by the scalar parser (which alone
    /// reports errors).
    #[inline]
    pub(crate) fn parse_line_any(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        let shapes = &mut self.shapes;
        if shapes.pause == 0 {
            if let Some((slot, end)) = shapes.find(buf, &mut self.toks) {
                shapes.repeat = shapes.order[0] as usize == slot;
                if !shapes.repeat {
                    let at = shapes.order.iter().position(|&s| s as usize == slot);
                    shapes.order[..=at.unwrap_or(0)].rotate_right(1);
                }
                shapes.credit = (shapes.credit + 1).min(CREDIT);
                if shapes.credit == CREDIT {
                    shapes.backoff = PAUSE;
                }
                return Ok(end);
            }
        }
        let parsed = match self.parse_line_fast(buf) {
            Some(end) => Ok(end),
            None => self.parse_line(buf),
        };
        let shapes = &mut self.shapes;
        shapes.laid = None;
        shapes.repeat = false;
        if shapes.pause > 0 {
            shapes.pause -= 1;
        } else if let Ok(end) = parsed {
            // Until every place is taken a miss costs nothing, so that the lines of a file
            // with many shapes are kept before the credit rule judges the tries.
            if shapes.kept.len() == SHAPES {
                shapes.credit -= MISS;
            }
            if shapes.credit < 0 {
                shapes.credit = 0;
                shapes.pause = shapes.backoff.max(PAUSE);
                shapes.backoff = (shapes.pause * 2).min(MAX_PAUSE);
            }
            self.remember(buf, end);
        }
        parsed
    }

    /// Keeps the line just parsed (`buf[..end]`, whose tape this is) as the first shape the
    /// next line is compared with, in place of the least recently matched, unless it is too
    /// large to keep.
    fn remember(&mut self, buf: &[u8], end: usize) {
        if end > MAX_LINE || self.toks.len() > MAX_TOKS {
            return;
        }
        let shapes = &mut self.shapes;
        let slot = if shapes.kept.len() < SHAPES {
            shapes.kept.push(Shape::default());
            shapes.common.push([0; SHAPES]);
            shapes.found.toks.resize(
                MAX_TOKS,
                Tok {
                    tag: 0,
                    flag: 0,
                    a: 0,
                    b: 0,
                },
            );
            shapes.found.starts.resize(MAX_TOKS + 1, 0);
            shapes.kept.len() - 1
        } else {
            shapes.order.pop().map_or(0, usize::from)
        };
        shapes.order.insert(0, slot as u8);
        let shape = &mut shapes.kept[slot];
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
                    let gap = shape.scalars.len() as u32;
                    shape.keys.push((i as u32, gap, t.a - old as u32));
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
        let shape = &shapes.kept[slot];
        for (other, kept) in shapes.kept.iter().enumerate() {
            let common = shape.common(kept);
            shapes.common[slot][other] = common;
            shapes.common[other][slot] = common;
        }
        shapes.laid = Some(slot as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::super::structural::tests::{mutate, number, string, value, Rng};
    use super::super::tape::ARRAY;
    use super::*;

    /// `line` with each scalar replaced by a random one (a string, a number or a literal, in
    /// any mix, or kept): the same structure, so a shape kept from `line` may read it.
    fn rescalar(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
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
                _ if rng.below(64) == 0 => string(rng, &mut out),
                0 => out.extend_from_slice(&line[start..end]),
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

    /// A kept shape's read on its own: the line's end and tape.
    fn read_alone(shape: &Shape, line: &[u8]) -> Option<(usize, Vec<Tok>)> {
        let mut found = Found {
            toks: vec![
                Tok {
                    tag: 0,
                    flag: 0,
                    a: 0,
                    b: 0
                };
                MAX_TOKS
            ],
            starts: vec![0; MAX_TOKS + 1],
            ..Found::default()
        };
        let end = shape.read_from(line, 0, &mut found).ok()?;
        if found.high && std::str::from_utf8(&line[..end]).is_err() {
            return None;
        }
        let mut toks = Vec::new();
        shape.lay(&mut toks, false, &found);
        Some((end, toks))
    }

    /// Checks `line` (maybe mutated, maybe followed by another) against the scalar parser,
    /// read by `tape` and by each of its kept shapes on its own; how many of those read it.
    fn check(rng: &mut Rng, tape: &mut Tape, mut line: Vec<u8>) -> usize {
        if rng.below(8) == 0 {
            mutate(rng, &mut line);
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
            return 0;
        }
        let mut slow = Tape::default();
        let expected = slow.parse_line(line);
        let text = String::from_utf8_lossy(line);
        let mut read = 0;
        for shape in &tape.shapes.kept {
            if let Some((end, toks)) = read_alone(shape, line) {
                assert_eq!(Ok(end), expected, "{text}");
                assert_eq!(format!("{toks:?}"), format!("{:?}", slow.toks), "{text}");
                read += 1;
            }
        }
        assert_eq!(tape.parse_line_any(line), expected, "{text}");
        if expected.is_ok() {
            assert_eq!(
                format!("{:?}", tape.toks),
                format!("{:?}", slow.toks),
                "{text}"
            );
        }
        read
    }

    #[test]
    fn lines_read_by_a_recent_shape_agree_with_the_scalar_parser() {
        let mut rng = Rng(0x5eed_1234_5678_9abc);
        let mut tape = Tape::default();
        let (mut read, mut lines) = (0, 0);
        for _ in 0..1_000 {
            let mut base = Vec::new();
            let depth = 1 + rng.below(4);
            value(&mut rng, depth, &mut base);
            for _ in 0..32 {
                let line = rescalar(&mut rng, &base);
                read += check(&mut rng, &mut tape, line);
                lines += 1;
            }
        }
        let hits = tape.shapes.found.hits.0;
        assert!(
            read > lines / 8 && hits > 1_000,
            "{read}, {hits} of {lines}"
        );
    }

    /// Lines of many shapes, interleaved, that share their first parts: an object whose
    /// members each take one of a few values, so two shapes part at any member.
    #[test]
    fn lines_of_shapes_that_part_anywhere_agree_with_the_scalar_parser() {
        let mut rng = Rng(0x0dd_5ca1_ab1e_f00d);
        let (mut hits, mut resumed, mut lines) = (0, 0, 0);
        for _ in 0..200 {
            let mut tape = Tape::default();
            let members: Vec<Vec<Vec<u8>>> = (0..1 + rng.below(5))
                .map(|i| {
                    (0..1 + rng.below(3))
                        .map(|_| {
                            let mut member = format!("\"k{i}\": ").into_bytes();
                            let depth = 1 + rng.below(2);
                            value(&mut rng, depth, &mut member);
                            member
                        })
                        .collect()
                })
                .collect();
            for _ in 0..200 {
                let mut base = b"{".to_vec();
                for (i, choices) in members.iter().enumerate() {
                    if i > 0 {
                        base.extend_from_slice(b", ");
                    }
                    // Mostly the first, so that the shapes stay few enough to keep.
                    let choice = if rng.below(6) == 0 {
                        rng.below(choices.len())
                    } else {
                        0
                    };
                    base.extend_from_slice(&choices[choice]);
                }
                base.push(b'}');
                let line = rescalar(&mut rng, &base);
                // Every line tried by the kept shapes, however rarely they read one.
                tape.shapes.pause = 0;
                check(&mut rng, &mut tape, line);
                lines += 1;
            }
            hits += tape.shapes.found.hits.0;
            resumed += tape.shapes.found.hits.1;
        }
        assert!(
            hits > lines / 4 && resumed > 1_000,
            "{hits}, {resumed} of {lines}"
        );
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
