//! The key-wise summary of the records met in one slot (`inferRecordSamples`): one column per
//! key, keeping only the `max_properties` smallest keys in UTF-16 order.

use std::cmp::Ordering;

use hashbrown::HashMap;

use super::slot::Slot;
use super::terms::Keys;
use super::text::{cmp_utf16, same_bytes};

/// One key of a record slot.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    /// Interned key.
    pub key: u32,
    /// Rows that carry the key.
    pub present: u64,
    /// The row stamp that last carried the key (duplicate detection).
    pub seen: u64,
    /// Where that row's entry sits in the row's entry list.
    pub entry: u32,
    /// Summary of the key's values.
    pub slot: Slot,
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
    index: HashMap<u32, u32>,
    /// Predicted column per entry position, from the previous record.
    order: Vec<u32>,
    /// Column holding the largest key, once the breadth limit is reached.
    largest: Option<u32>,
}

/// The outcome of looking a key up.
pub(crate) enum Found {
    Column(u32),
    Dropped,
}

impl Fields {
    /// The column of `key` (met at entry position `pos`), creating it if the breadth limit
    /// allows; a key beyond the limit is dropped and the slot marked truncated.
    pub fn find(
        &mut self,
        keys: &mut Keys,
        key: &[u8],
        pos: usize,
        cap: usize,
        child: (u32, bool),
    ) -> Found {
        if let Some(&c) = self.order.get(pos) {
            if let Some(column) = self.columns.get(c as usize) {
                if same_bytes(keys.get(column.key), key) {
                    return Found::Column(c);
                }
            }
        }
        let found = self.lookup(keys, key, cap, child);
        if let Found::Column(c) = found {
            if pos < self.order.len() {
                self.order[pos] = c;
            } else if pos == self.order.len() && pos < 4096 {
                self.order.push(c);
            }
        }
        found
    }

    /// The column of an interned key, if it is one.
    pub fn column_of(&self, key: u32) -> Option<u32> {
        self.index.get(&key).copied()
    }

    fn lookup(&mut self, keys: &mut Keys, key: &[u8], cap: usize, child: (u32, bool)) -> Found {
        if let Some(id) = keys.find(key) {
            if let Some(&c) = self.index.get(&id) {
                return Found::Column(c);
            }
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
            self.evict(largest);
        }
        let id = keys.intern(key);
        Found::Column(self.push(id, Slot::new(child.0, child.1)))
    }

    /// Adds a column for an interned key known to be absent.
    pub fn push(&mut self, key: u32, slot: Slot) -> u32 {
        let c = self.columns.len() as u32;
        self.columns.push(Column {
            key,
            present: 0,
            seen: 0,
            entry: 0,
            slot,
        });
        self.index.insert(key, c);
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

    fn evict(&mut self, c: u32) {
        let removed = self.columns.swap_remove(c as usize);
        self.index.remove(&removed.key);
        if let Some(moved) = self.columns.get(c as usize) {
            self.index.insert(moved.key, c);
        }
        self.largest = None;
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
        self.reindex();
    }

    /// Rebuilds the key index after columns moved.
    pub fn reindex(&mut self) {
        self.index.clear();
        for (c, column) in self.columns.iter().enumerate() {
            self.index.insert(column.key, c as u32);
        }
        self.order.clear();
        self.largest = None;
    }
}
