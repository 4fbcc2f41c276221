//! The key-wise summary of the records met in one slot (`inferRecordSamples`): one column per
//! key, keeping only the `max_properties` smallest keys in UTF-16 order.

use std::cmp::Ordering;

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use super::ctx::Ctx;
use super::slot::{bit, Slot};
use super::source::Source;
use super::terms::{Keys, FIRST_COMPOSITE};
use super::text::{cmp_utf16, same_bytes};

/// One key of a record slot.
///
/// Laid out so that what adding a value touches (`present`, `key` and the head of `slot`) is
/// one cache line.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct Column {
    /// Rows that carry the key.
    pub present: u64,
    /// Interned key.
    pub key: u32,
    /// Where the last row's entry with the key sits in that row's entry list.
    pub entry: u32,
    /// The slot's leaf bits before [`Fields::feed_checked`] added a value: what it restores.
    undo: u8,
    /// Summary of the key's values.
    pub slot: Slot,
    /// The row stamp that last carried the key (duplicate detection).
    pub seen: u64,
}

/// The columns of a record slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fields {
    /// Records summarised.
    pub rows: u64,
    /// The key union exceeded the breadth limit.
    pub truncated: bool,
    /// A record had a key that is not a string.
    pub opened: bool,
    pub columns: Vec<Column>,
    /// Column indices, hashed by key bytes.
    index: HashTable<u32>,
    state: RandomState,
    /// Predicted column per entry position, from the previous record.
    order: Vec<Probe>,
    /// Column holding the largest key, once the breadth limit is reached.
    largest: Option<u32>,
    /// One more than the entry count of the last record when its keys were distinct strings
    /// that all have columns, predicted in that order by `order[..count]`; `0` otherwise.
    repeat: u32,
    /// Earlier clean key orders, most recently shelved first: records of one slot often
    /// alternate between a few shapes (event payloads by type, an optional last key).
    shapes: Vec<Shape>,
    /// Entries of the last record with unique keys (see [`Fields::align`]).
    pub entries: u32,
    /// The epoch the key identities held in `order` were met in.
    epoch: u64,
    /// Record terms built here before the slot's last one, most recent first, each with the
    /// words (entry order) it was built from: records of one slot often alternate between a
    /// few value shapes (a nullable key, an integer or fractional number), and a record that
    /// repeats one is answered without sorting and hashing its words again.
    recent: Vec<Recent>,
    /// Scratch for the words of a record [`Fields::feed_known`] matched: kept here, it mostly
    /// has the record's length already.
    pub words: Vec<u32>,
}

/// A record term kept in [`Fields::recent`], with the words it was built from and their
/// [`fingerprint`]: a lookup compares fingerprints, and the words of a match only.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recent {
    pub term: u32,
    pub words: Vec<u32>,
    fingerprint: u64,
}

/// A hash of record words, for [`Fields::recall_term`] to skip kept words that differ without
/// comparing them: a slot's recent words mostly share their length and keys, so a comparison
/// of the words themselves reads far into each.
#[inline]
pub(crate) fn fingerprint(words: &[u32]) -> u64 {
    const MIX: u64 = 0x9E37_79B9_7F4A_7C15;
    let pairs = words.chunks_exact(2);
    let tail = pairs.remainder().first().map_or(0, |&w| u64::from(w) + 1);
    pairs.fold(words.len() as u64 ^ tail.wrapping_mul(MIX), |h, pair| {
        let word = u64::from(pair[0]) | u64::from(pair[1]) << 32;
        (h.rotate_left(23) ^ word).wrapping_mul(MIX)
    })
}

/// Record terms kept in [`Fields::recent`]: a nested record's term takes some 20 values in
/// the events bench (payload by event type, nullable keys); 16 keeps most of them, where 8
/// sent one change in four to the interner. A miss compares each kept entry's length first.
const RECENT: usize = 16;
/// Longest words kept in [`Fields::recent`]: a copy is made each time.
const RECENT_WORDS: usize = 2 * SHAPE_KEYS + 1;

/// A clean key order put aside (see [`Fields::shelve`]), with the record term cache of the
/// slot from when it was current.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    order: Vec<Probe>,
    repeat: u32,
    entries: u32,
    /// The epoch the key identities held in `order` were met in.
    epoch: u64,
    pub last: u32,
    pub raw: Vec<u32>,
}

impl Shape {
    /// Keeps at most [`SHAPE_KEYS`] probes (clean only if they cover the whole order) and a
    /// term cache of at most that many keys.
    fn bound(&mut self) {
        if self.order.len() > SHAPE_KEYS {
            self.order.truncate(SHAPE_KEYS);
            self.order.shrink_to_fit();
        }
        if self.repeat as usize > self.order.len() + 1 {
            self.repeat = 0;
        }
        if self.raw.len() > 2 * SHAPE_KEYS + 1 {
            self.raw = Vec::new();
            self.last = 0;
        }
    }
}

/// Containers of a record [`Fields::feed_terms`] keeps at hand for its last pass; a record
/// with more walks its entries again.
const HELD: usize = 4;
/// The term [`Fields::feed_terms`] writes for a container until it is fed: no term's id.
const CONTAINER: u32 = u32::MAX;

/// Shelved key orders kept per slot.
const SHAPES: usize = 8;
/// Shelved orders (and term caches) cover at most this many keys: a copy is made each time.
const SHAPE_KEYS: usize = 64;

/// A column prediction for one entry position: the key's length and first 16 bytes inline,
/// so a hit is checked without touching the key store, and its interned id, so a longer key
/// is checked without touching the column.
///
/// It also keeps the key's identity (see
/// [`Source::key_identity`](super::source::Source::key_identity)), valid in the epoch of its
/// [`Fields`]: the same identity in the same epoch is the same key, known without reading its
/// text.
#[derive(Clone, Copy, Debug, Default)]
struct Probe {
    column: u32,
    len: u32,
    key: u32,
    head: [u64; 2],
    identity: usize,
}

#[inline]
fn load(key: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&key[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Clears the key identities of `order`: they belong to an epoch that has ended.
fn forget(order: &mut [Probe]) {
    for probe in order {
        probe.identity = 0;
    }
}

/// The first 16 bytes of a key as two little-endian words, zero-padded.
#[inline]
pub(crate) fn pack(key: &[u8]) -> [u64; 2] {
    let n = key.len();
    if n >= 16 {
        [load(key, 0), load(key, 8)]
    } else if n > 8 {
        // Load the last 8 bytes and shift out the ones the first word already holds.
        [load(key, 0), load(key, n - 8) >> (8 * (16 - n))]
    } else if n == 8 {
        [load(key, 0), 0]
    } else {
        let mut low = 0u64;
        for (i, &b) in key.iter().enumerate() {
            low |= u64::from(b) << (8 * i);
        }
        [low, 0]
    }
}

/// The outcome of looking a key up.
pub(crate) enum Found {
    Column(u32),
    Dropped,
}

impl Fields {
    /// Makes `epoch` the one key identities are valid in, forgetting those of an earlier one.
    #[inline]
    pub fn enter_epoch(&mut self, epoch: u64) {
        if self.epoch != epoch {
            self.forget_identities(epoch);
        }
    }

    /// Shelved orders keep the epoch they were shelved in: they are trusted by identity only
    /// in that epoch, and cleared when made current in another.
    #[cold]
    fn forget_identities(&mut self, epoch: u64) {
        forget(&mut self.order);
        self.epoch = epoch;
    }

    /// The entry count of the last record when its keys were distinct strings that all have
    /// columns, in the order `order` predicts.
    #[inline]
    pub fn repeat_count(&self) -> Option<usize> {
        (self.repeat as usize).checked_sub(1)
    }

    /// Marks the record just added as clean with `count` entries (see [`Fields::repeat_count`]),
    /// or not clean (`None`).
    pub fn set_repeat(&mut self, count: Option<usize>) {
        self.repeat = match count {
            Some(n) if n <= self.order.len() && n < u32::MAX as usize => n as u32 + 1,
            _ => 0,
        };
    }

    /// Whether the keys of `v` are, in order, the keys of the last clean record (the current
    /// order): distinct strings, each with a column.
    #[inline]
    pub fn repeats<'a, S: Source<'a>>(&self, keys: &Keys, v: S) -> bool {
        self.repeat_count() == Some(v.len()) && self.matches(&self.order, keys, v)
    }

    /// Whether each key of `v` is the key `order` predicts at its position: the same length
    /// and first 16 bytes as [`pack`] gives them, and for a longer key the same text.
    #[inline]
    fn matches<'a, S: Source<'a>>(&self, order: &[Probe], keys: &Keys, v: S) -> bool {
        v.all_key_heads(
            // Bitwise: one branch for the length and the head together.
            |pos, len, head| {
                order
                    .get(pos)
                    .is_some_and(|p| (p.len as usize == len) & (p.head == head))
            },
            |pos, key| {
                order
                    .get(pos)
                    .and_then(|p| self.columns.get(p.column as usize))
                    .is_some_and(|c| same_bytes(keys.get(c.key), &S::key_text(key)))
            },
        )
    }

    /// Makes current a shelved order that `v`'s keys repeat, shelving the current one in its
    /// place (when clean); `last` and `raw` (the slot's record term cache) are swapped with the
    /// shelved order's. Returns whether one was found.
    pub fn recall<'a, S: Source<'a>>(
        &mut self,
        keys: &Keys,
        v: S,
        last: &mut u32,
        raw: &mut Vec<u32>,
    ) -> bool {
        let count = v.len();
        let Some(i) = self.shapes.iter().position(|shape| {
            shape.repeat as usize == count + 1 && self.matches(&shape.order, keys, v)
        }) else {
            return false;
        };
        self.recalled(i, last, raw);
        true
    }

    /// Makes shelved order `i` current (see [`Fields::recall`]).
    fn recalled(&mut self, i: usize, last: &mut u32, raw: &mut Vec<u32>) {
        self.swap_shape(i, last, raw);
        let shape = &mut self.shapes[i];
        if shape.repeat == 0 || shape.repeat as usize - 1 > SHAPE_KEYS {
            self.shapes.remove(i);
        } else {
            shape.order.truncate(shape.repeat as usize - 1);
            shape.bound();
        }
    }

    /// Exchanges the current order (and the slot's record term cache) with shelved order `i`.
    fn swap_shape(&mut self, i: usize, last: &mut u32, raw: &mut Vec<u32>) {
        let shape = &mut self.shapes[i];
        if shape.epoch != self.epoch {
            forget(&mut shape.order);
            shape.epoch = self.epoch;
        }
        std::mem::swap(&mut self.order, &mut shape.order);
        std::mem::swap(&mut self.repeat, &mut shape.repeat);
        std::mem::swap(&mut self.entries, &mut shape.entries);
        std::mem::swap(last, &mut shape.last);
        std::mem::swap(raw, &mut shape.raw);
    }

    /// For sources with unique keys, whose keys are known by identity (see
    /// [`Fields::enter_epoch`]): when the first key of a record with `count` entries is not
    /// the one the current order starts with, makes current the shelved order that starts
    /// with it (from a record with as many entries, shelved in this epoch), shelving the
    /// current one; with none, shelves the current order before the record rewrites it.
    /// Orders here are only predictions, each key still checked by [`Fields::known`] or
    /// [`Fields::find`].
    pub fn align(&mut self, first: usize, count: usize, last: &mut u32, raw: &mut Vec<u32>) {
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        let epoch = self.epoch;
        let starts = |shape: &Shape| {
            shape.epoch == epoch
                && shape
                    .order
                    .first()
                    .is_some_and(|p| first != 0 && p.identity == first)
        };
        let found = self
            .shapes
            .iter()
            .position(|shape| shape.entries == count && starts(shape));
        match found {
            Some(i) => {
                self.swap_shape(i, last, raw);
                let shape = &mut self.shapes[i];
                if shape.order.is_empty() {
                    self.shapes.remove(i);
                } else {
                    shape.bound();
                }
            }
            None if !self.order.is_empty() => self.shelve_order(*last, raw),
            None => {}
        }
    }

    /// Puts the current order aside (when clean) before a record with other keys rewrites it,
    /// with the slot's record term cache (`last`, `raw`).
    pub fn shelve(&mut self, last: u32, raw: &[u32]) {
        if self.repeat_count().is_some_and(|n| n <= SHAPE_KEYS) {
            self.shelve_order(last, raw);
        }
    }

    /// Shelves a copy of the current order and term cache, within [`Shape::bound`].
    fn shelve_order(&mut self, last: u32, raw: &[u32]) {
        // The oldest shape's buffers are reused once the shelf is full.
        let mut shape = if self.shapes.len() >= SHAPES {
            self.shapes.pop().unwrap_or_default()
        } else {
            Shape::default()
        };
        shape.order.clear();
        shape
            .order
            .extend_from_slice(&self.order[..self.order.len().min(SHAPE_KEYS)]);
        shape.repeat = self.repeat;
        shape.entries = self.entries;
        shape.epoch = self.epoch;
        shape.raw.clear();
        shape.last = 0;
        if raw.len() <= 2 * SHAPE_KEYS + 1 {
            shape.raw.extend_from_slice(raw);
            shape.last = last;
        }
        shape.bound();
        self.shapes.insert(0, shape);
    }

    /// The recent record term built from `words` (whose [`fingerprint`] is `print`), moved to
    /// the front of the recent ones.
    #[inline]
    pub fn recall_term(&mut self, words: &[u32], print: u64) -> Option<&mut Recent> {
        let i = self
            .recent
            .iter()
            .position(|r| r.fingerprint == print && r.words == *words)?;
        self.recent[..=i].rotate_right(1);
        self.recent.first_mut()
    }

    /// Tells the front recent entry that its words were replaced.
    pub fn reprint_recent(&mut self) {
        if let Some(front) = self.recent.first_mut() {
            front.fingerprint = fingerprint(&front.words);
        }
    }

    /// Drops the front recent entry when it is not worth keeping: no composite term (a slot's
    /// first record), or words too long to copy each time.
    pub fn settle_recent(&mut self) {
        if self
            .recent
            .first()
            .is_some_and(|r| r.term < FIRST_COMPOSITE || r.words.len() > RECENT_WORDS)
        {
            self.recent.remove(0);
        }
    }

    /// Makes `term` the most recent record term, built from words whose [`fingerprint`] is
    /// `print`, and returns its words' buffer, empty, for the caller to fill with them; the
    /// oldest entry (and its buffer) goes once the list is full.
    pub fn push_recent(&mut self, term: u32, print: u64) -> &mut Vec<u32> {
        let mut entry = if self.recent.len() >= RECENT {
            self.recent.pop().unwrap_or_default()
        } else {
            Recent::default()
        };
        entry.term = term;
        entry.fingerprint = print;
        entry.words.clear();
        self.recent.insert(0, entry);
        &mut self.recent[0].words
    }

    /// Adds the values of a record that [`Fields::repeats`] (or [`Fields::recall`]) matched to
    /// their predicted columns, building no terms.
    #[inline(always)]
    pub fn feed<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S) {
        let tracking = ctx.opts.enums | ctx.opts.format;
        let columns = &mut self.columns;
        // The match made the entry count at most the order's length.
        for (probe, (_, value)) in self.order.iter().zip(v.entries()) {
            if let Some(column) = columns.get_mut(probe.column as usize) {
                column.present += ctx.weight;
                column.slot.add_with(ctx, value, false, tracking);
            }
        }
    }

    /// For a record with as many entries as the current order predicts, when no term is built
    /// and no enum or format is tracked: checks each key against the order and adds its value
    /// in the same pass (a leaf at once, a container once every key has matched), so the record
    /// is read once rather than checked and then fed. At the first key that differs it takes
    /// back what it added and answers false: until then each column was fed at most once, the
    /// keys being the order's distinct ones, so restoring its counts and leaf bits is exact.
    #[inline(always)]
    pub fn feed_checked<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S) -> bool {
        // Bit `pos` set: the entry at `pos` holds a container, fed in a second pass.
        let mut containers = 0u64;
        let mut fed = 0usize;
        for (pos, (key, value)) in v.entries().enumerate() {
            let Some(probe) = self.order.get(pos) else {
                return self.unfeed(v, fed, ctx.weight);
            };
            let same = key.is_some_and(|key| {
                let (len, head) = S::key_head(key);
                // Bitwise: one branch for the length and the head together.
                (probe.len as usize == len) & (probe.head == head)
                    && (len <= 16
                        || self
                            .columns
                            .get(probe.column as usize)
                            .is_some_and(|c| same_bytes(ctx.keys.get(c.key), &S::key_text(key))))
            });
            let column = match self.columns.get_mut(probe.column as usize) {
                Some(column) if same => column,
                _ => return self.unfeed(v, fed, ctx.weight),
            };
            match value.leaf() {
                Some(leaf) => {
                    column.undo = column.slot.leaves;
                    column.present += ctx.weight;
                    column.slot.count += ctx.weight;
                    column.slot.leaves |= bit(leaf);
                }
                None => containers |= 1u64.checked_shl(pos as u32).unwrap_or(1 << 63),
            }
            fed = pos + 1;
        }
        if containers != 0 {
            self.feed_containers(ctx, v, containers);
        }
        true
    }

    /// Adds a record whose own term is built when its keys are those of the key order `order`
    /// (the current one or a shelved one), checked only when `CHECK`: its words
    /// `[_, key, term, …]` are written to `words`. The keys are checked and the words written
    /// first, so a key that differs (answering false) leaves the columns as they were; then the
    /// leaves are fed (unchecked keys cannot differ: their leaves are fed on the way), and the
    /// containers last.
    #[inline(always)]
    fn feed_terms<'a, S: Source<'a>, const CHECK: bool>(
        order: &[Probe],
        columns: &mut [Column],
        ctx: &mut Ctx,
        v: S,
        words: &mut Vec<u32>,
    ) -> bool {
        let count = v.len();
        words.resize(2 * count + 1, 0);
        // The first few containers are kept at hand for the last pass.
        let mut held: [Option<(usize, S)>; HELD] = [None; HELD];
        let mut holding = 0usize;
        let keys = &ctx.keys;
        let mut pairs = words.get_mut(1..).unwrap_or_default().chunks_exact_mut(2);
        let long = |pos: usize, key| {
            order
                .get(pos)
                .is_some_and(|p| same_bytes(keys.get(p.key), &S::key_text(key)))
        };
        let matched = v.all_key_leaves::<CHECK>(
            |pos, len, head, leaf, value| {
                let (Some(probe), Some(pair)) = (order.get(pos), pairs.next()) else {
                    return false;
                };
                // Bitwise: one branch for the length and the head together.
                if CHECK && (probe.len as usize != len) | (probe.head != head) {
                    return false;
                }
                let term = match leaf {
                    // Unchecked keys cannot differ: the leaf is fed at once.
                    Some(leaf) if !CHECK => {
                        if let Some(column) = columns.get_mut(probe.column as usize) {
                            column.present += ctx.weight;
                            column.slot.count += ctx.weight;
                            column.slot.leaves |= bit(leaf);
                        }
                        leaf
                    }
                    Some(leaf) => leaf,
                    None => {
                        if let Some(slot) = held.get_mut(holding) {
                            *slot = Some((pos, value));
                        }
                        holding += 1;
                        CONTAINER
                    }
                };
                pair.copy_from_slice(&[probe.key, term]);
                true
            },
            long,
        );
        if !matched {
            return false;
        }
        if CHECK {
            let pairs = words.get(1..).unwrap_or_default().chunks_exact(2);
            for (probe, pair) in order.iter().zip(pairs) {
                if let (Some(column), &[_, term]) = (columns.get_mut(probe.column as usize), pair) {
                    if term != CONTAINER {
                        column.present += ctx.weight;
                        column.slot.count += ctx.weight;
                        column.slot.leaves |= bit(term);
                    }
                }
            }
        }
        if holding > HELD {
            feed_container_terms(order, columns, ctx, v, words);
        } else {
            for &(pos, value) in held.iter().take(holding).flatten() {
                feed_container(order, columns, ctx, pos, value, words);
            }
        }
        true
    }

    /// Adds a record whose own term is built when its keys are the current order's (checked
    /// unless `hinted`) or a shelved order's (then made current with the slot's record term
    /// cache `last` and `raw`, as [`Fields::recall`] does), its words written to `words`;
    /// answers whether one matched.
    #[inline(always)]
    pub fn feed_known<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        hinted: bool,
        last: &mut u32,
        raw: &mut Vec<u32>,
        words: &mut Vec<u32>,
    ) -> bool {
        if self.repeat_count() == Some(v.len()) {
            // Slices, not the vectors: the stores to the columns cannot move them, so their
            // bounds stay in registers.
            let (order, columns) = (&self.order[..], &mut self.columns[..]);
            let fed = if hinted {
                Self::feed_terms::<S, false>(order, columns, ctx, v, words)
            } else {
                Self::feed_terms::<S, true>(order, columns, ctx, v, words)
            };
            if fed {
                return true;
            }
        }
        self.feed_shelved(ctx, v, last, raw, words)
    }

    /// [`Fields::feed_known`] against the shelved orders.
    #[inline(never)]
    fn feed_shelved<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        last: &mut u32,
        raw: &mut Vec<u32>,
        words: &mut Vec<u32>,
    ) -> bool {
        let count = v.len();
        // The values' slots are not told of the line before's keys: this slot's last record
        // had others.
        let same_keys = std::mem::replace(&mut ctx.same_keys, false);
        let columns = &mut self.columns[..];
        let found = self.shapes.iter().position(|shape| {
            shape.repeat as usize == count + 1
                && Self::feed_terms::<S, true>(&shape.order, columns, ctx, v, words)
        });
        ctx.same_keys = same_keys;
        let Some(i) = found else {
            return false;
        };
        self.recalled(i, last, raw);
        true
    }

    /// The second pass of [`Fields::feed_checked`]: the containers at the positions `containers`
    /// marks (the last bit standing for every position from 63 on).
    fn feed_containers<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, containers: u64) {
        if containers >> 63 != 0 {
            return self.feed_every_container(ctx, v);
        }
        let last = 64 - containers.leading_zeros() as usize;
        for (pos, (probe, (_, value))) in self.order.iter().zip(v.entries()).take(last).enumerate()
        {
            if containers & (1 << pos) != 0 {
                if let Some(column) = self.columns.get_mut(probe.column as usize) {
                    column.present += ctx.weight;
                    column.slot.add_with(ctx, value, false, false);
                }
            }
        }
    }

    /// [`Fields::feed_containers`] for a record with a container from its 64th entry on.
    #[cold]
    #[inline(never)]
    fn feed_every_container<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S) {
        for (probe, (_, value)) in self.order.iter().zip(v.entries()) {
            if value.leaf().is_none() {
                if let Some(column) = self.columns.get_mut(probe.column as usize) {
                    column.present += ctx.weight;
                    column.slot.add_with(ctx, value, false, false);
                }
            }
        }
    }

    /// Takes back the leaf values [`Fields::feed_checked`] added from the first `fed` entries.
    #[cold]
    #[inline(never)]
    fn unfeed<'a, S: Source<'a>>(&mut self, v: S, fed: usize, weight: u64) -> bool {
        for (probe, (_, value)) in self.order.iter().zip(v.entries()).take(fed) {
            if value.leaf().is_some() {
                if let Some(column) = self.columns.get_mut(probe.column as usize) {
                    column.present -= weight;
                    column.slot.count -= weight;
                    column.slot.leaves = column.undo;
                }
            }
        }
        false
    }

    /// The column predicted for entry position `pos`; only meaningful for a record that
    /// [`Fields::repeats`] (or [`Fields::recall`]) matched.
    #[inline]
    pub fn predicted(&self, pos: usize) -> Option<u32> {
        self.order.get(pos).map(|probe| probe.column)
    }

    /// The column of the key with `identity` (in the current epoch) at entry position `pos`,
    /// when the previous record had that very key there.
    #[inline]
    pub fn known(&self, identity: usize, pos: usize) -> Option<u32> {
        let probe = self.order.get(pos)?;
        (identity != 0 && probe.identity == identity).then_some(probe.column)
    }

    /// The column of `key` (met at entry position `pos`, with `identity`, `0` for none), creating
    /// it if the breadth limit allows; a key beyond the limit is dropped and the slot marked
    /// truncated.
    pub fn find(
        &mut self,
        keys: &mut Keys,
        key: &[u8],
        pos: usize,
        cap: usize,
        child: (u32, bool),
        identity: usize,
    ) -> Found {
        let head = pack(key);
        if let Some(probe) = self.order.get_mut(pos) {
            let hit = probe.len as usize == key.len()
                && probe.head == head
                && (key.len() <= 16
                    || self
                        .columns
                        .get(probe.column as usize)
                        .is_some_and(|c| same_bytes(keys.get(c.key), key)));
            if hit {
                probe.identity = identity;
                return Found::Column(probe.column);
            }
        }
        self.repeat = 0;
        let found = self.lookup(keys, key, cap, child);
        if let Found::Column(column) = found {
            let probe = Probe {
                column,
                len: key.len() as u32,
                key: self.columns.get(column as usize).map_or(0, |c| c.key),
                head,
                identity,
            };
            if pos < self.order.len() {
                self.order[pos] = probe;
            } else if pos == self.order.len() && pos < 4096 {
                self.order.push(probe);
            }
        }
        found
    }

    fn hash(&self, key: &[u8]) -> u64 {
        self.state.hash_one(key)
    }

    /// The column of an interned key, if it is one.
    pub fn column_of(&self, keys: &Keys, key: u32) -> Option<u32> {
        let columns = &self.columns;
        self.index
            .find(self.hash(keys.get(key)), |&c| {
                columns[c as usize].key == key
            })
            .copied()
    }

    fn lookup(&mut self, keys: &mut Keys, key: &[u8], cap: usize, child: (u32, bool)) -> Found {
        let columns = &self.columns;
        let found = self.index.find(self.hash(key), |&c| {
            same_bytes(keys.get(columns[c as usize].key), key)
        });
        if let Some(&c) = found {
            return Found::Column(c);
        }
        if self.columns.len() >= cap {
            self.truncated = true;
            let Some(largest) = self.largest_column(keys) else {
                return Found::Dropped;
            };
            let top = self.columns[largest as usize].key;
            if cmp_utf16(key, keys.get(top)) != Ordering::Less {
                return Found::Dropped;
            }
            self.evict(keys, largest);
        }
        let id = keys.intern(key);
        Found::Column(self.push(keys, id, Slot::new(child.0, child.1)))
    }

    /// Adds a column for an interned key known to be absent.
    pub fn push(&mut self, keys: &Keys, key: u32, slot: Slot) -> u32 {
        let c = self.columns.len() as u32;
        self.columns.push(Column {
            key,
            present: 0,
            seen: 0,
            entry: 0,
            undo: 0,
            slot,
        });
        let (columns, state) = (&self.columns, &self.state);
        self.index.insert_unique(self.hash(keys.get(key)), c, |&c| {
            state.hash_one(keys.get(columns[c as usize].key))
        });
        self.largest = None;
        c
    }

    fn largest_column(&mut self, keys: &Keys) -> Option<u32> {
        if self.largest.is_none() {
            self.largest = (0..self.columns.len() as u32).max_by(|&a, &b| {
                let ka = keys.get(self.columns[a as usize].key);
                let kb = keys.get(self.columns[b as usize].key);
                cmp_utf16(ka, kb)
            });
        }
        self.largest
    }

    fn evict(&mut self, keys: &Keys, c: u32) {
        self.columns.swap_remove(c as usize);
        self.reindex(keys);
    }

    /// Keeps only the `cap` smallest keys (after a merge), marking truncation.
    pub fn trim(&mut self, keys: &Keys, cap: usize) {
        if self.columns.len() <= cap {
            return;
        }
        self.truncated = true;
        self.columns
            .sort_by(|a, b| cmp_utf16(keys.get(a.key), keys.get(b.key)));
        self.columns.truncate(cap);
        self.reindex(keys);
    }

    /// Rebuilds the key index after columns moved.
    pub fn reindex(&mut self, keys: &Keys) {
        self.index.clear();
        let (columns, state) = (&self.columns, &self.state);
        for (c, column) in columns.iter().enumerate() {
            let hash = state.hash_one(keys.get(column.key));
            self.index.insert_unique(hash, c as u32, |&c| {
                state.hash_one(keys.get(columns[c as usize].key))
            });
        }
        self.order.clear();
        self.repeat = 0;
        self.shapes.clear();
        self.largest = None;
    }
}

/// The last pass of [`Fields::feed_terms`] for a record with more containers than it holds:
/// the entries whose term in `words` is [`CONTAINER`].
fn feed_container_terms<'a, S: Source<'a>>(
    order: &[Probe],
    columns: &mut [Column],
    ctx: &mut Ctx,
    v: S,
    words: &mut [u32],
) {
    for (pos, (_, value)) in v.entries().enumerate() {
        if words.get(2 * pos + 2) == Some(&CONTAINER) {
            feed_container(order, columns, ctx, pos, value, words);
        }
    }
}

/// Feeds the container `value` at entry position `pos` to the column `order` predicts there,
/// writing its term to `words`.
#[inline(always)]
fn feed_container<'a, S: Source<'a>>(
    order: &[Probe],
    columns: &mut [Column],
    ctx: &mut Ctx,
    pos: usize,
    value: S,
    words: &mut [u32],
) {
    let column = order
        .get(pos)
        .and_then(|p| columns.get_mut(p.column as usize));
    if let Some(column) = column {
        column.present += ctx.weight;
        let term = column.slot.add_with(ctx, value, true, false);
        if let Some(word) = words.get_mut(2 * pos + 2) {
            *word = term;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Fields, Found, SHAPES, SHAPE_KEYS};
    use crate::infer::terms::Keys;

    /// Fields whose current order holds `n` keys named `{tag}{i}`, marked clean.
    fn ordered(keys: &mut Keys, fields: &mut Fields, tag: &str, n: usize) {
        for i in 0..n {
            let key = format!("{tag}{i}");
            let found = fields.find(keys, key.as_bytes(), i, usize::MAX, (1, false), 0);
            assert!(matches!(found, Found::Column(_)));
        }
        fields.set_repeat(Some(n));
    }

    #[test]
    fn the_shelf_stays_small_whatever_the_records() {
        let mut keys = Keys::default();
        let mut fields = Fields::default();
        let big = vec![7u32; 2 * 1000 + 1];
        for round in 0..3 * SHAPES {
            ordered(&mut keys, &mut fields, &format!("r{round}-"), 1000);
            fields.shelve(99, &big);
            fields.align(round + 1, 1000, &mut 99, &mut big.clone());
        }
        // Orders longer than the limit are never shelved as clean, and keep no term cache.
        assert!(fields.shapes.len() <= SHAPES);
        for shape in &fields.shapes {
            assert!(shape.order.len() <= SHAPE_KEYS);
            assert_eq!(shape.repeat, 0);
            assert!(shape.raw.is_empty() && shape.last == 0);
        }
        // A short clean order is shelved whole, with its cache.
        let mut fields = Fields::default();
        ordered(&mut keys, &mut fields, "s", 3);
        fields.shelve(42, &[0, 1, 2, 3, 4, 5, 6]);
        let shape = &fields.shapes[0];
        assert_eq!((shape.order.len(), shape.repeat, shape.last), (3, 4, 42));
    }

    #[test]
    fn pack_keeps_the_first_sixteen_bytes() {
        for n in 0..24 {
            let key: Vec<u8> = (1..=n as u8).collect();
            let mut raw = [0u8; 16];
            raw[..n.min(16)].copy_from_slice(&key[..n.min(16)]);
            let expected = [
                u64::from_le_bytes(raw[..8].try_into().unwrap()),
                u64::from_le_bytes(raw[8..].try_into().unwrap()),
            ];
            assert_eq!(super::pack(&key), expected, "{n}");
        }
    }
}
