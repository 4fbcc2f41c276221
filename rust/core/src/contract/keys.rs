//! A small open-addressing index from key text to position, for property lookup and string
//! literal membership without a linear scan of byte comparisons.

use crate::shape::Lit;
use crate::value::View;

const EMPTY: u32 = u32::MAX;
const MIX: u64 = 0x517C_C1B7_2722_0A95;

/// Packs up to eight bytes into a word, injectively for a given length, with no loop:
/// short inputs are read as overlapping pieces that together cover every byte.
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    match n {
        0 => 0,
        1..=3 => u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16,
        4..=7 => u32_at(bytes, 0) | u32_at(bytes, n - 4) << 32,
        _ => u64::from_le_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        ]),
    }
}

#[inline(always)]
fn u32_at(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes([
        bytes[at],
        bytes[at + 1],
        bytes[at + 2],
        bytes[at + 3],
    ]))
}

/// Hashes key text eight bytes at a time (multiply-rotate), with its length.
#[inline]
fn hash(key: &[u8]) -> u64 {
    let mut state = (key.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for chunk in key.chunks(8) {
        state = (state.rotate_left(5) ^ word(chunk)).wrapping_mul(MIX);
    }
    state ^ (state >> 29)
}

/// Byte equality without a library call for short keys.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && a.chunks(8)
            .zip(b.chunks(8))
            .all(|(x, y)| word(x) == word(y))
}

/// Positions of distinct keys: a scan of (length, first word) tags for a few keys, a hash
/// table for many.
#[derive(Clone, Debug)]
pub struct KeyIndex {
    tags: Box<[(usize, u64)]>,
    slots: Box<[u32]>,
    mask: usize,
}

const SCAN: usize = 12;

impl KeyIndex {
    /// Indexes `keys`; a repeated key keeps its first position.
    pub fn new<K: AsRef<[u8]>>(keys: &[K]) -> KeyIndex {
        let tags = keys
            .iter()
            .map(|key| {
                let key = key.as_ref();
                (key.len(), word(&key[..key.len().min(8)]))
            })
            .collect();
        if keys.len() <= SCAN {
            return KeyIndex {
                tags,
                slots: Box::new([]),
                mask: 0,
            };
        }
        let size = (keys.len() * 2).next_power_of_two();
        let mut index = KeyIndex {
            tags,
            slots: vec![EMPTY; size].into_boxed_slice(),
            mask: size - 1,
        };
        for (position, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            let mut slot = hash(key) as usize & index.mask;
            loop {
                let taken = index.slots[slot];
                if taken == EMPTY {
                    index.slots[slot] = u32::try_from(position).unwrap_or(EMPTY);
                    break;
                }
                if keys[taken as usize].as_ref() == key {
                    break;
                }
                slot = (slot + 1) & index.mask;
            }
        }
        index
    }

    /// Whether `key` is the key at `at`, confirmed with `same(at)` when longer than a word.
    #[inline(always)]
    pub fn is_at(&self, at: usize, key: &[u8], same: impl Fn(usize) -> bool) -> bool {
        self.tags.get(at).is_some_and(|&(len, first)| {
            len == key.len() && first == word(&key[..len.min(8)]) && (len <= 8 || same(at))
        })
    }

    /// The position of `key`, confirmed with `same(position)`.
    #[inline(always)]
    pub fn find(&self, key: &[u8], same: impl Fn(usize) -> bool) -> Option<usize> {
        if self.slots.is_empty() {
            let tag = (key.len(), word(&key[..key.len().min(8)]));
            return self
                .tags
                .iter()
                .enumerate()
                .find(|&(at, t)| *t == tag && (key.len() <= 8 || same(at)))
                .map(|(at, _)| at);
        }
        let mut slot = hash(key) as usize & self.mask;
        loop {
            let taken = self.slots[slot];
            if taken == EMPTY {
                return None;
            }
            if same(taken as usize) {
                return Some(taken as usize);
            }
            slot = (slot + 1) & self.mask;
        }
    }
}

/// The members of a literal shape, with string members indexed.
pub struct Members {
    values: Vec<Lit>,
    texts: Vec<Box<[u8]>>,
    /// The identities of key objects known to hold the string members (see
    /// [`crate::contract::Contract::bind_keys`]); empty when none are bound.
    ids: Box<[usize]>,
    index: KeyIndex,
}

/// Literals with more string members than this are looked up by text only.
const BOUND_MEMBERS: usize = 8;

impl Members {
    /// Indexes the members of a literal shape.
    pub fn new(values: &[Lit]) -> Members {
        let texts: Vec<Box<[u8]>> = values
            .iter()
            .filter_map(|lit| match lit {
                Lit::Str(text) => Some(text.clone()),
                _ => None,
            })
            .collect();
        Members {
            index: KeyIndex::new(&texts),
            values: values.to_vec(),
            texts,
            ids: Box::new([]),
        }
    }

    /// Binds each string member to the identity of an object holding its text (0 for
    /// none); skipped for large literals, which the index serves.
    pub(super) fn bind(&mut self, mut identity: impl FnMut(&[u8]) -> usize) {
        if self.texts.len() <= BOUND_MEMBERS {
            self.ids = self.texts.iter().map(|text| identity(text)).collect();
        }
    }

    /// Whether `identity` is that of an object bound to a string member: the value is
    /// that very object, so it holds the member's text.
    #[inline(always)]
    pub fn is_bound(&self, identity: usize) -> bool {
        identity != 0 && self.ids.contains(&identity)
    }

    /// Whether text is a string member.
    #[inline]
    pub fn contains_text(&self, text: &[u8]) -> bool {
        self.index
            .find(text, |at| *self.texts[at] == *text)
            .is_some()
    }

    /// SameValueZero membership (`-0` is `0`; a bool is never a number).
    pub fn contains(&self, value: &View<'_>) -> bool {
        match value {
            View::Str(text) => self.contains_text(text),
            View::Bool(b) => self.values.contains(&Lit::Bool(*b)),
            View::Int(_) | View::Float(_) => {
                let number = value.number();
                self.values
                    .iter()
                    .any(|lit| matches!(lit, Lit::Num(n) if Some(n.value()) == number))
            }
            _ => false,
        }
    }
}
