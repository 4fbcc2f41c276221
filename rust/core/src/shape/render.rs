//! Renders a declaration back into plain shape data (the builders' output form).

use std::sync::Arc;

use super::{Additional, Decl, Declaration, Id, Lit, Mode};
use crate::json::{Json, JsonRef, Num, ObjectBuilder};

/// A literal member as JSON.
pub fn lit_json(value: &Lit) -> JsonRef {
    Arc::new(match value {
        Lit::Str(text) => Json::String(text.clone()),
        Lit::Num(n) => Json::Number(*n),
        Lit::Bool(b) => Json::Bool(*b),
    })
}

/// A number as JSON.
pub fn num_json(value: Num) -> JsonRef {
    Arc::new(Json::Number(value))
}

/// A length bound as JSON.
pub fn length_json(value: u64) -> JsonRef {
    Json::int(i64::try_from(value).unwrap_or(i64::MAX))
}

/// A description as JSON.
pub fn text_json(value: &Option<Box<[u8]>>) -> Option<JsonRef> {
    value.as_ref().map(Json::text)
}

/// Renders the whole declaration; a node shared by two slots is rendered once.
pub fn render(declaration: &Declaration) -> JsonRef {
    let mut memo: Vec<Option<JsonRef>> = vec![None; declaration.nodes.len()];
    render_node(declaration, 0, &mut memo)
}

fn render_node(declaration: &Declaration, id: Id, memo: &mut Vec<Option<JsonRef>>) -> JsonRef {
    crate::stack::grow(|| render_body(declaration, id, memo))
}

fn render_body(declaration: &Declaration, id: Id, memo: &mut Vec<Option<JsonRef>>) -> JsonRef {
    if let Some(done) = &memo[id] {
        return done.clone();
    }
    let mut out = ObjectBuilder::new();
    let child = |id: Id, memo: &mut Vec<Option<JsonRef>>| render_node(declaration, id, memo);
    match &declaration.nodes[id] {
        Decl::String {
            min,
            max,
            pattern,
            description,
        } => {
            out.set("type", Json::text("string"))
                .maybe("min", min.map(length_json))
                .maybe("max", max.map(length_json))
                .maybe("pattern", pattern.as_ref().map(|p| Json::text(&p.source)))
                .maybe("description", text_json(description));
        }
        Decl::Number {
            min,
            max,
            integer,
            description,
        } => {
            out.set("type", Json::text("number"))
                .maybe("min", min.map(num_json))
                .maybe("max", max.map(num_json))
                .maybe("integer", integer.map(|b| Arc::new(Json::Bool(b))))
                .maybe("description", text_json(description));
        }
        Decl::Boolean { description } | Decl::Null { description } | Decl::Json { description } => {
            let kind = match &declaration.nodes[id] {
                Decl::Boolean { .. } => "boolean",
                Decl::Null { .. } => "null",
                _ => "json",
            };
            out.set("type", Json::text(kind))
                .maybe("description", text_json(description));
        }
        Decl::Literal {
            values,
            description,
        } => {
            out.set("type", Json::text("literal"))
                .set(
                    "values",
                    Arc::new(Json::Array(values.iter().map(lit_json).collect())),
                )
                .maybe("description", text_json(description));
        }
        Decl::Array {
            items,
            min,
            max,
            description,
        } => {
            let items = child(*items, memo);
            out.set("type", Json::text("array"))
                .set("items", items)
                .maybe("min", min.map(length_json))
                .maybe("max", max.map(length_json))
                .maybe("description", text_json(description));
        }
        Decl::Object {
            properties,
            additional,
            description,
        } => {
            let mut map = ObjectBuilder::new();
            for (name, id) in properties {
                map.set(name, child(*id, memo));
            }
            out.set("type", Json::text("object"))
                .set("properties", map.build());
            match additional {
                Additional::Absent => {}
                Additional::Bool(b) => {
                    out.set("additionalProperties", Arc::new(Json::Bool(*b)));
                }
                Additional::Shape(id) => {
                    out.set("additionalProperties", child(*id, memo));
                }
            }
            out.maybe("description", text_json(description));
        }
        Decl::Union {
            variants,
            mode,
            description,
        } => {
            let list = variants.iter().map(|id| child(*id, memo)).collect();
            out.set("type", Json::text("union"))
                .set("variants", Arc::new(Json::Array(list)))
                .maybe(
                    "mode",
                    mode.map(|m| Json::text(if m == Mode::OneOf { "oneOf" } else { "anyOf" })),
                )
                .maybe("description", text_json(description));
        }
        Decl::Optional { inner } | Decl::Nullable { inner } => {
            let kind = if matches!(declaration.nodes[id], Decl::Optional { .. }) {
                "optional"
            } else {
                "nullable"
            };
            let inner = child(*inner, memo);
            out.set("type", Json::text(kind)).set("inner", inner);
        }
        Decl::Raw { schema } => {
            out.set("type", Json::text("raw"))
                .set("schema", schema.clone());
        }
    }
    let done = out.build();
    memo[id] = Some(done.clone());
    done
}
