//! Repeated line skeletons in JSON Lines. Without enums and formats, inference reads no
//! scalar's value, only its kind, so a line whose tokens, keys and scalar kinds are those of
//! a line already added changes nothing but counts. Such a line is only counted against the
//! kept copy of that line, which is added once more at the end, weighted by the count
//! ([`Accumulator::add_weighted`]).

use hashbrown::HashMap;

use super::builder::Accumulator;
use super::fields::pack;
use super::options::Options;
use super::parsed::{classify, Parsed, HEAD_MASKS};
use super::shape::ShapedKinds;
use super::source::NumberClass;
use super::tape::{Tape, Tok, EXPONENT, FALSE, FRACTION, KEY, NULL, NUMBER, TRUE};

/// Skeletons kept per reader, per bucket, and the bytes their words and lines may hold together.
const KEPT_LIMIT: usize = 1024;
const CHAIN_LIMIT: u32 = 8;
const BYTES_LIMIT: usize = 512 * 1024;
/// Lines looked up before the hit rate is judged, and the rate below which a reader stops
/// looking (a miss costs about a tenth of what a hit saves).
const TRIAL: u64 = 4096;
const MIN_HITS_PER: u64 = 8;
const NONE: u32 = u32::MAX;

/// A line's skeleton, in the pieces [`same`] checks in turn.
#[derive(Clone, Default)]
struct Skeleton {
    /// Each token's [`rough`] word.
    words: Vec<u64>,
    /// Each number's token index and [`kind`].
    numbers: Vec<(u32, u64)>,
    /// Each key's token index and first sixteen bytes.
    keys: Vec<(u32, [u64; 2])>,
    /// The bytes of long keys past their first sixteen, eight to a word.
    tails: Vec<u64>,
}

impl Skeleton {
    fn bytes(&self) -> usize {
        self.words.len() * 8 + self.numbers.len() * 16 + self.keys.len() * 24 + self.tails.len() * 8
    }
}

struct Kept {
    skeleton: Skeleton,
    line: Box<[u8]>,
    pending: u64,
    /// The next skeleton in the same bucket.
    next: u32,
}

/// The skeletons one reader has met, and how many lines repeated each since the last flush.
pub(crate) struct Skeletons {
    on: bool,
    /// A line's bucket (the hash of its token count and sixteen of its tokens' [`rough`] words)
    /// to the first of its skeletons in `kept`, and how many it has.
    index: HashMap<u64, (u32, u32)>,
    kept: Vec<Kept>,
    /// A kept shape's stamp and its scalars' kinds ([`Tape::shaped_kinds`]) to the skeleton
    /// a line with both was found to have.
    shaped: HashMap<(u64, u64), u32>,
    /// The same for shapes of more than sixteen scalars.
    shaped_long: HashMap<ShapedKinds, u32>,
    scratch: Skeleton,
    bytes: usize,
    looked: u64,
    hits: u64,
}

impl Skeletons {
    pub fn new(opts: Options) -> Skeletons {
        Skeletons {
            on: !opts.enums && !opts.format,
            index: HashMap::new(),
            kept: Vec::new(),
            shaped: HashMap::new(),
            shaped_long: HashMap::new(),
            scratch: Skeleton::default(),
            bytes: 0,
            looked: 0,
            hits: 0,
        }
    }

    /// Never looks a line up.
    #[cfg(test)]
    pub fn off() -> Skeletons {
        Skeletons {
            on: false,
            ..Skeletons::new(Options::default())
        }
    }

    /// Whether the line whose tokens are `toks` (`line` holding exactly its bytes) repeats a
    /// kept skeleton, in which case it is counted and must not be added; otherwise it is kept,
    /// room allowing, and the caller adds it. `shaped` is [`Tape::shaped_kinds`] of the line.
    #[inline]
    pub fn repeats(&mut self, toks: &[Tok], line: &[u8], shaped: Option<ShapedKinds>) -> bool {
        if !self.on {
            return false;
        }
        self.looked += 1;
        let found = shaped.and_then(|key| match key.short() {
            Some(short) => self.shaped.get(&short),
            None => self.shaped_long.get(&key),
        });
        if let Some(&at) = found {
            self.kept[at as usize].pending += 1;
            self.hits += 1;
            return true;
        }
        // Sixteen tokens spread over the line and their count pick the bucket; `same` checks
        // every token.
        let step = (toks.len() / 16).max(1);
        let hash = toks
            .iter()
            .step_by(step)
            .fold(toks.len() as u64, |hash, t| mix(hash, rough(t)));
        let (first, chain) = self.index.get(&hash).copied().unwrap_or((NONE, 0));
        let (mut at, mut before) = (first, NONE);
        while let Some(kept) = self.kept.get_mut(at as usize) {
            if same(&kept.skeleton, toks, line) {
                kept.pending += 1;
                self.hits += 1;
                if before != NONE {
                    self.bring_forward(hash, at, before);
                }
                self.learn(shaped, at);
                return true;
            }
            (before, at) = (at, kept.next);
        }
        if self.looked >= TRIAL && self.hits * MIN_HITS_PER < self.looked {
            self.on = false;
        } else if chain < CHAIN_LIMIT {
            if let Some(at) = self.keep(hash, toks, line) {
                self.learn(shaped, at);
            }
        }
        false
    }

    /// Moves skeleton `at`, found after `before` in its bucket's chain, to the chain's front.
    #[cold]
    fn bring_forward(&mut self, hash: u64, at: u32, before: u32) {
        let next = self.kept[at as usize].next;
        self.kept[before as usize].next = next;
        if let Some((first, _)) = self.index.get_mut(&hash) {
            self.kept[at as usize].next = *first;
            *first = at;
        }
    }

    /// Remembers that lines read by a kept shape with these scalar kinds have skeleton `at`.
    #[cold]
    fn learn(&mut self, shaped: Option<ShapedKinds>, at: u32) {
        if let Some(key) = shaped {
            if self.shaped.len() + self.shaped_long.len() >= KEPT_LIMIT {
                self.shaped.clear();
                self.shaped_long.clear();
            }
            match key.short() {
                Some(short) => self.shaped.insert(short, at),
                None => self.shaped_long.insert(key, at),
            };
        }
    }

    #[cold]
    #[inline(never)]
    fn keep(&mut self, hash: u64, toks: &[Tok], line: &[u8]) -> Option<u32> {
        write(&mut self.scratch, toks, line);
        let size = self.scratch.bytes() + line.len();
        if self.kept.len() >= KEPT_LIMIT || self.bytes + size > BYTES_LIMIT {
            return None;
        }
        self.bytes += size;
        let id = self.kept.len() as u32;
        let (first, chain) = self.index.entry(hash).or_insert((NONE, 0));
        self.kept.push(Kept {
            skeleton: self.scratch.clone(),
            line: line.into(),
            pending: 0,
            next: *first,
        });
        (*first, *chain) = (id, *chain + 1);
        Some(id)
    }

    /// Adds each counted repeat to `acc`, its kept line once with the count as weight.
    pub fn flush(&mut self, acc: &mut Accumulator) {
        let mut tape = Tape::default();
        for kept in &mut self.kept {
            let weight = std::mem::take(&mut kept.pending);
            if weight > 0 && tape.parse_line(&kept.line).is_ok() {
                acc.add_weighted(Parsed::root(&tape, &kept.line), weight);
            }
        }
    }
}

#[inline(always)]
fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// Per tag, the word [`rough`] starts from (a boolean's is `TRUE`'s) and the mask of the bits
/// above it that keep `b` (a key's length, a container's child count).
const ROUGH: [(u64, u64); 8] = {
    let mut table = [(0, 0); 8];
    let mut tag = 0;
    while tag < 8 {
        let word = if tag == FALSE as usize {
            TRUE
        } else {
            tag as u8
        };
        let sized = if tag >= KEY as usize { !0xFF } else { 0 };
        table[tag] = (word as u64, sized);
        tag += 1;
    }
    table
};

/// A token's kind without a number's class: booleans alike, and a key's length or a
/// container's child count above the tag. By table, without branches: it is hashed for every
/// line.
#[inline(always)]
fn rough(t: &Tok) -> u64 {
    let (word, sized) = ROUGH[usize::from(t.tag & 7)];
    word | ((u64::from(t.b) << 8) & sized)
}

/// A token's word in a skeleton: [`rough`], with a number's class above the tag.
#[inline(always)]
fn kind(t: &Tok, line: &[u8]) -> u64 {
    let rough = rough(t);
    if t.tag != NUMBER || (t.flag & (FRACTION | EXPONENT) == 0 && t.b <= 308) {
        return rough;
    }
    let text = &line[t.a as usize..(t.a + t.b) as usize];
    rough
        | match classify(text, t.flag & (FRACTION | EXPONENT)) {
            NumberClass::Integer => 0,
            NumberClass::Fraction => 1 << 8,
            NumberClass::NonFinite => 2 << 8,
        }
}

/// A scalar token's kind in four bits: null, boolean, string, or a number by class.
#[inline(always)]
pub(crate) fn scalar_kind(t: &Tok, line: &[u8]) -> u64 {
    match t.tag {
        NULL => 0,
        TRUE | FALSE => 1,
        NUMBER => match kind(t, line) >> 8 {
            0 => 3,
            1 => 4,
            _ => 5,
        },
        _ => 2,
    }
}

/// Whether the tokens `toks` of `line` have the skeleton `kept`: every token's rough word,
/// then each number's class, then each key's bytes.
#[inline(never)]
fn same(kept: &Skeleton, toks: &[Tok], line: &[u8]) -> bool {
    if toks.len() != kept.words.len() {
        return false;
    }
    // Four tokens a step, their differences or-ed: one branch where there were four.
    let (toks4, words4) = (toks.chunks_exact(4), kept.words.chunks_exact(4));
    let rest = toks4.remainder().iter().zip(words4.remainder());
    for (t, w) in toks4.zip(words4) {
        let differ = (rough(&t[0]) ^ w[0])
            | (rough(&t[1]) ^ w[1])
            | (rough(&t[2]) ^ w[2])
            | (rough(&t[3]) ^ w[3]);
        if differ != 0 {
            return false;
        }
    }
    if !rest.into_iter().all(|(t, &w)| rough(t) == w) {
        return false;
    }
    let numbers = kept
        .numbers
        .iter()
        .all(|&(at, word)| toks.get(at as usize).is_some_and(|t| kind(t, line) == word));
    if !numbers {
        return false;
    }
    let mut tails = &kept.tails[..];
    for &(at, head) in &kept.keys {
        let Some(&t) = toks.get(at as usize) else {
            return false;
        };
        if key_words(line, t) != head {
            return false;
        }
        if t.b > 16 {
            let long = long_words(line, t);
            match tails.split_at_checked(long.len()) {
                Some((these, rest)) if *these == long[..] => tails = rest,
                _ => return false,
            }
        }
    }
    true
}

/// The words of a key's bytes past its first sixteen.
#[cold]
fn long_words(line: &[u8], t: Tok) -> Vec<u64> {
    line[t.a as usize + 16..(t.a + t.b) as usize]
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect()
}

/// Writes the skeleton of a line: each token's [`rough`] word, each number's [`kind`], each
/// key's first sixteen bytes, and the bytes of long keys past them, eight to a word.
fn write(out: &mut Skeleton, toks: &[Tok], line: &[u8]) {
    out.words.clear();
    out.numbers.clear();
    out.keys.clear();
    out.tails.clear();
    for (at, t) in toks.iter().enumerate() {
        out.words.push(rough(t));
        if t.tag == NUMBER {
            out.numbers.push((at as u32, kind(t, line)));
        }
        if t.tag == KEY {
            out.keys.push((at as u32, key_words(line, *t)));
            if t.b > 16 {
                out.tails.extend(long_words(line, *t));
            }
        }
    }
}

/// The first sixteen bytes of the key token `t`, zero past its end.
#[inline(always)]
fn key_words(line: &[u8], t: Tok) -> [u64; 2] {
    let (start, len) = (t.a as usize, t.b as usize);
    match line.get(start..start + 16) {
        Some(bytes) => {
            let word = |at: usize| {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(&bytes[at..at + 8]);
                u64::from_le_bytes(raw)
            };
            let [low, high] = HEAD_MASKS[len.min(16)];
            [word(0) & low, word(8) & high]
        }
        None => pack(&line[start..start + len]),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::{read_chunk, ErrorMode, Outcome};
    use super::super::render::Render;
    use super::super::slot::{Slot, Variants};
    use super::*;
    use crate::testing::xorshift;

    /// Everything an accumulator's state says but its hints and the order things were met in:
    /// counts, flags, enums and formats per slot, columns by key, variants by schema.
    fn dump(acc: &Accumulator) -> String {
        let (ctx, root) = acc.parts();
        let render = Render::new(ctx);
        let mut out = format!("samples {}\n", acc.samples());
        slot(&mut out, ctx, &render, root, 0);
        out
    }

    fn slot(
        out: &mut String,
        ctx: &super::super::ctx::Ctx,
        render: &Render<'_>,
        s: &Slot,
        d: usize,
    ) {
        let pad = " ".repeat(d);
        out.push_str(&format!(
            "{pad}count {} records {} arrays {} leaves {} enums {:?} formats {:?}\n",
            s.count, s.records, s.arrays, s.leaves, s.enums, s.formats
        ));
        if let Variants::Exact(list) = &s.variants {
            let mut terms: Vec<String> = list.iter().map(|&t| render.term(t).to_text()).collect();
            terms.sort();
            out.push_str(&format!("{pad}variants {terms:?}\n"));
        }
        if let Some(fields) = &s.fields {
            out.push_str(&format!(
                "{pad}rows {} truncated {} opened {}\n",
                fields.rows, fields.truncated, fields.opened
            ));
            let mut columns: Vec<_> = fields.columns.iter().collect();
            columns.sort_by_key(|c| ctx.keys.get(c.key).to_vec());
            for c in columns {
                let key = String::from_utf8_lossy(ctx.keys.get(c.key));
                out.push_str(&format!("{pad}{key:?} present {}\n", c.present));
                slot(out, ctx, render, &c.slot, d + 1);
            }
        }
        if let Some(items) = &s.items {
            out.push_str(&format!("{pad}items\n"));
            slot(out, ctx, render, items, d + 1);
        }
    }

    /// Scalars by kind, each kind in several spellings (numbers by class).
    const KINDS: [&[&str]; 6] = [
        &["null"],
        &["true", "false"],
        &["1", "-0", "1.0", "2e3", "-1E-400", "12345678901234567890"],
        &["1.5", "0.25", "-1.5e-3"],
        &["1e400", "-1E400"],
        &[
            "\"a\"",
            "\"b\\\"c\"",
            "\"\\ud800\"",
            "\"\u{e9}t\u{e9}\"",
            "\"\"",
        ],
    ];

    fn pick<'a>(rng: &mut u64, from: &[&'a str]) -> &'a str {
        from[(xorshift(rng) % from.len() as u64) as usize]
    }

    /// A value whose scalars are holes, `@` and the kind they were drawn with.
    fn value(rng: &mut u64, depth: u32) -> String {
        let keys = [
            "id",
            "ab",
            "ba",
            "k\\u0061",
            "ka",
            "a_key_longer_than_sixteen",
            "a_key_longer_than_sixteeN",
            "x",
            "y",
            "",
        ];
        match xorshift(rng) % if depth == 0 { 2 } else { 8 } {
            0 | 1 => format!("@{}", xorshift(rng) % KINDS.len() as u64),
            2..=4 => {
                let n = xorshift(rng) % 4;
                let entries: Vec<String> = (0..n)
                    .map(|_| format!("\"{}\": {}", pick(rng, &keys), value(rng, depth - 1)))
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            _ => {
                let n = xorshift(rng) % 3;
                let items: Vec<String> = (0..n).map(|_| value(rng, depth - 1)).collect();
                format!("[{}]", items.join(","))
            }
        }
    }

    /// A template with each hole filled by another spelling of its kind, or now and then by
    /// a scalar of any kind; now and then a key changes too, keeping its length.
    fn fill(rng: &mut u64, template: &str) -> String {
        let mut filled = String::new();
        let mut parts = template.split('@');
        filled.push_str(parts.next().unwrap_or_default());
        for part in parts {
            let (kind, rest) = part.split_at(1);
            let kind = if xorshift(rng) % 4 == 0 {
                (xorshift(rng) % KINDS.len() as u64) as usize
            } else {
                kind.parse().unwrap_or(0)
            };
            filled.push_str(pick(rng, KINDS[kind]));
            filled.push_str(rest);
        }
        for (from, to) in [("\"ab\":", "\"ba\":"), ("sixteen\":", "sixteeN\":")] {
            if xorshift(rng) % 4 == 0 {
                filled = filled.replacen(from, to, 1);
            }
        }
        filled
    }

    /// JSON Lines from a few record templates, mostly in runs of one, with now and then a line
    /// of another kind, a blank line or a bad one.
    fn lines(rng: &mut u64, count: usize) -> Vec<u8> {
        let templates: Vec<String> = (0..1 + xorshift(rng) % 6)
            .map(|_| format!("{{\"t\": @2, \"v\": {}}}", value(rng, 3)))
            .collect();
        let mut out = Vec::new();
        let mut current = 0;
        for _ in 0..count {
            let line = match xorshift(rng) % 20 {
                0 => {
                    let template = value(rng, 3);
                    fill(rng, &template)
                }
                1 => String::new(),
                2 => "{\"bad\": ".to_string(),
                _ => {
                    if xorshift(rng) % 4 == 0 {
                        current = (xorshift(rng) % templates.len() as u64) as usize;
                    }
                    fill(rng, &templates[current])
                }
            };
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn read(opts: Options, data: &[u8], mut skeletons: Skeletons) -> (Accumulator, Outcome, u64) {
        let mut acc = Accumulator::new(opts);
        let out = read_chunk(
            &mut acc,
            &mut Tape::default(),
            &mut skeletons,
            data,
            ErrorMode::Skip,
        );
        let hits = skeletons.hits;
        skeletons.flush(&mut acc);
        (acc, out, hits)
    }

    #[test]
    fn a_reader_whose_lines_rarely_repeat_stops_looking_and_keeps_its_counts() {
        let mut data = Vec::new();
        for i in 0..6000 {
            let line = if !(100..5900).contains(&i) {
                format!("{{\"a\": {i}, \"b\": [true]}}\n")
            } else {
                format!("{{\"k{i}\": {i}}}\n")
            };
            data.extend_from_slice(line.as_bytes());
        }
        let opts = Options::default();
        let (want, _, _) = read(opts, &data, Skeletons::off());
        let mut skeletons = Skeletons::new(opts);
        let mut acc = Accumulator::new(opts);
        read_chunk(
            &mut acc,
            &mut Tape::default(),
            &mut skeletons,
            &data,
            ErrorMode::Skip,
        );
        assert!(
            !skeletons.on,
            "still looking after {} lines",
            skeletons.looked
        );
        assert_eq!(skeletons.hits, 99);
        skeletons.flush(&mut acc);
        assert_eq!(dump(&acc), dump(&want));
    }

    #[test]
    fn wide_records_are_counted_by_all_their_scalar_kinds_as_if_each_were_added() {
        // Records of 20 to 60 scalars, their kinds changing from line to line: lines read by a
        // kept shape are looked up by the kinds of every scalar, past the first sixteen.
        let mut rng = 0x77_1de5;
        let (mut long, mut hits) = (0, 0);
        for _ in 0..20 {
            let templates: Vec<String> = (0..3)
                .map(|_| {
                    let width = 20 + xorshift(&mut rng) % 41;
                    let items: Vec<String> = (0..width)
                        .map(|i| format!("\"k{i}\": @{}", xorshift(&mut rng) % 6))
                        .collect();
                    format!("{{{}}}", items.join(", "))
                })
                .collect();
            let mut data = Vec::new();
            for _ in 0..600 {
                let mut template = templates[(xorshift(&mut rng) % 3) as usize].clone();
                // Values of the template's kinds, and one line in eight with a kind changed.
                if xorshift(&mut rng) % 8 == 0 {
                    let at = template.match_indices('@').count() as u64;
                    if let Some((i, _)) = template
                        .match_indices('@')
                        .nth((xorshift(&mut rng) % at) as usize)
                    {
                        let kind = (xorshift(&mut rng) % 6).to_string();
                        template.replace_range(i + 1..i + 2, &kind);
                    }
                }
                let mut line = String::new();
                let mut parts = template.split('@');
                line.push_str(parts.next().unwrap_or_default());
                for part in parts {
                    let (kind, rest) = part.split_at(1);
                    // No escapes: a kept shape reads only strings without them.
                    let plain = [
                        &["null"][..],
                        &["true", "false"],
                        &["1", "-0", "2e3"],
                        &["1.5"],
                        &["1e400"],
                        &["\"a\"", "\"\"", "\"\u{e9}t\u{e9}\""],
                    ];
                    line.push_str(pick(&mut rng, plain[kind.parse::<usize>().unwrap_or(0)]));
                    line.push_str(rest);
                }
                data.extend_from_slice(line.as_bytes());
                data.push(b'\n');
            }
            let opts = Options::default();
            let (want, _, _) = read(opts, &data, Skeletons::off());
            let mut skeletons = Skeletons::new(opts);
            let mut got = Accumulator::new(opts);
            let mut tape = Tape::default();
            read_chunk(&mut got, &mut tape, &mut skeletons, &data, ErrorMode::Skip);
            (long, hits) = (long + skeletons.shaped_long.len(), hits + skeletons.hits);
            skeletons.flush(&mut got);
            assert_eq!(
                dump(&got),
                dump(&want),
                "{}",
                String::from_utf8_lossy(&data)
            );
        }
        assert!(
            long > 200 && hits > 6_000,
            "too few wide repeats: {long} kinds, {hits} hits"
        );
    }

    #[test]
    fn a_counted_repeat_leaves_the_state_of_adding_every_line() {
        let mut rng = 0x2545_F491_4F6C_DD1D;
        let options = [
            Options::default(),
            Options {
                merge: true,
                ..Options::default()
            },
            Options {
                closed: false,
                ..Options::default()
            },
            Options {
                max_properties: 2,
                ..Options::default()
            },
            Options {
                max_depth: 1,
                ..Options::default()
            },
            Options {
                enums: true,
                format: true,
                ..Options::default()
            },
        ];
        let mut hits = 0;
        for round in 0..60 {
            let data = lines(&mut rng, 50 + round * 10);
            for opts in options {
                let (want, want_out, _) = read(opts, &data, Skeletons::off());
                let (got, got_out, hit) = read(opts, &data, Skeletons::new(opts));
                hits += hit;
                assert_eq!(
                    dump(&got),
                    dump(&want),
                    "{}",
                    String::from_utf8_lossy(&data)
                );
                assert_eq!(
                    got.schema().unwrap().to_text(),
                    want.schema().unwrap().to_text()
                );
                assert_eq!(
                    (got_out.lines, got_out.samples, got_out.skipped),
                    (want_out.lines, want_out.samples, want_out.skipped)
                );
            }
        }
        assert!(hits > 10_000, "too few repeats to test anything: {hits}");
    }
}
