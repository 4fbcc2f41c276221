//! The raw-schema vocabulary gate (spec §4.3) and the owned clone of a raw schema.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::fields::{field, fields_of, literal_of};
use super::Lit;
use crate::constants::{CLONE_NODE_LIMIT, COMPILE_DEPTH_LIMIT};
use crate::json::{Json, JsonRef, Num};
use crate::pattern::PatternError;
use crate::text::number::is_safe_integer;
use crate::value::{Node, View};

const KEYWORDS: [&str; 17] = [
    "type",
    "description",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
];

/// Annotation keywords: kept verbatim (any JSON value), asserting nothing. So are `x-` keys.
const ANNOTATIONS: [&str; 11] = [
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
    "contentMediaType",
];

fn is_annotation(key: &[u8]) -> bool {
    key.starts_with(b"x-") || ANNOTATIONS.iter().any(|k| k.as_bytes() == key)
}

/// An annotation's value as an owned JSON tree; `None` when it is not JSON data, nests deeper
/// than the compilation depth limit, or has more than `CLONE_NODE_LIMIT` nodes (shared
/// children count each time they appear).
fn annotation_json<N: Node>(value: &N) -> Option<JsonRef> {
    fn walk<N: Node>(value: &N, depth: usize, budget: &mut usize) -> Option<JsonRef> {
        *budget = budget.checked_sub(1)?;
        if depth > COMPILE_DEPTH_LIMIT {
            return None;
        }
        crate::stack::grow(|| step(value, depth, budget))
    }
    fn step<N: Node>(value: &N, depth: usize, budget: &mut usize) -> Option<JsonRef> {
        Some(match value.view() {
            View::Null => Arc::new(Json::Null),
            View::Float(f) if !f.is_finite() => return None,
            View::Bool(_) | View::Int(_) | View::Float(_) | View::Str(_) => scalar_json(value),
            View::Array => Arc::new(Json::Array(
                items_of(value)?
                    .iter()
                    .map(|item| walk(item, depth + 1, budget))
                    .collect::<Option<_>>()?,
            )),
            View::Object => Arc::new(Json::Object(
                fields_of(value)?
                    .into_iter()
                    .map(|(key, item)| Some((key, walk(&item, depth + 1, budget)?)))
                    .collect::<Option<_>>()?,
            )),
            View::Other(_) => return None,
        })
    }
    let mut budget = CLONE_NODE_LIMIT;
    walk(value, 0, &mut budget)
}

/// A JSON scalar as an owned node; containers and other values become `null`.
pub fn scalar_json<N: Node>(value: &N) -> JsonRef {
    Arc::new(match value.view() {
        View::Bool(b) => Json::Bool(b),
        View::Int(i) => Json::Number(Num::Int(i)),
        View::Float(f) => Json::Number(Num::Float(f)),
        View::Str(text) => Json::String(text.into_owned().into_boxed_slice()),
        _ => Json::Null,
    })
}

/// Validates raw schemas and clones them, memoizing each record by identity so a shared
/// record costs one visit.
pub struct RawInspector {
    memo: HashMap<usize, (usize, JsonRef)>,
}

type Fields<N> = Vec<(Box<[u8]>, N)>;

enum Step<N> {
    Enter(N),
    Exit(N, Fields<N>),
}

impl Default for RawInspector {
    fn default() -> Self {
        Self::new()
    }
}

impl RawInspector {
    /// An inspector with an empty memo.
    pub fn new() -> Self {
        RawInspector {
            memo: HashMap::new(),
        }
    }

    /// Checks a raw schema; returns its height and its clone, or the refusal message.
    pub fn inspect<N: Node>(&mut self, schema: &N) -> Result<(usize, JsonRef), String> {
        if fields_of(schema).is_none() {
            return Err("raw schema must be a plain record".to_owned());
        }
        let mut active: HashSet<usize> = HashSet::new();
        let mut stack = vec![Step::Enter(schema.clone())];
        while let Some(step) = stack.pop() {
            match step {
                Step::Exit(node, fields) => {
                    active.remove(&node.identity());
                    let settled = self.settle(&fields);
                    self.memo.insert(node.identity(), settled);
                }
                Step::Enter(node) => {
                    let Some(fields) = fields_of(&node) else {
                        return Err("every raw schema child must be a plain record".to_owned());
                    };
                    let identity = node.identity();
                    if active.contains(&identity) {
                        return Err("a raw schema may not contain a cycle".to_owned());
                    }
                    if self.memo.contains_key(&identity) {
                        continue;
                    }
                    if active.len() > COMPILE_DEPTH_LIMIT {
                        return Err("raw schema exceeds the compilation depth limit".to_owned());
                    }
                    let nested = check_record(&fields)?;
                    active.insert(identity);
                    stack.push(Step::Exit(node, fields));
                    stack.extend(nested.into_iter().rev().map(Step::Enter));
                }
            }
        }
        self.memo
            .get(&schema.identity())
            .cloned()
            .ok_or_else(|| "raw schema could not be read".to_owned())
    }

    fn child<N: Node>(&self, node: &N) -> (usize, JsonRef) {
        self.memo
            .get(&node.identity())
            .cloned()
            .unwrap_or_else(|| (0, Arc::new(Json::Null)))
    }

    /// The height and clone of a record whose nested schemas are all settled.
    fn settle<N: Node>(&self, fields: &Fields<N>) -> (usize, JsonRef) {
        let mut height = 0;
        let mut entries = Vec::with_capacity(fields.len());
        let nested = |node: &N, height: &mut usize| {
            let (h, json) = self.child(node);
            *height = (*height).max(h + 1);
            json
        };
        for (key, value) in fields {
            let json = match &**key {
                b"items" => nested(value, &mut height),
                b"additionalProperties" if !matches!(value.view(), View::Bool(_)) => {
                    nested(value, &mut height)
                }
                b"properties" => {
                    let properties = fields_of(value).unwrap_or_default();
                    let map = properties
                        .iter()
                        .map(|(name, child)| (name.clone(), nested(child, &mut height)))
                        .collect();
                    Arc::new(Json::Object(map))
                }
                b"anyOf" | b"oneOf" => {
                    let list = items_of(value).unwrap_or_default();
                    Arc::new(Json::Array(
                        list.iter().map(|v| nested(v, &mut height)).collect(),
                    ))
                }
                key if is_annotation(key) => {
                    annotation_json(value).unwrap_or_else(|| Arc::new(Json::Null))
                }
                b"enum" | b"required" => {
                    let list = items_of(value).unwrap_or_default();
                    Arc::new(Json::Array(list.iter().map(scalar_json).collect()))
                }
                _ => scalar_json(value),
            };
            entries.push((key.clone(), json));
        }
        (height, Arc::new(Json::Object(entries)))
    }
}

/// The elements of an array value.
pub fn items_of<N: Node>(value: &N) -> Option<Vec<N>> {
    if !matches!(value.view(), View::Array) {
        return None;
    }
    let len = value.len().ok()?;
    (0..len).map(|i| value.item(i).ok()).collect()
}

fn is_string<N: Node>(value: Option<&N>) -> bool {
    value.is_none_or(|v| matches!(v.view(), View::Str(_)))
}

/// Checks one record's keywords; returns its nested schemas in slot order.
fn check_record<N: Node>(fields: &Fields<N>) -> Result<Vec<N>, String> {
    let refuse = |message: &str| Err(message.to_owned());
    for (key, value) in fields {
        if is_annotation(key) {
            if annotation_json(value).is_none() {
                return refuse(
                    "raw schema annotations must be JSON data within the compilation depth and clone node limits",
                );
            }
        } else if !KEYWORDS.iter().any(|k| k.as_bytes() == &**key) {
            return refuse("raw schema contains an unsupported keyword");
        }
    }
    if let Some(kind) = field(fields, "type") {
        let known = match kind.view() {
            View::Str(text) => crate::constants::JSON_SCHEMA_TYPES
                .iter()
                .any(|t| t.as_bytes() == &*text),
            _ => false,
        };
        if !known {
            return refuse("raw schema type is outside the supported vocabulary");
        }
    }
    if !is_string(field(fields, "description")) {
        return refuse("raw schema description must be a string");
    }
    if !is_string(field(fields, "format")) {
        return refuse("raw schema format must be a string");
    }
    if let Some(pattern) = field(fields, "pattern") {
        let View::Str(source) = pattern.view() else {
            return refuse("raw schema pattern must be a string");
        };
        if let Err(PatternError::Invalid(_)) = crate::pattern::translate(&source) {
            return refuse("raw schema pattern must be valid");
        }
    }
    for name in ["minLength", "maxLength", "minItems", "maxItems"] {
        if let Some(value) = field(fields, name) {
            if !value
                .view()
                .number()
                .is_some_and(|n| is_safe_integer(n) && n >= 0.0)
            {
                return refuse("raw schema length bounds must be non-negative safe integers");
            }
        }
    }
    for name in ["minimum", "maximum"] {
        if let Some(value) = field(fields, name) {
            if value.view().finite().is_none() {
                return refuse("raw schema numeric bounds must be finite numbers");
            }
        }
    }
    if let Some(population) = field(fields, "enum") {
        let Some(list) = items_of(population).filter(|l| !l.is_empty()) else {
            return refuse("raw schema enum must be a non-empty array");
        };
        let mut seen: Vec<Lit> = Vec::new();
        for value in &list {
            let member = literal_of(value).filter(|lit| match lit {
                Lit::Num(n) => n.value().is_finite(),
                _ => true,
            });
            match member {
                Some(lit) if !seen.iter().any(|s| s.same(&lit)) => seen.push(lit),
                _ => return refuse("raw schema enum values must be finite unique primitives"),
            }
        }
    }
    if let Some(names) = field(fields, "required") {
        let Some(list) = items_of(names) else {
            return refuse("raw schema required must be an array");
        };
        let mut seen: Vec<Vec<u8>> = Vec::new();
        for value in &list {
            match value.view() {
                View::Str(text) if !seen.iter().any(|s| s[..] == text[..]) => {
                    seen.push(text.to_vec())
                }
                _ => return refuse("raw schema required values must be unique strings"),
            }
        }
    }
    let mut nested = Vec::new();
    nested.extend(field(fields, "items").cloned());
    if let Some(properties) = field(fields, "properties") {
        let Some(map) = fields_of(properties) else {
            return refuse("raw schema properties must be a plain record");
        };
        nested.extend(map.into_iter().map(|(_, v)| v));
    }
    if let Some(extra) = field(fields, "additionalProperties") {
        if !matches!(extra.view(), View::Bool(_)) {
            nested.push(extra.clone());
        }
    }
    for name in ["anyOf", "oneOf"] {
        if let Some(variants) = field(fields, name) {
            match items_of(variants).filter(|l| !l.is_empty()) {
                Some(list) => nested.extend(list),
                None => return refuse("raw schema unions must be non-empty arrays"),
            }
        }
    }
    Ok(nested)
}
