//! Turns slots and terms into JSON Schema, in the reference's key order.

use std::cell::Cell;

use super::ctx::Ctx;
use super::enums::Formats;
use super::fields::Fields;
use super::json::{sort_utf16, unify, Json};
use super::limits::SCHEMA_NODE_LIMIT;
use super::slot::{bit, Slot, Variants};
use super::terms::{Term, ARRAY, BOOLEAN, EMPTY, INTEGER, NULL, NUMBER, STRING};

fn key(name: &str) -> Box<[u8]> {
    name.as_bytes().into()
}

fn leaf(id: u32) -> Json {
    let name = match id {
        NULL => "null",
        BOOLEAN => "boolean",
        INTEGER => "integer",
        NUMBER => "number",
        STRING => "string",
        ARRAY => "array",
        _ => return Json::empty(),
    };
    Json::typed(name)
}

/// `{type: object, properties?, required?, additionalProperties}`.
fn object(properties: Vec<(Box<[u8]>, Json)>, mut required: Vec<Box<[u8]>>, open: bool) -> Json {
    let mut entries = vec![(key("type"), Json::str(b"object"))];
    if !properties.is_empty() {
        entries.push((key("properties"), Json::record(properties)));
    }
    if !required.is_empty() {
        sort_utf16(&mut required);
        let list = required.into_iter().map(Json::Str).collect();
        entries.push((key("required"), Json::Array(list)));
    }
    entries.push((key("additionalProperties"), Json::Bool(open)));
    Json::Object(entries)
}

/// Renders with the interners of one accumulator, within [`SCHEMA_NODE_LIMIT`] schema objects.
pub(crate) struct Render<'c> {
    ctx: &'c Ctx,
    left: Cell<usize>,
}

impl<'c> Render<'c> {
    pub fn new(ctx: &'c Ctx) -> Render<'c> {
        Render {
            ctx,
            left: Cell::new(SCHEMA_NODE_LIMIT),
        }
    }

    /// Whether the output outgrew the limit (the rendered tree is then incomplete).
    pub fn exceeded(&self) -> bool {
        self.left.get() == 0
    }

    fn spend(&self) -> bool {
        let left = self.left.get();
        self.left.set(left.saturating_sub(1));
        left > 1
    }

    /// The schema of a single-value term.
    pub fn term(&self, id: u32) -> Json {
        if !self.spend() {
            return Json::empty();
        }
        match self.ctx.terms.get(id) {
            Term::Leaf(id) => leaf(id),
            Term::Formatted(format) => Json::Object(vec![
                (key("type"), Json::str(b"string")),
                (key("format"), Json::str(format.name().as_bytes())),
            ]),
            Term::Object { open, pairs } => {
                let mut properties = Vec::with_capacity(pairs.len() / 2);
                let mut required = Vec::with_capacity(pairs.len() / 2);
                for pair in pairs.chunks_exact(2) {
                    let name: Box<[u8]> = self.ctx.keys.get(pair[0]).into();
                    required.push(name.clone());
                    properties.push((name, self.term(pair[1])));
                }
                object(properties, required, open)
            }
            Term::Array(elements) => {
                let members: Vec<Json> = elements.iter().map(|&e| self.term(e)).collect();
                if self.exceeded() {
                    return Json::empty();
                }
                Json::Object(vec![
                    (key("type"), Json::str(b"array")),
                    (key("items"), unify(members)),
                ])
            }
        }
    }

    fn fields(&self, fields: &Fields) -> Json {
        let mut properties = Vec::with_capacity(fields.columns.len());
        let mut required = Vec::new();
        for column in &fields.columns {
            let name: Box<[u8]> = self.ctx.keys.get(column.key).into();
            if column.present == fields.rows {
                required.push(name.clone());
            }
            properties.push((name, self.slot(&column.slot)));
        }
        let open = fields.truncated || fields.opened || !self.ctx.opts.closed;
        object(properties, required, open)
    }

    /// The schema of everything a slot has seen (`inferSamples`).
    pub fn slot(&self, slot: &Slot) -> Json {
        if !self.spend() || slot.count == 0 {
            return Json::empty();
        }
        if slot.records == slot.count {
            return match &slot.fields {
                Some(fields) if slot.depth > 0 => self.fields(fields),
                _ => Json::empty(),
            };
        }
        let opts = &self.ctx.opts;
        if slot.annotated && opts.enums {
            if let Some(schema) = slot.enums.schema(slot.count) {
                return schema;
            }
        }
        let merged = opts.merge || !slot.variants.exact();
        let merged_items = match &slot.items {
            Some(items) if merged && items.count > 0 => Some(items),
            _ => None,
        };
        let mut members = Vec::new();
        for id in [EMPTY, NULL, BOOLEAN, INTEGER, NUMBER, STRING, ARRAY] {
            if slot.leaves & bit(id) != 0 && !(id == ARRAY && merged_items.is_some()) {
                members.push(leaf(id));
            }
        }
        match &slot.variants {
            Variants::Exact(list) if !merged => {
                members.extend(list.iter().map(|&id| self.term(id)));
            }
            _ => {
                if let Some(fields) = slot.fields.as_ref().filter(|f| f.rows > 0) {
                    members.push(self.fields(fields));
                }
                if let Some(items) = merged_items {
                    members.push(Json::Object(vec![
                        (key("type"), Json::str(b"array")),
                        (key("items"), self.slot(items)),
                    ]));
                }
            }
        }
        if self.exceeded() {
            return Json::empty();
        }
        let unified = unify(members);
        if slot.annotated && opts.format && unified == Json::typed("string") {
            if let Formats::One(format) = slot.formats {
                return self.term(super::terms::formatted(format));
            }
        }
        unified
    }
}
