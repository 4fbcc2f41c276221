//! The per-slot summary: what every value that landed in one place of the samples looked like.
//!
//! A slot keeps two views at once. The exact view is the set of distinct single-value schemas
//! (terms) of its records and arrays, which is what the reference lists in an `anyOf` when a
//! slot mixes kinds. The merged view (record columns and array items) is what it uses when every
//! value is a record, and the fallback once a slot holds more than [`VARIANT_LIMIT`] variants.

use super::ctx::{Ctx, Visit};
use super::enums::{Enums, Formats};
use super::fields::{fingerprint, Fields};
use super::format::string_to_format;
use super::limits::VARIANT_LIMIT;
use super::source::{Kind, NumberClass, Source};
use super::terms::{ARRAY, BOOLEAN, EMPTY, FIRST_COMPOSITE, INTEGER, NULL, NUMBER, STRING};

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
///
/// `repr(C)` with the fields every value touches first: with [`Column`](super::fields::Column)
/// they share one cache line, so the ~100 slots of a nested record stay in L1.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub(crate) struct Slot {
    pub count: u64,
    /// Bit per leaf term id seen.
    pub leaves: u8,
    /// Top-level and record-column slots track enums and formats; array items never do.
    pub annotated: bool,
    /// Remaining depth: containers here are opened only when it is above zero.
    pub depth: u32,
    pub records: u64,
    pub arrays: u64,
    pub fields: Option<Box<Fields>>,
    pub items: Option<Box<Slot>>,
    pub variants: Variants,
    pub enums: Enums,
    pub formats: Formats,
    /// The last record term built here: a cache, not part of the summary.
    pub last: u32,
    /// The words that term was built from, in entry order: a cache too.
    pub raw: Vec<u32>,
    /// The last array term built here from one distinct element term, and that element: a
    /// cache (arrays of one slot usually repeat their element shape).
    pub array_last: u32,
    pub array_element: u32,
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

    /// The term of a record built here, from its `[_, key, term, …]` words in entry order:
    /// the last record's term when the words are the very same (records of one slot usually
    /// repeat their shape, keys in the same order), else interned. Kept as a variant.
    pub(crate) fn record_term(&mut self, ctx: &mut Ctx, open: bool, words: &mut [u32]) -> u32 {
        if let Some(first) = words.first_mut() {
            *first = u32::from(open);
        }
        if self.last >= FIRST_COMPOSITE && self.raw == *words {
            return self.last;
        }
        self.record_term_changed(ctx, open, words)
    }

    /// [`Slot::record_term`] for words other than the last record's: one of the slot's recent
    /// terms (see [`Fields::recall_term`]) when they repeat its words, else interned; the last
    /// term moves to the recent ones.
    #[inline(never)]
    fn record_term_changed(&mut self, ctx: &mut Ctx, open: bool, words: &mut [u32]) -> u32 {
        if let Some(fields) = self.fields.as_deref_mut() {
            if let Some(recent) = fields.recall_term(words, fingerprint(words)) {
                // The words and term come from the recent ones, the last ones take their place.
                std::mem::swap(&mut self.last, &mut recent.term);
                std::mem::swap(&mut self.raw, &mut recent.words);
                fields.reprint_recent();
                fields.settle_recent();
                return self.last;
            }
            let print = fingerprint(&self.raw);
            std::mem::swap(fields.push_recent(self.last, print), &mut self.raw);
            fields.settle_recent();
        }
        self.raw.clear();
        self.raw.extend_from_slice(words);
        let term = ctx.terms.object_like(open, words, self.last);
        self.keep(term);
        self.last = term;
        term
    }

    /// [`Slot::record_term`] for words already written to `raw[1..at]` in entry order, `changed`
    /// telling whether any differ from the ones `last` was built from.
    #[inline(always)]
    pub(crate) fn raw_term(&mut self, ctx: &mut Ctx, open: bool, at: usize, changed: bool) -> u32 {
        let same = !changed
            && self.last >= FIRST_COMPOSITE
            && self.raw.len() == at
            && self.raw.first() == Some(&u32::from(open));
        if same {
            self.last
        } else {
            self.raw_term_changed(ctx, open, at)
        }
    }

    /// [`Slot::raw_term`] for changed words: one of the slot's recent terms when they repeat
    /// its words (as in [`Slot::record_term_changed`]), else interned and made recent.
    #[inline(never)]
    fn raw_term_changed(&mut self, ctx: &mut Ctx, open: bool, at: usize) -> u32 {
        self.raw.resize(at.max(1), 0);
        self.raw[0] = u32::from(open);
        let print = fingerprint(&self.raw);
        if let Some(recent) = self
            .fields
            .as_deref_mut()
            .and_then(|f| f.recall_term(&self.raw, print))
        {
            self.last = recent.term;
            return self.last;
        }
        let mut words = ctx.take();
        words.extend_from_slice(&self.raw);
        let term = ctx.terms.object_like(open, &mut words, self.last);
        ctx.give(words);
        self.keep(term);
        self.last = term;
        if let Some(fields) = self.fields.as_deref_mut() {
            fields.push_recent(term, print).extend_from_slice(&self.raw);
            fields.settle_recent();
        }
        term
    }

    /// Keeps a record term built some other way as the last one.
    pub(crate) fn keep_last(&mut self, term: u32) {
        self.keep(term);
        self.last = term;
        self.raw.clear();
    }

    pub(crate) fn keep(&mut self, term: u32) {
        if term >= FIRST_COMPOSITE {
            self.variants.insert(term);
        } else {
            self.leaves |= bit(term);
        }
    }

    /// Adds one value; returns its term when `need` (the parent builds its own term from it).
    ///
    /// Inlined so that leaves (most values) cost no call; containers and tracked slots take the
    /// out-of-line paths.
    #[inline(always)]
    pub fn add<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, need: bool) -> u32 {
        let tracking = ctx.opts.enums | ctx.opts.format;
        self.add_with(ctx, v, need, tracking)
    }

    /// [`Slot::add`], told whether the options track enums or formats (`tracking`), so a loop
    /// over many values reads the options once.
    #[inline(always)]
    pub fn add_with<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        need: bool,
        tracking: bool,
    ) -> u32 {
        self.count += ctx.weight;
        // Bitwise: one branch per value rather than two.
        if self.annotated & tracking {
            return self.add_tracked(ctx, v, v.kind(), need);
        }
        match v.leaf() {
            Some(leaf) => {
                self.leaves |= bit(leaf);
                leaf
            }
            None => self.add_container(ctx, v, v.kind(), need),
        }
    }

    /// [`Slot::add`] for a slot that tracks enum candidates or formats.
    #[inline(never)]
    fn add_tracked<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        kind: Kind,
        need: bool,
    ) -> u32 {
        let track_enum = ctx.opts.enums;
        let track_format = ctx.opts.format;
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

    #[inline(never)]
    fn add_container<'a, S: Source<'a>>(
        &mut self,
        ctx: &mut Ctx,
        v: S,
        kind: Kind,
        need: bool,
    ) -> u32 {
        if self.annotated & ctx.opts.enums {
            self.enums.off();
        }
        if self.depth == 0 {
            if kind == Kind::Object {
                self.records += ctx.weight;
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
            self.records += ctx.weight;
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
        self.arrays += ctx.weight;
        if v.is_empty() || ctx.opts.max_properties == 0 {
            self.leaves |= bit(ARRAY);
            return ARRAY;
        }
        let want = need || (self.variants.exact() && !ctx.opts.merge);
        let depth = self.depth - 1;
        let items = self
            .items
            .get_or_insert_with(|| Box::new(Slot::new(depth, false)));
        let mut elements = ctx.take();
        // The items' slot takes several records a line: its last one is not the line before's.
        let same_keys = std::mem::replace(&mut ctx.same_keys, false);
        for item in v.items() {
            let term = items.add(ctx, item, want);
            if want
                && elements.last() != Some(&term)
                && (elements.len() >= 16 || !elements.contains(&term))
            {
                elements.push(term);
            }
        }
        ctx.same_keys = same_keys;
        let term = if want {
            self.array_term(ctx, &mut elements)
        } else {
            EMPTY
        };
        ctx.give(elements);
        term
    }

    /// The term of a non-empty array with these distinct element terms, kept as a variant:
    /// the last one when it had the same single element (already kept then), else interned.
    #[inline(always)]
    fn array_term(&mut self, ctx: &mut Ctx, elements: &mut Vec<u32>) -> u32 {
        if let [element] = elements[..] {
            if self.array_last >= FIRST_COMPOSITE && self.array_element == element {
                return self.array_last;
            }
            let term = ctx.terms.array(elements);
            self.keep(term);
            (self.array_last, self.array_element) = (term, element);
            return term;
        }
        let term = ctx.terms.array(elements);
        self.keep(term);
        term
    }
}
