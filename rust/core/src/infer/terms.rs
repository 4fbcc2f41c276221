//! Hash-consed single-value schemas ("terms") and interned object keys.
//!
//! A term is the schema `value_to_schema` gives one value, stored once per accumulator: equal
//! schemas share one id, so de-duplicating a slot's variants is an integer comparison.

use std::hash::BuildHasher;

use foldhash::fast::{FixedState, RandomState};
use hashbrown::HashTable;

use super::format::Format;

/// `{}`: accepts anything.
pub const EMPTY: u32 = 0;
/// `{type: null}`.
pub const NULL: u32 = 1;
/// `{type: boolean}`.
pub const BOOLEAN: u32 = 2;
/// `{type: integer}`.
pub const INTEGER: u32 = 3;
/// `{type: number}`.
pub const NUMBER: u32 = 4;
/// `{type: string}`.
pub const STRING: u32 = 5;
/// `{type: array}` without `items`.
pub const ARRAY: u32 = 6;
/// `{type: string, format}` for each [`Format`] code, from this id on.
const FORMATTED: u32 = 7;
/// Ids below this are the fixed leaves above; the rest index [`Terms`].
pub const FIRST_COMPOSITE: u32 = FORMATTED + Format::ALL.len() as u32;

const TAG_CLOSED: u32 = 0;
const TAG_OPEN: u32 = 1;
const TAG_ARRAY: u32 = 2;

/// The string-with-format leaf for `format`.
pub fn formatted(format: Format) -> u32 {
    FORMATTED + u32::from(format.code())
}

/// A decoded term.
#[derive(Clone, Copy, Debug)]
pub enum Term<'t> {
    /// One of the fixed leaf ids.
    Leaf(u32),
    /// A string with a detected format.
    Formatted(Format),
    /// An object: key/term pairs flattened, and whether it is open.
    Object { open: bool, pairs: &'t [u32] },
    /// A non-empty array: the distinct element terms.
    Array(&'t [u32]),
}

/// Interned byte strings (object keys), with a per-process random hash seed.
#[derive(Default, Clone)]
pub struct Keys {
    list: Vec<Box<[u8]>>,
    table: HashTable<u32>,
    state: RandomState,
}

impl Keys {
    fn hash(&self, key: &[u8]) -> u64 {
        self.state.hash_one(key)
    }

    /// The id of `key`, interning it when new.
    pub fn intern(&mut self, key: &[u8]) -> u32 {
        let hash = self.hash(key);
        let list = &self.list;
        if let Some(&id) = self.table.find(hash, |&id| &*list[id as usize] == key) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(key.into());
        let (list, state) = (&self.list, &self.state);
        self.table
            .insert_unique(hash, id, |&id| state.hash_one(&*list[id as usize]));
        id
    }

    /// The bytes of an interned key.
    pub fn get(&self, id: u32) -> &[u8] {
        self.list.get(id as usize).map_or(&[], |key| key)
    }

    /// How many keys are interned.
    pub fn len(&self) -> usize {
        self.list.len()
    }
}

/// Interned composite terms.
#[derive(Default, Clone)]
pub struct Terms {
    list: Vec<Box<[u32]>>,
    table: HashTable<u32>,
}

fn hash_words(words: &[u32]) -> u64 {
    FixedState::default().hash_one(words)
}

impl Terms {
    fn intern(&mut self, words: &[u32]) -> u32 {
        let hash = hash_words(words);
        let list = &self.list;
        if let Some(&id) = self.table.find(hash, |&id| {
            same_words(&list[(id - FIRST_COMPOSITE) as usize], words)
        }) {
            return id;
        }
        let id = FIRST_COMPOSITE + self.list.len() as u32;
        self.list.push(words.into());
        let list = &self.list;
        self.table.insert_unique(hash, id, |&id| {
            hash_words(&list[(id - FIRST_COMPOSITE) as usize])
        });
        id
    }

    /// Interns an object term; `words` is `[_, k1, t1, k2, t2, …]` with slot 0 free for the tag.
    /// The pairs are sorted by key id here.
    pub fn object(&mut self, open: bool, words: &mut [u32]) -> u32 {
        self.object_like(open, words, EMPTY)
    }

    /// As [`Terms::object`], answering `hint` without hashing when it is the same term (a slot
    /// usually meets the same record shape again and again).
    pub fn object_like(&mut self, open: bool, words: &mut [u32], hint: u32) -> u32 {
        if let Some(first) = words.first_mut() {
            *first = if open { TAG_OPEN } else { TAG_CLOSED };
        }
        sort_pairs(&mut words[1..]);
        if hint >= FIRST_COMPOSITE && same_words(self.words(hint), words) {
            return hint;
        }
        self.intern(words)
    }

    /// Interns an array term from its element terms (sorted and de-duplicated here);
    /// no elements gives [`ARRAY`].
    pub fn array(&mut self, elements: &mut Vec<u32>) -> u32 {
        if elements.is_empty() {
            return ARRAY;
        }
        elements.sort_unstable();
        elements.dedup();
        elements.insert(0, TAG_ARRAY);
        let id = self.intern(elements);
        elements.remove(0);
        id
    }

    /// Re-interns a raw encoding read back from serialised state, checking its references.
    pub fn restore(&mut self, words: &[u32], keys: usize) -> Option<u32> {
        let next = FIRST_COMPOSITE + self.list.len() as u32;
        let (&tag, rest) = words.split_first()?;
        match tag {
            TAG_CLOSED | TAG_OPEN => {
                let valid = rest.len() % 2 == 0
                    && rest
                        .chunks_exact(2)
                        .all(|p| (p[0] as usize) < keys && p[1] < next);
                let mut owned = words.to_vec();
                valid.then(|| self.object(tag == TAG_OPEN, &mut owned))
            }
            TAG_ARRAY if !rest.is_empty() && rest.iter().all(|&t| t < next) => {
                Some(self.array(&mut rest.to_vec()))
            }
            _ => None,
        }
    }

    /// Decodes a term id (unknown ids read as `{}`).
    pub fn get(&self, id: u32) -> Term<'_> {
        if id < FORMATTED {
            return Term::Leaf(id);
        }
        if id < FIRST_COMPOSITE {
            return Format::from_code((id - FORMATTED) as u8)
                .map_or(Term::Leaf(EMPTY), Term::Formatted);
        }
        match self.list.get((id - FIRST_COMPOSITE) as usize) {
            Some(words) => match words.split_first() {
                Some((&TAG_ARRAY, rest)) => Term::Array(rest),
                Some((&tag, rest)) => Term::Object {
                    open: tag == TAG_OPEN,
                    pairs: rest,
                },
                None => Term::Leaf(EMPTY),
            },
            None => Term::Leaf(EMPTY),
        }
    }

    /// The raw encoding of a composite term (for serialisation).
    pub fn words(&self, id: u32) -> &[u32] {
        id.checked_sub(FIRST_COMPOSITE)
            .and_then(|i| self.list.get(i as usize))
            .map_or(&[], |w| w)
    }
}

/// Slice equality without a library call (the slices are a few words long).
#[inline]
fn same_words(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Sorts flattened `(key, term)` pairs by key.
fn sort_pairs(words: &mut [u32]) {
    let n = words.len() / 2;
    if n > 16 {
        let mut pairs: Vec<(u32, u32)> = words.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        pairs.sort_unstable();
        for (slot, (k, t)) in words.chunks_exact_mut(2).zip(pairs) {
            slot[0] = k;
            slot[1] = t;
        }
        return;
    }
    for i in 1..n {
        let mut j = i;
        while j > 0 && words[2 * j - 2] > words[2 * j] {
            words.swap(2 * j - 2, 2 * j);
            words.swap(2 * j - 1, 2 * j + 1);
            j -= 1;
        }
    }
}
