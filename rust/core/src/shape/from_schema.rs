//! `schema_to_shape` (spec §10): a JSON Schema widened into a validating shape. Only
//! widening: every keyword the shapes cannot assert is ignored, and anything unknown becomes
//! a raw shape that accepts any value.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::fields::{field, fields_of, literal_of};
use super::raw::items_of;
use super::render::{lit_json, num_json};
use super::Lit;
use crate::constants::{INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT};
use crate::json::{Json, JsonRef, Num, ObjectBuilder};
use crate::text::keys::js_order;
use crate::text::number::is_safe_integer;
use crate::value::{Node, View};

/// Converts a JSON Schema value into shape data. It never refuses readable input.
pub fn schema_to_shape<N: Node>(schema: &N) -> JsonRef {
    let mut converter = Converter {
        memo: HashMap::new(),
        ancestors: HashSet::new(),
    };
    converter.convert(Some(schema), INFER_DEPTH_LIMIT)
}

struct Converter {
    memo: HashMap<(usize, usize), JsonRef>,
    ancestors: HashSet<usize>,
}

fn raw(description: Option<JsonRef>) -> JsonRef {
    let mut schema = ObjectBuilder::new();
    schema.maybe("description", description);
    let mut out = ObjectBuilder::new();
    out.set("type", Json::text("raw"))
        .set("schema", schema.build());
    out.build()
}

fn number_of<N: Node>(value: Option<&N>) -> Option<Num> {
    match value?.view() {
        View::Int(i) => Some(Num::Int(i)),
        View::Float(f) if f.is_finite() => Some(Num::Float(f)),
        _ => None,
    }
}

/// Keeps each side that is a non-negative safe integer; drops both when min > max.
fn length_bounds<N: Node>(min: Option<&N>, max: Option<&N>) -> (Option<Num>, Option<Num>) {
    let keep =
        |v: Option<&N>| number_of(v).filter(|n| is_safe_integer(n.value()) && n.value() >= 0.0);
    range_pair(keep(min), keep(max))
}

fn range_pair(min: Option<Num>, max: Option<Num>) -> (Option<Num>, Option<Num>) {
    match (min, max) {
        (Some(lo), Some(hi)) if lo.value() > hi.value() => (None, None),
        pair => pair,
    }
}

impl Converter {
    fn convert<N: Node>(&mut self, node: Option<&N>, depth: usize) -> JsonRef {
        crate::stack::grow(|| self.convert_at(node, depth))
    }

    fn convert_at<N: Node>(&mut self, node: Option<&N>, depth: usize) -> JsonRef {
        let Some(node) = node else {
            return raw(None);
        };
        let identity = node.identity();
        if depth == 0 || self.ancestors.contains(&identity) {
            return raw(None);
        }
        let Some(fields) = fields_of(node) else {
            return raw(None);
        };
        if let Some(done) = self.memo.get(&(identity, depth)) {
            return done.clone();
        }
        self.ancestors.insert(identity);
        let shape = self.rules(&fields, depth);
        self.ancestors.remove(&identity);
        self.memo.insert((identity, depth), shape.clone());
        shape
    }

    fn rules<N: Node>(&mut self, fields: &[(Box<[u8]>, N)], depth: usize) -> JsonRef {
        let description = match field(fields, "description").map(Node::view) {
            Some(View::Str(text)) => Some(Json::text(&*text)),
            _ => None,
        };
        if let Some(values) = field(fields, "enum").and_then(items_of) {
            let mut kept: Vec<Lit> = Vec::new();
            for value in &values {
                let Some(lit) = literal_of(value) else {
                    continue;
                };
                if matches!(lit, Lit::Num(n) if !n.value().is_finite())
                    || kept.iter().any(|k| k.same(&lit))
                {
                    continue;
                }
                kept.push(lit);
            }
            if !kept.is_empty() {
                let mut out = ObjectBuilder::new();
                out.set("type", Json::text("literal"))
                    .set(
                        "values",
                        Arc::new(Json::Array(kept.iter().map(lit_json).collect())),
                    )
                    .maybe("description", description);
                return out.build();
            }
        }
        for (keyword, one_of) in [("oneOf", true), ("anyOf", false)] {
            let Some(entries) = field(fields, keyword).and_then(items_of) else {
                continue;
            };
            let records: Vec<&N> = entries.iter().filter(|e| fields_of(*e).is_some()).collect();
            if records.len() > INFER_BREADTH_LIMIT {
                return raw(description);
            }
            if !records.is_empty() {
                let variants = records
                    .into_iter()
                    .map(|r| self.convert(Some(r), depth - 1))
                    .collect();
                let mut out = ObjectBuilder::new();
                out.set("type", Json::text("union"))
                    .set("variants", Arc::new(Json::Array(variants)));
                if one_of {
                    out.set("mode", Json::text("oneOf"));
                }
                return out.build();
            }
        }
        let kind = match field(fields, "type").map(Node::view) {
            Some(View::Str(text)) => Some(text.into_owned()),
            Some(_) => return raw(description),
            None => None,
        };
        let mut out = ObjectBuilder::new();
        match kind.as_deref() {
            Some(b"string") => {
                let (min, max) =
                    length_bounds(field(fields, "minLength"), field(fields, "maxLength"));
                out.set("type", Json::text("string"))
                    .maybe("min", min.map(num_json))
                    .maybe("max", max.map(num_json));
            }
            Some(kind @ (b"number" | b"integer")) => {
                let (mut min, mut max) = range_pair(
                    number_of(field(fields, "minimum")),
                    number_of(field(fields, "maximum")),
                );
                let integer = kind == b"integer";
                if integer {
                    if let (Some(lo), Some(hi)) = (min, max) {
                        if lo.value().ceil() > hi.value().floor() {
                            (min, max) = (None, None);
                        }
                    }
                }
                out.set("type", Json::text("number"))
                    .maybe("min", min.map(num_json))
                    .maybe("max", max.map(num_json))
                    .maybe("integer", integer.then(|| Arc::new(Json::Bool(true))));
            }
            Some(kind @ (b"boolean" | b"null")) => {
                out.set("type", Json::text(kind));
            }
            Some(b"array") => {
                let items = field(fields, "items").filter(|i| fields_of(*i).is_some());
                let items = match items {
                    Some(items) => self.convert(Some(items), depth - 1),
                    None => raw(None),
                };
                let (min, max) =
                    length_bounds(field(fields, "minItems"), field(fields, "maxItems"));
                out.set("type", Json::text("array"))
                    .set("items", items)
                    .maybe("min", min.map(num_json))
                    .maybe("max", max.map(num_json));
            }
            Some(b"object") => self.object(fields, depth, &mut out),
            None if field(fields, "properties").and_then(fields_of).is_some() => {
                self.object(fields, depth, &mut out);
            }
            _ => return raw(description),
        }
        out.maybe("description", description);
        out.build()
    }

    fn object<N: Node>(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        depth: usize,
        out: &mut ObjectBuilder,
    ) {
        let properties = field(fields, "properties")
            .and_then(fields_of)
            .unwrap_or_default();
        let required: Vec<Box<[u8]>> = field(fields, "required")
            .and_then(items_of)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| match v.view() {
                View::Str(text) => Some(text.into_owned().into_boxed_slice()),
                _ => None,
            })
            .collect();
        let names: Vec<&[u8]> = properties.iter().map(|(k, _)| &**k).collect();
        let mut map = ObjectBuilder::new();
        for position in js_order(&names).into_iter().take(INFER_BREADTH_LIMIT) {
            let (name, child) = &properties[position];
            let shape = if fields_of(child).is_some() {
                self.convert(Some(child), depth - 1)
            } else {
                raw(None)
            };
            let shape = if required.contains(name) {
                shape
            } else {
                let mut optional = ObjectBuilder::new();
                optional
                    .set("type", Json::text("optional"))
                    .set("inner", shape);
                optional.build()
            };
            map.set(name, shape);
        }
        let additional = match field(fields, "additionalProperties") {
            _ if properties.len() > INFER_BREADTH_LIMIT => Arc::new(Json::Bool(true)),
            Some(extra) if matches!(extra.view(), View::Bool(false)) => Arc::new(Json::Bool(false)),
            Some(extra) if fields_of(extra).is_some() => self.convert(Some(extra), depth - 1),
            _ => Arc::new(Json::Bool(true)),
        };
        out.set("type", Json::text("object"))
            .set("properties", map.build())
            .set("additionalProperties", additional);
    }
}
