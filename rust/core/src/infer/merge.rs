//! Folding one accumulator into another: the reduce step of map-reduce inference.
//!
//! Every part of a slot summary is a join: counts add, sets unite (with the same caps as a
//! single pass), flags or. So the result does not depend on how samples were split.

use hashbrown::HashMap;

use super::ctx::Ctx;
use super::fields::Fields;
use super::slot::{Slot, Variants};
use super::terms::{Term, FIRST_COMPOSITE};

/// Translates ids from a source accumulator's interners into the destination's.
pub(crate) struct Merger<'x> {
    pub dst: &'x mut Ctx,
    pub src: &'x Ctx,
    keys: HashMap<u32, u32>,
    terms: HashMap<u32, u32>,
}

impl<'x> Merger<'x> {
    pub fn new(dst: &'x mut Ctx, src: &'x Ctx) -> Merger<'x> {
        Merger {
            dst,
            src,
            keys: HashMap::new(),
            terms: HashMap::new(),
        }
    }

    fn key(&mut self, id: u32) -> u32 {
        if let Some(&mapped) = self.keys.get(&id) {
            return mapped;
        }
        let mapped = self.dst.keys.intern(self.src.keys.get(id));
        self.keys.insert(id, mapped);
        mapped
    }

    fn term(&mut self, id: u32) -> u32 {
        if id < FIRST_COMPOSITE {
            return id;
        }
        if let Some(&mapped) = self.terms.get(&id) {
            return mapped;
        }
        let src = self.src;
        let mapped = match src.terms.get(id) {
            Term::Object { open, pairs } => {
                let mut words = vec![0];
                for pair in pairs.chunks_exact(2) {
                    let key = self.key(pair[0]);
                    let term = self.term(pair[1]);
                    words.extend([key, term]);
                }
                self.dst.terms.object(open, &mut words)
            }
            Term::Array(elements) => {
                let mut list: Vec<u32> = elements.iter().map(|&e| self.term(e)).collect();
                self.dst.terms.array(&mut list)
            }
            Term::Leaf(leaf) => leaf,
            Term::Formatted(format) => super::terms::formatted(format),
        };
        self.terms.insert(id, mapped);
        mapped
    }

    /// Folds `src` into `dst`.
    pub fn slot(&mut self, dst: &mut Slot, src: &Slot) {
        dst.count += src.count;
        dst.leaves |= src.leaves;
        dst.records += src.records;
        dst.arrays += src.arrays;
        match &src.variants {
            Variants::Overflow => dst.variants = Variants::Overflow,
            Variants::Exact(list) => {
                for &id in list {
                    if !dst.variants.exact() {
                        break;
                    }
                    let mapped = self.term(id);
                    dst.variants.insert(mapped);
                }
            }
        }
        dst.enums.merge(&src.enums);
        dst.formats.merge(src.formats);
        let child = (dst.depth.saturating_sub(1), dst.annotated);
        if let Some(from) = &src.fields {
            let into = dst.fields.get_or_insert_with(Box::default);
            self.fields(into, from, child);
        }
        if let Some(from) = &src.items {
            let into = dst
                .items
                .get_or_insert_with(|| Box::new(Slot::new(child.0, false)));
            self.slot(into, from);
        }
    }

    fn fields(&mut self, dst: &mut Fields, src: &Fields, child: (u32, bool)) {
        dst.rows += src.rows;
        dst.truncated |= src.truncated;
        dst.opened |= src.opened;
        for from in &src.columns {
            let key = self.key(from.key);
            let c = match dst.column_of(&self.dst.keys, key) {
                Some(c) => c,
                None => dst.push(&self.dst.keys, key, Slot::new(child.0, child.1)),
            };
            let into = &mut dst.columns[c as usize];
            into.present += from.present;
            self.slot(&mut into.slot, &from.slot);
        }
        dst.trim(&self.dst.keys, self.dst.opts.max_properties);
    }
}
