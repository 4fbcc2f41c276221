//! Adding a record to a slot: its keys feed the slot's columns, and (when a parent or the
//! slot's variant list needs it) its own single-value schema is built from the column answers.

use super::ctx::Ctx;
use super::fields::{Fields, Found};
use super::slot::Slot;
use super::source::Source;
use super::terms::EMPTY;
use super::text::cmp_utf16;
use super::walk::Pure;

/// Entry marker: a non-string key, or an entry superseded by a later duplicate.
const SKIP: u32 = u32::MAX;
/// Entry marker: a key beyond the slot's breadth limit.
const DROPPED: u32 = u32::MAX - 1;

impl Slot {
    pub(crate) fn add_record<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        if S::duplicate_keys() {
            self.add_record_checked(ctx, v, need)
        } else {
            let want = need || (self.variants.exact() && !ctx.opts.merge);
            // Two copies of the walk: one building the record's own words, one without a
            // check of `want` per key.
            if want {
                self.add_record_direct::<S, true>(ctx, v)
            } else {
                self.add_record_direct::<S, false>(ctx, v)
            }
        }
    }

    /// One pass over the entries, for sources whose keys are unique (Python dicts); `WANT`
    /// when the record's own term is needed.
    fn add_record_direct<'a, S: Source<'a>, const WANT: bool>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
    ) -> u32 {
        // A copy of the walk for entries known to have string keys: no check per key, and a
        // simpler iterator leaves the loop registers it would spill.
        match v.string_entries() {
            Some(entries) => {
                self.add_entries::<S, WANT>(ctx, v, entries.map(|(key, value)| (Some(key), value)))
            }
            None => self.add_entries::<S, WANT>(ctx, v, v.entries()),
        }
    }

    /// [`Slot::add_record_direct`] over `entries`, the entries of `v`.
    #[inline(always)]
    fn add_entries<'a, S: Source<'a>, const WANT: bool>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        entries: impl Iterator<Item = (Option<S::Key>, S)>,
    ) -> u32 {
        let want = WANT;
        let child = (self.depth - 1, self.annotated);
        let cap = ctx.opts.max_properties;
        let tracking = ctx.opts.enums | ctx.opts.format;
        let fields = made(&mut self.fields);
        fields.rows += ctx.weight;
        fields.enter_epoch(ctx.epoch);
        // The record's words are checked against the last record's (`self.raw`) and rewritten
        // in place where they differ: records of one slot mostly repeat, so most are only read.
        let mut at = 1;
        let mut changed = false;
        let (mut nonstring, mut dropped, mut count) = (false, false, 0);
        // Counted by hand: `enumerate` is not inlined into a loop this size.
        let mut pos = usize::MAX;
        for (key, value) in entries {
            pos = pos.wrapping_add(1);
            let Some(key) = key else {
                nonstring = true;
                continue;
            };
            count += 1;
            let identity = S::key_identity(key);
            let mut known = fields.known(identity, pos);
            if known.is_none() && pos == 0 {
                // Another record shape than the last one: perhaps one met before.
                fields.align(identity, v.len(), &mut self.last, &mut self.raw);
                known = fields.known(identity, pos);
            }
            let found = match known {
                Some(c) => Found::Column(c),
                None => fields.find(&mut ctx.keys, &S::key_text(key), pos, cap, child, identity),
            };
            match found {
                Found::Column(c) => {
                    let column = &mut fields.columns[c as usize];
                    column.present += ctx.weight;
                    let id = column.key;
                    let term = column.slot.add_with(ctx, value, want, tracking);
                    if want {
                        match self
                            .raw
                            .get_mut(at..)
                            .and_then(|rest| rest.first_chunk_mut())
                        {
                            Some(pair) if *pair == [id, term] => {}
                            Some(pair) => {
                                *pair = [id, term];
                                changed = true;
                            }
                            None => {
                                self.raw.resize(at, 0);
                                self.raw.extend([id, term]);
                                changed = true;
                            }
                        }
                        at += 2;
                    }
                }
                Found::Dropped => dropped = true,
            }
        }
        if nonstring {
            fields.opened = true;
        }
        // `pos` is the last entry's position: the entry count is `len`, not asked again.
        fields.entries = u32::try_from(pos.wrapping_add(1)).unwrap_or(u32::MAX);
        if !want {
            EMPTY
        } else if dropped || count > cap {
            // The record's own schema keeps only its first keys in UTF-16 order.
            let term = Pure::new(false).term(ctx, v, self.depth);
            self.keep_last(term);
            term
        } else {
            self.raw_term(ctx, nonstring || !ctx.opts.closed, at, changed)
        }
    }

    /// Parsed JSON, whose records may repeat a key: the last clean record's keys again are
    /// read in one pass; anything else takes [`Slot::add_record_keyed`].
    #[inline(always)]
    fn add_record_checked<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        let want = need || (self.variants.exact() && !ctx.opts.merge);
        let fields = made(&mut self.fields);
        fields.rows += ctx.weight;
        let tracking = ctx.opts.enums | ctx.opts.format;
        let same_keys = ctx.same_keys;
        // Whether the keys are known to differ from the current order, and from the shelved ones.
        let mut differ = (false, false);
        if !tracking {
            if want {
                // The values' slots are told of the line before's keys (`ctx.same_keys`) only
                // when this slot's last record had them.
                let mut words = std::mem::take(&mut fields.words);
                let (last, raw) = (&mut self.last, &mut self.raw);
                let fed = fields.feed_known(ctx, v, same_keys, last, raw, &mut words);
                let term = fed.then(|| self.record_term(ctx, !ctx.opts.closed, &mut words));
                made(&mut self.fields).words = words;
                if let Some(term) = term {
                    return term;
                }
                differ = (true, true);
            } else if fields.repeat_count() == Some(v.len()) {
                // The merging mode's common case: with the line before's keys, as they are.
                if same_keys {
                    fields.feed(ctx, v);
                    return EMPTY;
                }
                if fields.feed_checked(ctx, v) {
                    return EMPTY;
                }
                differ.0 = true;
            }
        }
        self.add_record_keyed(ctx, v, want, differ)
    }

    /// Two passes, so a repeated key keeps only its last value (parsed JSON); `differ` tells
    /// whether the keys are known to differ from the current order, and from the shelved ones.
    #[inline(never)]
    fn add_record_keyed<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        want: bool,
        differ: (bool, bool),
    ) -> u32 {
        let child = (self.depth - 1, self.annotated);
        let cap = ctx.opts.max_properties;
        let fields = made(&mut self.fields);
        let stamp = fields.rows;
        let tracking = ctx.opts.enums | ctx.opts.format;
        // The line before had these keys here (see `Ctx::same_keys`): this slot's last record,
        // so when that record was clean its order is these keys, and need not be checked.
        let same_keys = ctx.same_keys;
        let repeat = fields.repeat_count() == Some(v.len());
        let hinted = same_keys && repeat;
        let same = hinted
            || (!differ.0 && fields.repeats(&ctx.keys, v))
            || (!differ.1 && fields.recall(&ctx.keys, v, &mut self.last, &mut self.raw));
        // The values' slots took the line before's values here only when its record was clean.
        ctx.same_keys = hinted;
        if same && !want {
            // No term to build (the merging mode): only the values to feed.
            fields.feed(ctx, v);
            ctx.same_keys = same_keys;
            return EMPTY;
        }
        if same {
            // The last clean record's keys in the same order: distinct, with known columns.
            let mut words = ctx.take();
            words.push(0);
            for (pos, (_, value)) in v.entries().enumerate() {
                let Some(column) = fields
                    .predicted(pos)
                    .and_then(|c| fields.columns.get_mut(c as usize))
                else {
                    continue;
                };
                column.present += ctx.weight;
                let term = column.slot.add_with(ctx, value, want, tracking);
                if want {
                    words.extend([column.key, term]);
                }
            }
            ctx.same_keys = same_keys;
            let term = if want {
                self.record_term(ctx, !ctx.opts.closed, &mut words)
            } else {
                EMPTY
            };
            ctx.give(words);
            return term;
        }
        fields.shelve(self.last, &self.raw);
        // Pass 1: resolve every key to a column, as [column, key id] pairs per entry.
        let mut cols = ctx.take();
        let mut nonstring = false;
        let mut dropped = false;
        let mut clean = true;
        for (pos, (key, _)) in v.entries().enumerate() {
            let Some(key) = key else {
                nonstring = true;
                cols.extend([SKIP, 0]);
                continue;
            };
            match fields.find(&mut ctx.keys, &S::key_text(key), pos, cap, child, 0) {
                Found::Column(c) => {
                    let column = &mut fields.columns[c as usize];
                    if column.seen == stamp {
                        cols[2 * column.entry as usize] = SKIP;
                        clean = false;
                    }
                    column.seen = stamp;
                    column.entry = pos as u32;
                    cols.extend([c, column.key]);
                }
                Found::Dropped => {
                    dropped = true;
                    cols.extend([DROPPED, 0]);
                }
            }
        }
        if nonstring {
            fields.opened = true;
        }
        // Columns evicted or moved while later keys arrived are re-resolved by key id.
        for pair in cols.chunks_exact_mut(2) {
            let (c, key) = (pair[0], pair[1]);
            if c < DROPPED && fields.columns.get(c as usize).map(|col| col.key) != Some(key) {
                clean = false;
                pair[0] = fields.column_of(&ctx.keys, key).unwrap_or_else(|| {
                    dropped = true;
                    DROPPED
                });
            }
        }
        let count = v.len();
        fields.set_repeat((clean && !nonstring && !dropped).then_some(count));
        let mut kept: Option<Vec<bool>> = None;
        let mut distinct = cols.chunks_exact(2).filter(|p| p[0] != SKIP).count();
        if want && (dropped || distinct > cap) {
            let (mask, count) = own_keys(ctx, v, &mut cols, cap);
            kept = Some(mask);
            distinct = count;
        }
        // Pass 2: feed the values.
        let mut words = ctx.take();
        words.push(0);
        for (pos, (key, value)) in v.entries().enumerate() {
            let c = cols[2 * pos];
            if c == SKIP {
                continue;
            }
            let child_need = want && kept.as_ref().is_none_or(|mask| mask[pos]);
            let term = if c == DROPPED {
                if !child_need {
                    continue;
                }
                Pure::new(false).term(ctx, value, child.0)
            } else {
                let column = &mut fields.columns[c as usize];
                column.present += ctx.weight;
                column.slot.add(ctx, value, child_need)
            };
            if child_need {
                let id = if c == DROPPED {
                    ctx.keys.intern(&key.map(S::key_text).unwrap_or_default())
                } else {
                    cols[2 * pos + 1]
                };
                words.extend([id, term]);
            }
        }
        ctx.give(cols);
        ctx.same_keys = same_keys;
        let term = if want {
            let open = distinct > cap || nonstring || !ctx.opts.closed;
            self.record_term(ctx, open, &mut words)
        } else {
            EMPTY
        };
        ctx.give(words);
        term
    }
}

/// A slot's columns, made on its first record. Not `get_or_insert_with`, which is not inlined:
/// this runs once per record.
#[inline(always)]
fn made(fields: &mut Option<Box<Fields>>) -> &mut Fields {
    if fields.is_none() {
        *fields = Some(Box::default());
    }
    let Some(fields) = fields.as_deref_mut() else {
        unreachable!("the fields were just made")
    };
    fields
}

/// Which entries a record's own schema keeps: de-duplicated keys (the last one wins), the first
/// `cap` in UTF-16 order. Returns the per-entry mask and the distinct key count.
fn own_keys<'a, S: Source<'a>>(
    ctx: &Ctx,
    v: S,
    cols: &mut [u32],
    cap: usize,
) -> (Vec<bool>, usize) {
    let mut named: Vec<(Vec<u8>, usize)> = Vec::new();
    for (pos, (key, _)) in v.entries().enumerate() {
        match cols[2 * pos] {
            SKIP => {}
            DROPPED => named.push((
                key.map(|k| S::key_text(k).into_owned()).unwrap_or_default(),
                pos,
            )),
            _ => named.push((ctx.keys.get(cols[2 * pos + 1]).to_vec(), pos)),
        }
    }
    named.sort_by(|a, b| cmp_utf16(&a.0, &b.0).then(a.1.cmp(&b.1)));
    let mut distinct: Vec<usize> = Vec::with_capacity(named.len());
    for i in 0..named.len() {
        if named.get(i + 1).is_some_and(|next| next.0 == named[i].0) {
            cols[2 * named[i].1] = SKIP;
        } else {
            distinct.push(named[i].1);
        }
    }
    let mut mask = vec![false; cols.len() / 2];
    for &pos in distinct.iter().take(cap) {
        mask[pos] = true;
    }
    (mask, distinct.len())
}
