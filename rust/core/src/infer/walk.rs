//! `valueToSchema` (spec §9.2): the schema of one value as a term, with an ancestor set for
//! cycles and a `(container, depth)` memo so shared references do not re-expand.

use std::borrow::Cow;

use hashbrown::HashMap;

use super::ctx::Ctx;
use super::format::string_to_format;
use super::source::{Kind, NumberClass, Source};
use super::terms::{formatted, ARRAY, BOOLEAN, EMPTY, INTEGER, NULL, NUMBER, STRING};
use super::text::cmp_utf16;

/// One single-value walk.
pub(crate) struct Pure {
    format: bool,
    path: Vec<usize>,
    memo: HashMap<(usize, u32), u32>,
}

impl Pure {
    /// A walk that attaches formats to strings when `format` is set.
    pub fn new(format: bool) -> Pure {
        Pure {
            format,
            path: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// The term of `v` with `depth` containers left to open.
    pub fn term<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, depth: u32) -> u32 {
        match v.kind() {
            Kind::Null => NULL,
            Kind::Boolean => BOOLEAN,
            Kind::Other => EMPTY,
            Kind::Number(NumberClass::Integer) => INTEGER,
            Kind::Number(NumberClass::Fraction) => NUMBER,
            Kind::Number(NumberClass::NonFinite) => EMPTY,
            Kind::String if self.format => string_to_format(&v.text()).map_or(STRING, formatted),
            Kind::String => STRING,
            Kind::Temporal(format) if self.format => formatted(format),
            Kind::Temporal(_) => STRING,
            kind @ (Kind::Array | Kind::Object) => {
                if depth == 0 {
                    return EMPTY;
                }
                let identity = v.identity();
                if let Some(id) = identity {
                    if self.path.contains(&id) {
                        return EMPTY;
                    }
                    if let Some(&term) = self.memo.get(&(id, depth)) {
                        return term;
                    }
                    self.path.push(id);
                }
                let term = if kind == Kind::Array {
                    self.array(ctx, v, depth)
                } else {
                    self.record(ctx, v, depth)
                };
                if let Some(id) = identity {
                    self.path.pop();
                    self.memo.insert((id, depth), term);
                }
                term
            }
        }
    }

    fn array<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, depth: u32) -> u32 {
        if v.is_empty() || ctx.opts.max_properties == 0 {
            return ARRAY;
        }
        let mut elements = ctx.take();
        for item in v.items() {
            let term = self.term(ctx, item, depth - 1);
            if elements.last() != Some(&term) && (elements.len() >= 16 || !elements.contains(&term))
            {
                elements.push(term);
            }
        }
        let term = ctx.terms.array(&mut elements);
        ctx.give(elements);
        term
    }

    fn record<'a, S: Source<'a>>(&mut self, ctx: &mut Ctx, v: S, depth: u32) -> u32 {
        let cap = ctx.opts.max_properties;
        let mut open = !ctx.opts.closed;
        let mut entries: Vec<(Cow<'a, [u8]>, usize, S)> = Vec::with_capacity(v.len());
        for (pos, (key, value)) in v.entries().enumerate() {
            match key {
                Some(key) => entries.push((S::key_text(key), pos, value)),
                None => open = true,
            }
        }
        if S::duplicate_keys() || entries.len() > cap {
            entries.sort_by(|a, b| cmp_utf16(&a.0, &b.0).then(a.1.cmp(&b.1)));
            let mut i = 0;
            let mut deduped: Vec<(Cow<'a, [u8]>, usize, S)> = Vec::with_capacity(entries.len());
            while i < entries.len() {
                let mut j = i;
                while j + 1 < entries.len() && entries[j + 1].0 == entries[i].0 {
                    j += 1;
                }
                deduped.push(entries[j].clone());
                i = j + 1;
            }
            entries = deduped;
            if entries.len() > cap {
                entries.truncate(cap);
                open = true;
            }
        }
        let mut words = ctx.take();
        words.push(0);
        for (key, _, value) in entries {
            let id = ctx.keys.intern(&key);
            let term = self.term(ctx, value, depth - 1);
            words.extend([id, term]);
        }
        let term = ctx.terms.object(open, &mut words);
        ctx.give(words);
        term
    }
}
