//! The per-slot summary: what every value that landed in one place of the samples looked like.
//!
//! A slot keeps two views at once. The exact view is the set of distinct single-value schemas
//! (terms) of its records and arrays, which is what the reference lists in an `anyOf` when a
//! slot mixes kinds. The merged view (record columns and array items) is what it uses when every
//! value is a record, and the fallback once a slot holds more than [`VARIANT_LIMIT`] variants.

use super::ctx::{Ctx, Visit};
use super::enums::{Enums, Formats};
use super::fields::{Fields, Found};
use super::format::string_to_format;
use super::limits::VARIANT_LIMIT;
use super::source::{Kind, NumberClass, Source};
use super::terms::{ARRAY, BOOLEAN, EMPTY, FIRST_COMPOSITE, INTEGER, NULL, NUMBER, STRING};
use super::text::cmp_utf16;
use super::walk::Pure;

/// Entry marker: a non-string key, or an entry superseded by a later duplicate.
const SKIP: u32 = u32::MAX;
/// Entry marker: a key beyond the slot's breadth limit.
const DROPPED: u32 = u32::MAX - 1;

/// The distinct composite terms of a slot, or the fact that there were too many.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Variants {
    Exact(Vec<u32>),
    Overflow,
}

impl Default for Variants {
    fn default() -> Self {
        Variants::Exact(Vec::new())
    }
}

impl Variants {
    pub fn exact(&self) -> bool {
        matches!(self, Variants::Exact(_))
    }

    pub fn insert(&mut self, id: u32) {
        if let Variants::Exact(list) = self {
            if let Err(at) = list.binary_search(&id) {
                list.insert(at, id);
                if list.len() > VARIANT_LIMIT {
                    *self = Variants::Overflow;
                }
            }
        }
    }
}

/// Summary of the values seen in one place.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slot {
    /// Remaining depth: containers here are opened only when it is above zero.
    pub depth: u32,
    /// Top-level and record-column slots track enums and formats; array items never do.
    pub annotated: bool,
    pub count: u64,
    /// Bit per leaf term id seen.
    pub leaves: u8,
    pub records: u64,
    pub arrays: u64,
    pub fields: Option<Box<Fields>>,
    pub items: Option<Box<Slot>>,
    pub variants: Variants,
    pub enums: Enums,
    pub formats: Formats,
}

/// The bit of a leaf term in [`Slot::leaves`].
pub(crate) fn bit(leaf: u32) -> u8 {
    1 << leaf
}

impl Slot {
    pub fn new(depth: u32, annotated: bool) -> Slot {
        Slot {
            depth,
            annotated,
            ..Slot::default()
        }
    }

    fn keep(&mut self, term: u32) {
        if term >= FIRST_COMPOSITE {
            self.variants.insert(term);
        } else {
            self.leaves |= bit(term);
        }
    }

    /// Adds one value; returns its term when `need` (the parent builds its own term from it).
    pub fn add<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        self.count += 1;
        let track_enum = self.annotated && ctx.opts.enums;
        let track_format = self.annotated && ctx.opts.format;
        let kind = v.kind();
        let leaf = match kind {
            Kind::Null => NULL,
            Kind::Boolean => BOOLEAN,
            Kind::Other => EMPTY,
            Kind::Number(class) => {
                if track_enum {
                    let member = class != NumberClass::NonFinite && self.enums.wants_numbers();
                    if member && v.number_exact() {
                        self.enums.number(v.number());
                    } else {
                        self.enums.off();
                    }
                }
                match class {
                    NumberClass::Integer => INTEGER,
                    NumberClass::Fraction => NUMBER,
                    NumberClass::NonFinite => EMPTY,
                }
            }
            Kind::String => {
                let want_enum = track_enum && self.enums.wants_strings();
                let want_format = track_format && self.formats.open();
                if want_enum || want_format {
                    let text = v.text();
                    if want_enum {
                        self.enums.string(&text);
                    }
                    if want_format {
                        self.formats.observe(string_to_format(&text));
                    }
                }
                if track_enum && !want_enum {
                    self.enums.off();
                }
                self.leaves |= bit(STRING);
                return STRING;
            }
            Kind::Temporal(_) => {
                if track_enum {
                    self.enums.off();
                }
                if track_format {
                    self.formats = Formats::Mixed;
                }
                self.leaves |= bit(STRING);
                return STRING;
            }
            Kind::Array | Kind::Object => return self.add_container(ctx, v, kind, need),
        };
        if track_enum && leaf != INTEGER && leaf != NUMBER {
            self.enums.off();
        }
        self.leaves |= bit(leaf);
        leaf
    }

    fn add_container<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        kind: Kind,
        need: bool,
    ) -> u32 {
        if self.annotated && ctx.opts.enums {
            self.enums.off();
        }
        if self.depth == 0 {
            if kind == Kind::Object {
                self.records += 1;
            }
            self.leaves |= bit(EMPTY);
            return EMPTY;
        }
        let entered = v.identity().map(|id| ctx.enter(id, v.len()));
        if entered == Some(Visit::Cut) {
            self.leaves |= bit(EMPTY);
            return EMPTY;
        }
        let term = if kind == Kind::Object {
            self.records += 1;
            self.add_record(ctx, v, need)
        } else {
            self.add_array(ctx, v, need)
        };
        if entered.is_some() {
            ctx.leave();
        }
        term
    }

    fn add_array<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        self.arrays += 1;
        if v.is_empty() || ctx.opts.max_properties == 0 {
            self.leaves |= bit(ARRAY);
            return ARRAY;
        }
        let want = need || self.variants.exact();
        let depth = self.depth - 1;
        let items = self
            .items
            .get_or_insert_with(|| Box::new(Slot::new(depth, false)));
        let mut elements = ctx.take();
        for item in v.items() {
            let term = items.add(ctx, item, want);
            if want
                && elements.last() != Some(&term)
                && (elements.len() >= 16 || !elements.contains(&term))
            {
                elements.push(term);
            }
        }
        let term = if want {
            ctx.terms.array(&mut elements)
        } else {
            EMPTY
        };
        ctx.give(elements);
        if want {
            self.keep(term);
        }
        term
    }

    fn add_record<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        if S::duplicate_keys() {
            self.add_record_checked(ctx, v, need)
        } else {
            self.add_record_direct(ctx, v, need)
        }
    }

    /// One pass over the entries, for sources whose keys are unique (Python dicts).
    fn add_record_direct<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        let want = need || self.variants.exact();
        let child = (self.depth - 1, self.annotated);
        let cap = ctx.opts.max_properties;
        let fields = self.fields.get_or_insert_with(Box::default);
        fields.rows += 1;
        let mut words = ctx.take();
        words.push(0);
        let (mut nonstring, mut dropped, mut count) = (false, false, 0);
        for (pos, (key, value)) in v.entries().enumerate() {
            let Some(key) = key else {
                nonstring = true;
                continue;
            };
            count += 1;
            match fields.find(&mut ctx.keys, &key, pos, cap, child) {
                Found::Column(c) => {
                    let column = &mut fields.columns[c as usize];
                    column.present += 1;
                    let id = column.key;
                    let term = column.slot.add(ctx, value, want);
                    if want {
                        words.extend([id, term]);
                    }
                }
                Found::Dropped => dropped = true,
            }
        }
        if nonstring {
            fields.opened = true;
        }
        let term = if !want {
            EMPTY
        } else if dropped || count > cap {
            // The record's own schema keeps only its first keys in UTF-16 order.
            Pure::new(false).term(ctx, v, self.depth)
        } else {
            ctx.terms.object(nonstring || !ctx.opts.closed, &mut words)
        };
        ctx.give(words);
        if want {
            self.keep(term);
        }
        term
    }

    /// Two passes, so a repeated key keeps only its last value (parsed JSON).
    fn add_record_checked<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        let want = need || self.variants.exact();
        let child = (self.depth - 1, self.annotated);
        let cap = ctx.opts.max_properties;
        let fields = self.fields.get_or_insert_with(Box::default);
        fields.rows += 1;
        let stamp = fields.rows;
        // Pass 1: resolve every key to a column, as [column, key id] pairs per entry.
        let mut cols = ctx.take();
        let mut nonstring = false;
        let mut dropped = false;
        for (pos, (key, _)) in v.entries().enumerate() {
            let Some(key) = key else {
                nonstring = true;
                cols.extend([SKIP, 0]);
                continue;
            };
            match fields.find(&mut ctx.keys, &key, pos, cap, child) {
                Found::Column(c) => {
                    let column = &mut fields.columns[c as usize];
                    if column.seen == stamp {
                        cols[2 * column.entry as usize] = SKIP;
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
                pair[0] = fields.column_of(key).unwrap_or_else(|| {
                    dropped = true;
                    DROPPED
                });
            }
        }
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
                column.present += 1;
                column.slot.add(ctx, value, child_need)
            };
            if child_need {
                let id = if c == DROPPED {
                    ctx.keys.intern(key.as_deref().unwrap_or_default())
                } else {
                    cols[2 * pos + 1]
                };
                words.extend([id, term]);
            }
        }
        ctx.give(cols);
        let term = if want {
            let open = distinct > cap || nonstring || !ctx.opts.closed;
            ctx.terms.object(open, &mut words)
        } else {
            EMPTY
        };
        ctx.give(words);
        if want {
            self.keep(term);
        }
        term
    }
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
            DROPPED => named.push((key.map(|k| k.into_owned()).unwrap_or_default(), pos)),
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
