//! A compact, versioned binary form of an accumulator (for pickling and shipping between
//! processes). Only the keys and terms still in use are written. Reading checks every length,
//! id and depth, so malformed bytes give an error, never a panic or a corrupt accumulator.

use hashbrown::HashMap;

use super::builder::Accumulator;
use super::ctx::Ctx;
use super::enums::{Enums, Formats};
use super::fields::Fields;
use super::format::Format;
use super::limits::{INFER_DEPTH_LIMIT, INFER_ENUM_LIMIT};
use super::options::Options;
use super::slot::{Slot, Variants};
use super::terms::{Term, FIRST_COMPOSITE};

const MAGIC: &[u8; 4] = b"OKIS";
const VERSION: u8 = 1;

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
    w.out
        .push(u8::from(opts.format) | u8::from(opts.enums) << 1 | u8::from(opts.closed) << 2);
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

struct Reader<'b> {
    data: &'b [u8],
    pos: usize,
    keys: Vec<u32>,
    terms: Vec<u32>,
}

type R<T> = Result<T, StateError>;

impl Reader<'_> {
    fn byte(&mut self) -> R<u8> {
        let b = *self.data.get(self.pos).ok_or(StateError)?;
        self.pos += 1;
        Ok(b)
    }

    fn uint(&mut self) -> R<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(StateError)
    }

    fn small(&mut self) -> R<u32> {
        u32::try_from(self.uint()?).map_err(|_| StateError)
    }

    fn bytes(&mut self) -> R<&[u8]> {
        let len = usize::try_from(self.uint()?).map_err(|_| StateError)?;
        let end = self.pos.checked_add(len).ok_or(StateError)?;
        let out = self.data.get(self.pos..end).ok_or(StateError)?;
        self.pos = end;
        Ok(out)
    }

    fn count(&mut self, at_most: usize) -> R<usize> {
        let n = usize::try_from(self.uint()?).map_err(|_| StateError)?;
        if n > at_most || n > self.data.len() {
            return Err(StateError);
        }
        Ok(n)
    }

    fn term(&self, id: u32) -> R<u32> {
        if id < FIRST_COMPOSITE {
            return Ok(id);
        }
        self.terms
            .get((id - FIRST_COMPOSITE) as usize)
            .copied()
            .ok_or(StateError)
    }

    fn slot(&mut self, ctx: &mut Ctx, depth: u32, annotated: bool) -> R<Slot> {
        if self.small()? != depth || (self.byte()? != 0) != annotated {
            return Err(StateError);
        }
        let mut slot = Slot::new(depth, annotated);
        slot.count = self.uint()?;
        slot.leaves = self.byte()?;
        slot.records = self.uint()?;
        slot.arrays = self.uint()?;
        slot.variants = match self.byte()? {
            0 => {
                let mut variants = Variants::default();
                for _ in 0..self.count(usize::MAX)? {
                    let raw = self.small()?;
                    let id = self.term(raw)?;
                    if id < FIRST_COMPOSITE {
                        return Err(StateError);
                    }
                    variants.insert(id);
                }
                variants
            }
            1 => Variants::Overflow,
            _ => return Err(StateError),
        };
        slot.enums = match self.byte()? {
            0 => Enums::Unset,
            1 => {
                let n = self.count(INFER_ENUM_LIMIT)?;
                let mut list = Vec::with_capacity(n);
                for _ in 0..n {
                    list.push(self.bytes()?.into());
                }
                Enums::Strings(list)
            }
            2 => {
                let n = self.count(INFER_ENUM_LIMIT)?;
                let mut list = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut raw = [0u8; 8];
                    for b in &mut raw {
                        *b = self.byte()?;
                    }
                    let x = f64::from_bits(u64::from_le_bytes(raw));
                    if !x.is_finite() {
                        return Err(StateError);
                    }
                    list.push(x);
                }
                Enums::Numbers(list)
            }
            3 => Enums::Off,
            _ => return Err(StateError),
        };
        slot.formats = match self.byte()? {
            0 => Formats::Unset,
            1 => Formats::One(Format::from_code(self.byte()?).ok_or(StateError)?),
            2 => Formats::Mixed,
            _ => return Err(StateError),
        };
        if self.byte()? == 1 {
            let child = depth.checked_sub(1).ok_or(StateError)?;
            let mut fields = Fields::default();
            fields.rows = self.uint()?;
            let flags = self.byte()?;
            fields.truncated = flags & 1 != 0;
            fields.opened = flags & 2 != 0;
            for _ in 0..self.count(ctx.opts.max_properties)? {
                let index = usize::try_from(self.uint()?).map_err(|_| StateError)?;
                let key = *self.keys.get(index).ok_or(StateError)?;
                if fields.column_of(key).is_some() {
                    return Err(StateError);
                }
                let present = self.uint()?;
                let column_slot = self.slot(ctx, child, annotated)?;
                let c = fields.push(key, column_slot);
                fields.columns[c as usize].present = present;
            }
            slot.fields = Some(Box::new(fields));
        }
        if self.byte()? == 1 {
            let child = depth.checked_sub(1).ok_or(StateError)?;
            slot.items = Some(Box::new(self.slot(ctx, child, false)?));
        }
        Ok(slot)
    }
}

/// Reads an accumulator written by [`encode`].
pub fn decode(data: &[u8]) -> Result<Accumulator, StateError> {
    if data.get(..4) != Some(MAGIC.as_slice()) || data.get(4) != Some(&VERSION) {
        return Err(StateError);
    }
    let mut r = Reader {
        data,
        pos: 5,
        keys: Vec::new(),
        terms: Vec::new(),
    };
    let flags = r.byte()?;
    let max_depth = r.small()?;
    let max_properties = usize::try_from(r.uint()?).map_err(|_| StateError)?;
    if max_depth > INFER_DEPTH_LIMIT || flags > 7 {
        return Err(StateError);
    }
    let opts = Options {
        format: flags & 1 != 0,
        enums: flags & 2 != 0,
        closed: flags & 4 != 0,
        max_depth,
        max_properties,
    };
    let samples = r.uint()?;
    let mut ctx = Ctx::new(opts);
    for _ in 0..r.count(usize::MAX)? {
        let key = r.bytes()?.to_vec();
        r.keys.push(ctx.keys.intern(&key));
    }
    for _ in 0..r.count(usize::MAX)? {
        let n = r.count(usize::MAX)?;
        let mut words = Vec::with_capacity(n);
        for i in 0..n {
            let word = r.small()?;
            let object = words.first().is_some_and(|&tag| tag < 2);
            words.push(match i {
                0 => word,
                _ if object && i % 2 == 1 => *r.keys.get(word as usize).ok_or(StateError)?,
                _ => r.term(word)?,
            });
        }
        let id = ctx
            .terms
            .restore(&words, ctx.keys.len())
            .ok_or(StateError)?;
        r.terms.push(id);
    }
    let root = r.slot(&mut ctx, max_depth, true)?;
    if r.pos != data.len() {
        return Err(StateError);
    }
    Ok(Accumulator::from_parts(ctx, root, samples))
}
