//! A line that repeats the structure of a line the tokenizer read before: the same bytes
//! everywhere but in its scalars (strings, numbers, `true`, `false`, `null`). Most JSON Lines
//! files hold few record shapes, written by one serializer, so most lines differ from one
//! before only in their scalar values. Such a line is read by comparing the bytes between its
//! scalars with the kept line's, and reading each scalar in place; its tape is the kept line's
//! with the scalars' tokens (and the keys' offsets) rewritten, so no structural scan runs.
//!
//! A read declines at the first difference (a [`Miss`]): a line it accepts is a line that
//! parsed with each scalar replaced by a scalar (strings without escapes or control bytes,
//! valid UTF-8), which parses to the same tape the other two parsers give, as the tests hold
//! it to the scalar parser. Shapes are tried from the first one kept; where one declines, the
//! shape kept from the last line declined at the same place takes over from there, sharing all
//! before it. So a file of many shapes in no order finds each line's in a few steps.

use super::error::SyntaxError;
use super::skeleton::scalar_kind;
use super::tape::{
    is_utf8, number_end, scan, Tape, Tok, ARRAY, FALSE, KEY, NULL, NUMBER, OBJECT, STRING, TRUE,
};

/// The longest line, and the most tokens, kept as a shape: larger lines are not worth a copy.
const MAX_LINE: usize = 1 << 14;
const MAX_TOKS: usize = 1 << 10;
/// How many shapes are kept, and the bytes their lines and tapes may hold together; when
/// either is full the least recently used shape makes room.
const SHAPES: usize = 64;
const SHAPE_BYTES: usize = 256 * 1024;
/// The most shapes tried for one line: the first one kept, then the shapes linked from where
/// each declined it.
const TRIES: usize = 8;
/// The words of scalar kinds [`Tape::shaped_kinds`] packs, sixteen kinds a word.
const KIND_WORDS: usize = 4;
/// Zero bytes after a kept line, so a gap's first 32 bytes can be read as four words.
const PAD: usize = 32;

/// A kept shape's stamp and the kinds of the scalars a line it read holds, four bits each
/// ([`Tape::shaped_kinds`]): two lines with both equal have one skeleton.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShapedKinds {
    stamp: u64,
    kinds: [u64; KIND_WORDS],
    /// More than sixteen scalars: the kinds take more than the first word.
    long: bool,
}

impl ShapedKinds {
    /// The stamp and the one word of kinds of a shape of at most sixteen scalars: most
    /// records, looked up by this smaller key (by the whole key the logs bench ran 8% slower).
    #[inline(always)]
    pub(crate) fn short(&self) -> Option<(u64, u64)> {
        (!self.long).then_some((self.stamp, self.kinds[0]))
    }
}

impl std::hash::Hash for ShapedKinds {
    /// One word from all five, each multiplied on its own so that no product waits on another:
    /// hashed as bytes, or folded in a chain, the key cost more than the lookup it serves.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        const ODD: [u64; KIND_WORDS] = [
            0x9e37_79b9_7f4a_7c15,
            0xc2b2_ae3d_27d4_eb4f,
            0x1656_67b1_9e37_79f9,
            0x27d4_eb2f_1656_67c5,
        ];
        let kinds = self.kinds.iter().zip(ODD).map(|(&w, k)| w.wrapping_mul(k));
        state.write_u64(kinds.fold(self.stamp, |hash, word| hash ^ word));
    }
}

/// The bytes of a kept line between two scalars (or before the first, or after the last).
#[derive(Clone, Copy, Default)]
struct Gap {
    start: u32,
    len: u32,
    /// Its first 32 bytes as four little-endian words (with the bytes after it, which the
    /// masks drop), and the masks.
    words: [u64; 4],
    masks: [u64; 4],
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
            words: [0, 8, 16, 24].map(|at| word(padded, at)),
            masks: [0, 8, 16, 24].map(|at| low_bytes(len.saturating_sub(at))),
        }
    }

    /// `None` when `buf[at..]` starts with this gap of `line`, else where the first byte
    /// that differs is, counted from `at`.
    #[inline(always)]
    fn differs(&self, buf: &[u8], at: usize, line: &[u8]) -> Option<usize> {
        let len = self.len as usize;
        // Sixteen bytes at a time, as two words: most gaps take one step, nearly all two.
        for (step, from) in [0, 16].into_iter().enumerate() {
            let Some(have) = buf.get(at + from..at + from + 16) else {
                break;
            };
            let low = (word(have, 0) ^ self.words[2 * step]) & self.masks[2 * step];
            let high = (word(have, 8) ^ self.words[2 * step + 1]) & self.masks[2 * step + 1];
            if low | high != 0 {
                let first = if low != 0 { low } else { high };
                let byte = usize::from(low == 0) * 8 + first.trailing_zeros() as usize / 8;
                return Some(from + byte);
            }
            if len <= from + 16 {
                return None;
            }
        }
        self.differs_past_32(buf, at, line)
    }

    #[cold]
    #[inline(never)]
    fn differs_past_32(&self, buf: &[u8], at: usize, line: &[u8]) -> Option<usize> {
        let start = self.start as usize;
        let want = &line[start..start + self.len as usize];
        let have = buf.get(at..).unwrap_or_default();
        if have.get(..want.len()) == Some(want) {
            return None;
        }
        (0..want.len()).find(|&i| have.get(i) != Some(&want[i]))
    }
}

/// Where a shape declined a line: the gap (or the scalar after it) that differed, how far into
/// the gap, and the line's byte there. All three follow from the shape and the line's layout,
/// not its scalars' text, as a scalar's first byte counts for any scalar's: so a line of the
/// same layout is declined at the same place, and is read by the shape linked from there.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Miss {
    index: u32,
    offset: u32,
    byte: u8,
}

impl Miss {
    #[inline(always)]
    fn at(buf: &[u8], index: usize, offset: usize, at: usize) -> Miss {
        let byte = match buf.get(at) {
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => b'0',
            Some(&byte) => byte,
            None => b'\n',
        };
        Miss {
            index: index as u32,
            offset: offset as u32,
            byte,
        }
    }

    /// A line declined for its text (bytes that are not UTF-8): no other shape helps.
    const NONE: Miss = Miss {
        index: u32::MAX,
        offset: 0,
        byte: 0,
    };
}

/// Where a read stands before a gap: its index, where it starts in the line, how many keys came
/// before it, and whether a string so far may hold bytes that are not ASCII. A shape linked
/// from where another declined a line has the same gaps, scalars and keys before that point, so
/// it goes on from there.
#[derive(Clone, Copy, Default)]
struct Resume {
    index: usize,
    new: usize,
    next: usize,
    high: bool,
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
    /// When it last read a line (or was kept), for making room.
    used: u64,
}

impl Shape {
    fn bytes(&self) -> usize {
        self.line.len()
            + self.toks.len() * std::mem::size_of::<Tok>()
            + self.scalars.len() * std::mem::size_of::<(u32, Gap, u32)>()
            + self.keys.len() * 8
    }
}

/// The shapes kept, tried from the first one kept and along the links.
#[derive(Default)]
pub(crate) struct Shapes {
    kept: Vec<Shape>,
    /// The shape that read the last line, if one did.
    reader: Option<usize>,
    /// A shape that declined a line and where, to the shape tried next: the one kept from the
    /// first line declined there.
    links: hashbrown::HashMap<(u32, Miss), u32>,
    /// Where the last shape tried for the line being parsed declined it.
    missed: Option<(u32, Miss, Resume)>,
    bytes: usize,
    /// Counts lines, for [`Shape::used`].
    clock: u64,
    /// Rises by one with each line that matched a kept shape (up to `CREDIT`), falls by
    /// `MISS` with each that did not: shapes pay only when nearly every line repeats one.
    credit: i32,
    /// Misses forgiven so far: a reader's first `LEARN` misses cost no credit, so that a file
    /// of many shapes in no order learns them before its tries are judged.
    learned: u32,
    /// Lines left before shapes are tried again, once the credit fell below zero: a file whose
    /// lines rarely repeat a shape would pay for the tries and the copies.
    pause: u32,
    /// The next pause, doubled each time the tries fail again.
    backoff: u32,
    /// The shape whose tokens the tape holds (see `Shape::read`).
    laid: Option<usize>,
    /// The shape that has the structure and keys of the last line parsed.
    described: Option<usize>,
    /// Whether the line just parsed was read by the shape that described the line before:
    /// the two lines then have the same keys everywhere, in the same order.
    repeat: bool,
    /// Whether the line just parsed was read by a kept shape.
    shaped: bool,
    /// The last stamp given to a shape.
    stamps: u64,
}

/// The misses forgiven while a reader learns its shapes.
const LEARN: u32 = 64;

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
    fn read(
        &self,
        buf: &[u8],
        toks: &mut Vec<Tok>,
        laid: bool,
        from: Resume,
    ) -> Result<usize, (Miss, Resume)> {
        if !laid || toks.len() != self.toks.len() {
            toks.clear();
            toks.extend_from_slice(&self.toks);
        }
        let toks = &mut toks[..];
        let Resume {
            mut new,
            mut next,
            mut high,
            ..
        } = from;
        let none = |_| (Miss::NONE, Resume::default());
        // The keys in a gap move with it.
        let keys = |toks: &mut [Tok], from: usize, to: usize, new: usize| -> Option<()> {
            for &(k, offset) in self.keys.get(from..to)? {
                toks.get_mut(k as usize)?.a = (new as u32).wrapping_add(offset);
            }
            Some(())
        };
        let scalars = self.scalars.get(from.index..).ok_or(()).map_err(none)?;
        for (index, &(at, ref gap, end)) in (from.index..).zip(scalars) {
            // Made only on a miss, from where the read stood before the gap (`scalar` leaves
            // `high` as it was when it declines).
            let here = |new, next, high| Resume {
                index,
                new,
                next,
                high,
            };
            if let Some(off) = gap.differs(buf, new, &self.line) {
                return Err((Miss::at(buf, index, off, new + off), here(new, next, high)));
            }
            keys(toks, next, end as usize, new)
                .ok_or(())
                .map_err(none)?;
            let before = (new, next);
            next = end as usize;
            new += gap.len as usize;
            let Some((tok, end)) = scalar(buf, new, &mut high) else {
                let miss = Miss::at(buf, index, gap.len as usize, new);
                return Err((miss, here(before.0, before.1, high)));
            };
            *toks.get_mut(at as usize).ok_or(()).map_err(none)? = tok;
            new = end;
        }
        let here = Resume {
            index: self.scalars.len(),
            new,
            next,
            high,
        };
        if let Some(off) = self.tail.differs(buf, new, &self.line) {
            return Err((Miss::at(buf, here.index, off, new + off), here));
        }
        keys(toks, next, self.keys.len(), new)
            .ok_or(())
            .map_err(none)?;
        new += self.tail.len as usize;
        if !matches!(buf.get(new), None | Some(b'\n')) || new >= u32::MAX as usize {
            return Err((Miss::at(buf, here.index, self.tail.len as usize, new), here));
        }
        if high && !is_utf8(&buf[..new]) {
            return Err((Miss::NONE, here));
        }
        Ok(new)
    }

    /// Whether `other` has this shape's gaps, scalar tokens and keys before gap `index`, `next`
    /// keys coming before it: a line this shape declined there may go on with `other`.
    fn shares(&self, other: &Shape, index: usize, next: usize) -> bool {
        let (Some(mine), Some(theirs)) = (self.scalars.get(..index), other.scalars.get(..index))
        else {
            return false;
        };
        fn text<'s>(shape: &'s Shape, gap: &Gap) -> Option<&'s [u8]> {
            let start = gap.start as usize;
            shape.line.get(start..start + gap.len as usize)
        }
        let same = mine.iter().zip(theirs).all(|(a, b)| {
            (a.0, a.2) == (b.0, b.2)
                && text(self, &a.1).is_some()
                && text(self, &a.1) == text(other, &b.1)
        });
        same && self.keys.get(..next).is_some() && self.keys.get(..next) == other.keys.get(..next)
    }

    /// Lays this shape's tape in `toks`, which holds `from`'s read of a line up to `at`, with
    /// the scalars and keys read so far kept: the read goes on with this shape from there. The
    /// two share every token before gap `at.index` but for the containers' ends and counts.
    fn take_over(&self, from: &Shape, at: Resume, toks: &mut Vec<Tok>) -> bool {
        let start = match at.index.checked_sub(1) {
            Some(last) => from
                .scalars
                .get(last)
                .map_or(usize::MAX, |s| s.0 as usize + 1),
            None => 0,
        };
        // `shares`, checked when the link was made, holds these; a read never trusts it blind.
        let (Some(rest), true) = (self.toks.get(start..), start <= toks.len()) else {
            return false;
        };
        toks.truncate(start);
        toks.extend_from_slice(rest);
        for (mine, theirs) in toks[..start].iter_mut().zip(&self.toks[..start]) {
            if theirs.tag >= ARRAY {
                *mine = *theirs;
            }
        }
        true
    }
}

impl Tape {
    /// Parses one JSON Lines line as [`Tape::parse_line`] does: by a kept line's shape when
    /// it repeats one, else by the structural scan, else by the scalar parser (which alone
    /// reports errors).
    #[inline(never)]
    pub(crate) fn parse_line_any(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        let shapes = &mut self.shapes;
        shapes.missed = None;
        shapes.clock += 1;
        shapes.reader = None;
        if shapes.pause == 0 && !shapes.kept.is_empty() {
            // From the first shape kept, along the links: they grow as a tree of the layouts
            // met, each kept once, where the last shape read would link every pair of them.
            let (mut at, mut from) = (0, Resume::default());
            for _ in 0..TRIES {
                let laid = shapes.laid == Some(at);
                let read = shapes.kept[at].read(buf, &mut self.toks, laid, from);
                shapes.laid = Some(at);
                let (miss, here) = match read {
                    Ok(end) => {
                        shapes.shaped = true;
                        shapes.repeat = shapes.described == Some(at);
                        shapes.described = Some(at);
                        shapes.reader = Some(at);
                        shapes.kept[at].used = shapes.clock;
                        shapes.credit = (shapes.credit + 1).min(CREDIT);
                        if shapes.credit == CREDIT {
                            shapes.backoff = PAUSE;
                        }
                        return Ok(end);
                    }
                    Err(declined) => declined,
                };
                if miss == Miss::NONE {
                    break;
                }
                shapes.missed = Some((at as u32, miss, here));
                let Some(&next) = shapes.links.get(&(at as u32, miss)) else {
                    break;
                };
                let (next, declined) = (next as usize, &shapes.kept[at]);
                if !shapes.kept[next].take_over(declined, here, &mut self.toks) {
                    break;
                }
                (at, from) = (next, here);
                shapes.laid = Some(at);
            }
        }
        let parsed = match self.parse_line_fast(buf) {
            Some(end) => Ok(end),
            None => self.parse_line(buf),
        };
        let shapes = &mut self.shapes;
        shapes.shaped = false;
        shapes.laid = None;
        shapes.repeat = false;
        shapes.described = None;
        if shapes.pause > 0 {
            shapes.pause -= 1;
        } else if let Ok(end) = parsed {
            if shapes.learned < LEARN {
                shapes.learned += 1;
            } else {
                shapes.credit -= MISS;
            }
            if shapes.credit < 0 {
                shapes.credit = 0;
                shapes.pause = shapes.backoff.max(PAUSE);
                shapes.backoff = (shapes.pause * 2).min(MAX_PAUSE);
            }
            let kept = self.remember(buf, end);
            let shapes = &mut self.shapes;
            (shapes.laid, shapes.described) = (kept, kept);
            // The line was read by the shape that declined it up to there, so the shape kept
            // from it shares all before: checked all the same, as a read relies on it. Making
            // room replaces only the place `remember` returns, so `from` is still that shape
            // unless it is `new`.
            if let (Some(new), Some((from, miss, here))) = (kept, shapes.missed) {
                let (declined, taken) = (&shapes.kept[from as usize], &shapes.kept[new]);
                if from as usize != new && declined.shares(taken, here.index, here.next) {
                    shapes.links.entry((from, miss)).or_insert(new as u32);
                }
            }
        }
        parsed
    }

    /// Whether the line just parsed has the keys of the line parsed before it, everywhere and
    /// in the same order (both read by one kept shape, or the first kept when read).
    #[inline]
    pub(crate) fn repeats_keys(&self) -> bool {
        self.shapes.repeat
    }

    /// The shape that read the line just parsed, if one did.
    fn reader(&self) -> Option<&Shape> {
        self.shapes.kept.get(self.shapes.reader?)
    }

    /// For a line just read by a kept shape (`line` holding its bytes), that shape's stamp and
    /// its scalars' kinds, four bits each: two lines with both equal have one skeleton, their
    /// keys and nesting being the shape's. `None` for another line or more than 64 scalars.
    #[inline]
    pub(crate) fn shaped_kinds(&self, line: &[u8]) -> Option<ShapedKinds> {
        let shape = self.reader()?;
        if shape.scalars.len() > 16 * KIND_WORDS {
            return None;
        }
        let mut kinds = [0u64; KIND_WORDS];
        // Sixteen to a word, packed in a register: through the array, each kind waited on the
        // store of the one before.
        for (word, scalars) in kinds.iter_mut().zip(shape.scalars.chunks(16)) {
            let mut packed = 0u64;
            for &(at, _, _) in scalars {
                packed = (packed << 4) | scalar_kind(self.toks.get(at as usize)?, line);
            }
            *word = packed;
        }
        Some(ShapedKinds {
            stamp: shape.stamp,
            kinds,
            long: shape.scalars.len() > 16,
        })
    }

    /// Whether the line just parsed was read by a kept shape.
    #[inline]
    pub(crate) fn read_by_shape(&self) -> bool {
        self.shapes.shaped
    }

    /// Keeps the line just parsed (`buf[..end]`, whose tape this is) as a shape, in a new place
    /// or in that of the least recently used shape; its place, or `None` when it is too large
    /// to keep.
    fn remember(&mut self, buf: &[u8], end: usize) -> Option<usize> {
        if end > MAX_LINE || self.toks.len() > MAX_TOKS {
            return None;
        }
        let shapes = &mut self.shapes;
        shapes.stamps += 1;
        let size = end + PAD + self.toks.len() * 32;
        let at = if shapes.kept.len() < SHAPES && shapes.bytes + size <= SHAPE_BYTES {
            shapes.kept.push(Shape::default());
            shapes.kept.len() - 1
        } else {
            // Links name places: those from or to the place given up would mislead.
            shapes.links.clear();
            let (at, _) = shapes.kept.iter().enumerate().min_by_key(|(_, s)| s.used)?;
            shapes.bytes -= shapes.kept[at].bytes();
            at
        };
        let shape = &mut shapes.kept[at];
        shape.stamp = shapes.stamps;
        shape.used = shapes.clock;
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
        // Kept for long, and at most once per line a shape reads: no room to spare.
        shape.line.shrink_to_fit();
        shape.toks.shrink_to_fit();
        shape.scalars.shrink_to_fit();
        shape.keys.shrink_to_fit();
        shapes.bytes += shape.bytes();
        Some(at)
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
        let (mut read, mut shaped, mut linked, mut lines) = (0, 0, 0, 0);
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
                    if let Ok(end) = shape.read(line, &mut toks, false, Resume::default()) {
                        assert_eq!(Ok(end), expected, "{text}");
                        assert_eq!(format!("{toks:?}"), format!("{:?}", slow.toks), "{text}");
                        read += 1;
                    }
                }
                assert_eq!(tape.parse_line_any(line), expected, "{text}");
                // Lines the tape read by a shape, and of those the ones a linked shape took
                // over from the one that declined them.
                shaped += u32::from(tape.shapes.shaped);
                linked += u32::from(tape.shapes.shaped && tape.shapes.missed.is_some());
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
        // A new structure every 32 lines, one line in 8 broken: the tries mostly pause.
        assert!(
            read > lines / 8 && shaped > 500 && linked > 300,
            "{read}, {shaped}, {linked} of {lines}"
        );
    }

    #[test]
    fn a_gap_finds_the_first_byte_that_differs_as_a_byte_by_byte_compare_does() {
        let mut rng = Rng(0x6a9);
        for _ in 0..40_000 {
            let len = rng.below(81);
            let alphabet = b"ab\":, {}";
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let mut line = b"xy".to_vec();
            line.extend_from_slice(&text);
            line.extend_from_slice(&[0; PAD]);
            let gap = Gap::new(&line, 2, 2 + len);
            // The same text, perhaps changed at one byte, cut short, or followed by more.
            let mut buf = b"z".to_vec();
            buf.extend_from_slice(&text);
            if len > 0 && rng.below(2) == 0 {
                let at = 1 + rng.below(len);
                buf[at] = alphabet[rng.below(alphabet.len())];
            }
            match rng.below(3) {
                0 => buf.truncate(1 + rng.below(len + 1)),
                1 => buf.extend((0..rng.below(40)).map(|_| alphabet[rng.below(alphabet.len())])),
                _ => {}
            }
            let have = &buf[1..];
            let expected = (0..len).find(|&i| have.get(i) != Some(&text[i]));
            assert_eq!(gap.differs(&buf, 1, &line), expected, "{text:?} {buf:?}");
        }
    }

    #[test]
    fn lines_of_many_layouts_in_no_order_are_read_by_linked_shapes_as_the_scalar_parser_reads_them()
    {
        let mut rng = Rng(0xfeed_5eed);
        let (mut linked, mut lines) = (0, 0);
        for _ in 0..20 {
            let layouts: Vec<Vec<u8>> = (0..24)
                .map(|_| {
                    let mut base = Vec::new();
                    let depth = 2 + rng.below(3);
                    value(&mut rng, depth, &mut base);
                    base
                })
                .collect();
            let mut tape = Tape::default();
            for _ in 0..2_000 {
                let layout = &layouts[rng.below(layouts.len())];
                let line = rescalar(&mut rng, layout, true);
                if line.first().is_none_or(|&b| b" \t\r\n".contains(&b)) {
                    continue;
                }
                let mut slow = Tape::default();
                let expected = slow.parse_line(&line);
                let text = String::from_utf8_lossy(&line);
                assert_eq!(tape.parse_line_any(&line), expected, "{text}");
                if expected.is_ok() {
                    let (got, want) = (format!("{:?}", tape.toks), format!("{:?}", slow.toks));
                    assert_eq!(got, want, "{text}");
                }
                linked += u32::from(tape.shapes.shaped && tape.shapes.missed.is_some());
                lines += 1;
            }
        }
        assert!(linked > lines / 2, "{linked} of {lines}");
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
