//! Reading back the binary form written by [`encode`](super::state::encode), checking every
//! length, id and depth so malformed bytes give [`StateError`], never a panic.

use super::builder::Accumulator;
use super::ctx::Ctx;
use super::enums::{Enums, Formats};
use super::fields::Fields;
use super::format::Format;
use super::limits::{INFER_DEPTH_LIMIT, INFER_ENUM_LIMIT};
use super::options::Options;
use super::slot::{Slot, Variants};
use super::state::{StateError, MAGIC, VERSION};
use super::terms::FIRST_COMPOSITE;

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
                if fields.column_of(&ctx.keys, key).is_some() {
                    return Err(StateError);
                }
                let present = self.uint()?;
                let column_slot = self.slot(ctx, child, annotated)?;
                let c = fields.push(&ctx.keys, key, column_slot);
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
    if max_depth > INFER_DEPTH_LIMIT || flags > 15 {
        return Err(StateError);
    }
    let opts = Options {
        format: flags & 1 != 0,
        enums: flags & 2 != 0,
        closed: flags & 4 != 0,
        merge: flags & 8 != 0,
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
