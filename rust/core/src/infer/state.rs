//! A compact, versioned binary form of an accumulator (for pickling and shipping between
//! processes). Only the keys and terms still in use are written; see `restore` for reading.

use hashbrown::HashMap;

use super::builder::Accumulator;
use super::enums::{Enums, Formats};
use super::slot::{Slot, Variants};
use super::terms::{Term, FIRST_COMPOSITE};

pub(crate) const MAGIC: &[u8; 4] = b"OKIS";
pub(crate) const VERSION: u8 = 1;

/// Malformed serialised state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateError;

struct Writer {
    out: Vec<u8>,
    keys: HashMap<u32, u32>,
    terms: HashMap<u32, u32>,
}

impl Writer {
    fn uint(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.out.push(byte);
                return;
            }
            self.out.push(byte | 0x80);
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.uint(b.len() as u64);
        self.out.extend_from_slice(b);
    }

    fn slot(&mut self, slot: &Slot) {
        self.uint(u64::from(slot.depth));
        self.out.push(u8::from(slot.annotated));
        self.uint(slot.count);
        self.out.push(slot.leaves);
        self.uint(slot.records);
        self.uint(slot.arrays);
        match &slot.variants {
            Variants::Overflow => self.out.push(1),
            Variants::Exact(list) => {
                self.out.push(0);
                self.uint(list.len() as u64);
                for id in list {
                    let mapped = self.terms.get(id).copied().unwrap_or(0);
                    self.uint(u64::from(mapped));
                }
            }
        }
        match &slot.enums {
            Enums::Unset => self.out.push(0),
            Enums::Strings(list) => {
                self.out.push(1);
                self.uint(list.len() as u64);
                for s in list {
                    self.bytes(s);
                }
            }
            Enums::Numbers(list) => {
                self.out.push(2);
                self.uint(list.len() as u64);
                for x in list {
                    self.out.extend_from_slice(&x.to_bits().to_le_bytes());
                }
            }
            Enums::Off => self.out.push(3),
        }
        match slot.formats {
            Formats::Unset => self.out.push(0),
            Formats::One(f) => self.out.extend([1, f.code()]),
            Formats::Mixed => self.out.push(2),
        }
        match &slot.fields {
            None => self.out.push(0),
            Some(fields) => {
                self.out.push(1);
                self.uint(fields.rows);
                self.out
                    .push(u8::from(fields.truncated) | u8::from(fields.opened) << 1);
                self.uint(fields.columns.len() as u64);
                for column in &fields.columns {
                    let key = self.keys.get(&column.key).copied().unwrap_or(0);
                    self.uint(u64::from(key));
                    self.uint(column.present);
                    self.slot(&column.slot);
                }
            }
        }
        match &slot.items {
            None => self.out.push(0),
            Some(items) => {
                self.out.push(1);
                self.slot(items);
            }
        }
    }
}

/// Marks the terms and keys a slot tree still refers to.
fn reach(slot: &Slot, terms: &mut Vec<u32>, keys: &mut Vec<u32>) {
    if let Variants::Exact(list) = &slot.variants {
        terms.extend(list);
    }
    if let Some(fields) = &slot.fields {
        for column in &fields.columns {
            keys.push(column.key);
            reach(&column.slot, terms, keys);
        }
    }
    if let Some(items) = &slot.items {
        reach(items, terms, keys);
    }
}

/// Serialises an accumulator.
pub fn encode(acc: &Accumulator) -> Vec<u8> {
    let (ctx, root) = acc.parts();
    let (mut terms, mut keys) = (Vec::new(), Vec::new());
    reach(root, &mut terms, &mut keys);
    let mut seen: HashMap<u32, ()> = HashMap::new();
    let mut stack = terms.clone();
    terms.clear();
    while let Some(id) = stack.pop() {
        if id < FIRST_COMPOSITE || seen.insert(id, ()).is_some() {
            continue;
        }
        terms.push(id);
        match ctx.terms.get(id) {
            Term::Object { pairs, .. } => {
                for pair in pairs.chunks_exact(2) {
                    keys.push(pair[0]);
                    stack.push(pair[1]);
                }
            }
            Term::Array(elements) => stack.extend(elements),
            _ => {}
        }
    }
    terms.sort_unstable();
    keys.sort_unstable();
    keys.dedup();
    let mut w = Writer {
        out: Vec::new(),
        keys: HashMap::new(),
        terms: HashMap::new(),
    };
    let opts = ctx.opts;
    w.out.extend_from_slice(MAGIC);
    w.out.push(VERSION);
    w.out.push(
        u8::from(opts.format)
            | u8::from(opts.enums) << 1
            | u8::from(opts.closed) << 2
            | u8::from(opts.merge) << 3,
    );
    w.uint(u64::from(opts.max_depth));
    w.uint(opts.max_properties as u64);
    w.uint(acc.samples());
    w.uint(keys.len() as u64);
    for (i, &key) in keys.iter().enumerate() {
        w.keys.insert(key, i as u32);
        w.bytes(ctx.keys.get(key));
    }
    w.uint(terms.len() as u64);
    for (i, &id) in terms.iter().enumerate() {
        w.terms.insert(id, FIRST_COMPOSITE + i as u32);
        let words = ctx.terms.words(id);
        let mut mapped = Vec::with_capacity(words.len());
        match ctx.terms.get(id) {
            Term::Object { .. } => {
                mapped.push(words[0]);
                for pair in words[1..].chunks_exact(2) {
                    mapped.push(w.keys.get(&pair[0]).copied().unwrap_or(0));
                    mapped.push(map_term(&w.terms, pair[1]));
                }
            }
            _ => {
                mapped.push(words[0]);
                mapped.extend(words[1..].iter().map(|&t| map_term(&w.terms, t)));
            }
        }
        w.uint(mapped.len() as u64);
        for word in mapped {
            w.uint(u64::from(word));
        }
    }
    w.slot(root);
    w.out
}

fn map_term(terms: &HashMap<u32, u32>, id: u32) -> u32 {
    if id < FIRST_COMPOSITE {
        id
    } else {
        terms.get(&id).copied().unwrap_or(0)
    }
}
