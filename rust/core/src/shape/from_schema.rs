//! `schema_to_shape` (spec §10): a JSON Schema widened into a validating shape. Only
//! widening: every keyword the shapes cannot assert is ignored, and anything unknown becomes
//! a raw shape that accepts any value.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::fields::{field, fields_of, literal_of};
use super::raw::items_of;
use super::render::{lit_json, num_json};
use super::Lit;
use crate::constants::{COMPILE_NODE_LIMIT, INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT};
use crate::json::{Json, JsonRef, Num, ObjectBuilder};
use crate::text::keys::js_order;
use crate::text::number::is_safe_integer;
use crate::value::{Node, View};

/// Converts a JSON Schema value into shape data. It never refuses readable input.
pub fn schema_to_shape<N: Node>(schema: &N) -> JsonRef {
    let mut converter = Converter {
        memo: HashMap::new(),
        ancestors: HashSet::new(),
        budget: CONVERT_BUDGET,
    };
    converter.convert(Some(schema), INFER_DEPTH_LIMIT)
}

struct Converter {
    memo: HashMap<(usize, usize), JsonRef>,
    ancestors: HashSet<usize>,
    /// Records left to convert: sibling keywords distributed into union variants are not
    /// memoized, so nested unions could otherwise multiply the work.
    budget: usize,
}

/// The most schema records one conversion reads before the rest widens to raw shapes: each
/// read adds a node to the expanded shape, so a conversion past the compilation node limit
/// could never compile anyway.
const CONVERT_BUDGET: usize = COMPILE_NODE_LIMIT as usize;

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
        if self.budget == 0 {
            return raw(description);
        }
        self.budget -= 1;
        if let Some(values) = field(fields, "enum")
            .and_then(items_of)
            .filter(|v| !v.is_empty())
        {
            return enum_shape(&values, description);
        }
        for (keyword, one_of) in [("oneOf", true), ("anyOf", false)] {
            let Some(entries) = field(fields, keyword).and_then(items_of) else {
                continue;
            };
            if entries.len() > INFER_BREADTH_LIMIT || depth <= 1 {
                return raw(description);
            }
            return self.union(fields, keyword, &entries, one_of, depth);
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
                let items = field(fields, "items")
                    .filter(|i| fields_of(*i).is_some() && field(fields, "prefixItems").is_none());
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
                out.maybe("description", description);
                return or_any_other_kind(out.build());
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
            _ if field(fields, "patternProperties")
                .and_then(fields_of)
                .is_some_and(|patterns| !patterns.is_empty()) =>
            {
                Arc::new(Json::Bool(true))
            }
            Some(extra) if matches!(extra.view(), View::Bool(false)) => Arc::new(Json::Bool(false)),
            Some(extra) if fields_of(extra).is_some() => self.convert(Some(extra), depth - 1),
            _ => Arc::new(Json::Bool(true)),
        };
        out.set("type", Json::text("object"))
            .set("properties", map.build())
            .set("additionalProperties", additional);
    }
}

/// Keywords whose meanings depend on one another: a union variant that sets one of a group
/// takes the whole group from itself, never mixing in its siblings' part of it.
const GROUPS: [&[&str]; 3] = [
    &["properties", "patternProperties", "additionalProperties"],
    &["prefixItems", "items", "additionalItems"],
    &["enum", "const"],
];

fn group_of(key: &[u8]) -> Option<&'static [&'static str]> {
    GROUPS
        .into_iter()
        .find(|group| group.iter().any(|k| k.as_bytes() == key))
}

/// A variant's own fields, plus each of its siblings' keywords (the union keyword aside)
/// that the variant does not set, group by group (annotations stay with their own node). The result asserts no more than the
/// sibling keywords and the variant together, so converting it can only widen.
fn distribute<N: Node>(
    siblings: &[(Box<[u8]>, N)],
    keyword: &str,
    variant: &[(Box<[u8]>, N)],
) -> Vec<(Box<[u8]>, N)> {
    let mut merged: Vec<(Box<[u8]>, N)> = variant.to_vec();
    for (key, value) in siblings {
        if &**key == keyword.as_bytes() || &**key == b"description" {
            continue;
        }
        let taken = match group_of(key) {
            Some(group) => variant
                .iter()
                .any(|(k, _)| group.iter().any(|g| g.as_bytes() == &**k)),
            None => variant.iter().any(|(k, _)| k == key),
        };
        if !taken {
            merged.push((key.clone(), value.clone()));
        }
    }
    merged
}

impl Converter {
    /// `oneOf` / `anyOf` with the sibling keywords distributed into every variant. A `false`
    /// variant accepts nothing and is left out; any other non-record variant accepts
    /// anything. `oneOf` keeps its exclusivity only where the converted variants provably
    /// never overlap: otherwise a value matching one schema variant could match two
    /// converted ones, and the conversion would refuse it.
    fn union<N: Node>(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        keyword: &str,
        entries: &[N],
        one_of: bool,
        depth: usize,
    ) -> JsonRef {
        let description = match field(fields, "description").map(Node::view) {
            Some(View::Str(text)) => Some(Json::text(&*text)),
            _ => None,
        };
        let mut variants = Vec::with_capacity(entries.len());
        for entry in entries {
            if matches!(entry.view(), View::Bool(false)) {
                continue;
            }
            let own = fields_of(entry).unwrap_or_default();
            let identity = entry.identity();
            if self.ancestors.contains(&identity) {
                return raw(description);
            }
            self.ancestors.insert(identity);
            let merged = distribute(fields, keyword, &own);
            variants.push(self.rules(&merged, depth - 1));
            self.ancestors.remove(&identity);
        }
        if variants.is_empty() {
            return raw(description);
        }
        let mut out = ObjectBuilder::new();
        out.set("type", Json::text("union"));
        if one_of && exclusive(&variants) {
            out.set("mode", Json::text("oneOf"));
        }
        out.set("variants", Arc::new(Json::Array(variants)));
        out.build()
    }
}

const STRING: u8 = 1;
const NUMBER: u8 = 2;
const BOOLEAN: u8 = 4;
const NULL: u8 = 8;
const ARRAY: u8 = 16;
const OBJECT: u8 = 32;

/// What a converted shape can accept: its JSON kinds, and its members when a literal.
/// `None` when it cannot be told cheaply (raw, json and union shapes).
fn reach(shape: &Json) -> Option<(u8, Option<&[JsonRef]>)> {
    let Some(Json::String(kind)) = shape.get("type").map(|k| &**k) else {
        return None;
    };
    let kinds = match &**kind {
        b"string" => STRING,
        b"number" => NUMBER,
        b"boolean" => BOOLEAN,
        b"null" => NULL,
        b"array" => ARRAY,
        b"object" => OBJECT,
        b"nullable" => {
            let (inner, _) = reach(shape.get("inner")?)?;
            return Some((inner | NULL, None));
        }
        b"literal" => {
            let Some(Json::Array(values)) = shape.get("values").map(|v| &**v) else {
                return None;
            };
            let kinds = values.iter().fold(0, |kinds, value| {
                kinds
                    | match &**value {
                        Json::String(_) => STRING,
                        Json::Number(_) => NUMBER,
                        Json::Bool(_) => BOOLEAN,
                        _ => NULL,
                    }
            });
            return Some((kinds, Some(values)));
        }
        _ => return None,
    };
    Some((kinds, None))
}

fn same_member(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.value() == y.value(),
        _ => a == b,
    }
}

/// Whether no value can fit two of the converted variants.
fn exclusive(variants: &[JsonRef]) -> bool {
    if variants.len() < 2 {
        return true;
    }
    let reached: Option<Vec<_>> = variants.iter().map(|v| reach(v)).collect();
    let Some(reached) = reached else {
        return false;
    };
    reached.iter().enumerate().all(|(i, (kinds, members))| {
        reached[i + 1..].iter().all(|(other, other_members)| {
            if kinds & other == 0 {
                return true;
            }
            match (members, other_members) {
                (Some(a), Some(b)) => !a.iter().any(|x| b.iter().any(|y| same_member(x, y))),
                _ => false,
            }
        })
    })
}

/// An `enum`: a literal of its strings, numbers and booleans, nullable when it
/// lists `null`; any array or object member makes it a raw shape, which accepts it.
fn enum_shape<N: Node>(values: &[N], description: Option<JsonRef>) -> JsonRef {
    let mut kept: Vec<Lit> = Vec::new();
    let mut null = false;
    for value in values {
        match value.view() {
            View::Null => null = true,
            View::Array | View::Object | View::Other(_) => return raw(description),
            _ => {}
        }
        let Some(lit) = literal_of(value) else {
            continue;
        };
        if matches!(lit, Lit::Num(n) if !n.value().is_finite()) || kept.iter().any(|k| k.same(&lit))
        {
            continue;
        }
        kept.push(lit);
    }
    let mut out = ObjectBuilder::new();
    if kept.is_empty() {
        out.set("type", Json::text("null"))
            .maybe("description", description);
        return out.build();
    }
    out.set("type", Json::text("literal")).set(
        "values",
        Arc::new(Json::Array(kept.iter().map(lit_json).collect())),
    );
    if !null {
        out.maybe("description", description);
        return out.build();
    }
    let mut nullable = ObjectBuilder::new();
    nullable
        .set("type", Json::text("nullable"))
        .set("inner", out.build());
    nullable.build()
}

/// An object shape for a schema without `type`: its object keywords bind objects only, so
/// every other kind of value is accepted beside it.
fn or_any_other_kind(object: JsonRef) -> JsonRef {
    let kind = |name: &str| {
        let mut out = ObjectBuilder::new();
        out.set("type", Json::text(name));
        out.build()
    };
    let mut array = ObjectBuilder::new();
    array
        .set("type", Json::text("array"))
        .set("items", raw(None));
    let variants = vec![
        object,
        kind("string"),
        kind("number"),
        kind("boolean"),
        kind("null"),
        array.build(),
    ];
    let mut out = ObjectBuilder::new();
    out.set("type", Json::text("union"))
        .set("variants", Arc::new(Json::Array(variants)));
    out.build()
}
