//! JSON Schema emission (spec §5.1), with shared nodes emitted once.

use std::sync::Arc;

use crate::json::{Json, JsonRef, ObjectBuilder};
use crate::shape::render::{length_json, lit_json, num_json, text_json};
use crate::shape::{Additional, Decl, Declaration, Id, Mode};
use crate::text::keys::js_order;

/// Emits the JSON Schema of a declaration.
pub fn emit(declaration: &Declaration) -> JsonRef {
    let mut memo: Vec<Option<JsonRef>> = vec![None; declaration.nodes.len()];
    emit_node(&declaration.nodes, 0, &mut memo)
}

fn type_only(kind: &str) -> ObjectBuilder {
    let mut out = ObjectBuilder::new();
    out.set("type", Json::text(kind));
    out
}

fn emit_node(nodes: &[Decl], id: Id, memo: &mut Vec<Option<JsonRef>>) -> JsonRef {
    crate::stack::grow(|| emit_body(nodes, id, memo))
}

fn emit_body(nodes: &[Decl], id: Id, memo: &mut Vec<Option<JsonRef>>) -> JsonRef {
    if let Some(done) = &memo[id] {
        return done.clone();
    }
    let done = match &nodes[id] {
        Decl::String {
            min,
            max,
            pattern,
            description,
        } => {
            let mut out = type_only("string");
            out.maybe("minLength", min.map(length_json))
                .maybe("maxLength", max.map(length_json))
                .maybe("pattern", pattern.as_ref().map(|p| Json::text(&p.source)))
                .maybe("description", text_json(description));
            out.build()
        }
        Decl::Number {
            min,
            max,
            integer,
            description,
        } => {
            let mut out = type_only(if *integer == Some(true) {
                "integer"
            } else {
                "number"
            });
            out.maybe("minimum", min.map(num_json))
                .maybe("maximum", max.map(num_json))
                .maybe("description", text_json(description));
            out.build()
        }
        Decl::Boolean { description } => {
            let mut out = type_only("boolean");
            out.maybe("description", text_json(description));
            out.build()
        }
        Decl::Null { description } => {
            let mut out = type_only("null");
            out.maybe("description", text_json(description));
            out.build()
        }
        Decl::Json { description } => {
            let mut out = ObjectBuilder::new();
            out.maybe("description", text_json(description));
            out.build()
        }
        Decl::Literal {
            values,
            description,
        } => {
            let mut out = ObjectBuilder::new();
            out.set(
                "enum",
                Arc::new(Json::Array(values.iter().map(lit_json).collect())),
            )
            .maybe("description", text_json(description));
            out.build()
        }
        Decl::Array {
            items,
            min,
            max,
            description,
        } => {
            let items = emit_node(nodes, *items, memo);
            let mut out = type_only("array");
            out.set("items", items)
                .maybe("minItems", min.map(length_json))
                .maybe("maxItems", max.map(length_json))
                .maybe("description", text_json(description));
            out.build()
        }
        Decl::Object {
            properties,
            additional,
            description,
        } => {
            let names: Vec<&[u8]> = properties.iter().map(|(name, _)| &**name).collect();
            let mut map = ObjectBuilder::new();
            let mut required = Vec::new();
            let mut any = false;
            for position in js_order(&names) {
                let (name, child) = &properties[position];
                let (inner, optional) = match nodes[*child] {
                    Decl::Optional { inner } => (inner, true),
                    _ => (*child, false),
                };
                map.set(name, emit_node(nodes, inner, memo));
                any = true;
                if !optional {
                    required.push(Json::text(name));
                }
            }
            let mut out = type_only("object");
            if any {
                out.set("properties", map.build());
            }
            if !required.is_empty() {
                out.set("required", Arc::new(Json::Array(required)));
            }
            let extra = match additional {
                Additional::Absent | Additional::Bool(false) => Arc::new(Json::Bool(false)),
                Additional::Bool(true) => Arc::new(Json::Bool(true)),
                Additional::Shape(id) => emit_node(nodes, *id, memo),
            };
            out.set("additionalProperties", extra)
                .maybe("description", text_json(description));
            out.build()
        }
        Decl::Union {
            variants,
            mode,
            description,
        } => {
            let list = variants
                .iter()
                .map(|v| emit_node(nodes, *v, memo))
                .collect();
            let key = if *mode == Some(Mode::OneOf) {
                "oneOf"
            } else {
                "anyOf"
            };
            let mut out = ObjectBuilder::new();
            out.set(key, Arc::new(Json::Array(list)))
                .maybe("description", text_json(description));
            out.build()
        }
        Decl::Nullable { inner } => {
            let inner = emit_node(nodes, *inner, memo);
            let mut out = ObjectBuilder::new();
            out.set(
                "anyOf",
                Arc::new(Json::Array(vec![inner, type_only("null").build()])),
            );
            out.build()
        }
        Decl::Optional { inner } => emit_node(nodes, *inner, memo),
        Decl::Raw { schema } => schema.clone(),
    };
    memo[id] = Some(done.clone());
    done
}
