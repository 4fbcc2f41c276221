//! Shape declarations: the validated, owned form of a shape graph (spec §4).

pub mod builder;
pub mod fields;
pub mod from_schema;
pub mod gate;
mod measure;
mod observe;
pub mod raw;
pub mod render;
mod slots;

use crate::json::{JsonRef, Num};
use crate::pattern::Pattern;

/// The index of a node in a [`Declaration`]; the root is `0`.
pub type Id = usize;

/// A literal member: a string, a number or a boolean.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Str(Box<[u8]>),
    Num(Num),
    Bool(bool),
}

impl Lit {
    /// SameValueZero: `-0` equals `0`, and NaN equals NaN.
    pub fn same(&self, other: &Lit) -> bool {
        match (self, other) {
            (Lit::Str(a), Lit::Str(b)) => a == b,
            (Lit::Bool(a), Lit::Bool(b)) => a == b,
            (Lit::Num(a), Lit::Num(b)) => {
                let (a, b) = (a.value(), b.value());
                a == b || (a.is_nan() && b.is_nan())
            }
            _ => false,
        }
    }
}

/// The `additionalProperties` slot of an object shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Additional {
    Absent,
    Bool(bool),
    Shape(Id),
}

/// The `mode` of a union.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    AnyOf,
    OneOf,
}

/// One validated shape node. `description` is WTF-8 text.
#[derive(Clone, Debug)]
pub enum Decl {
    String {
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<Pattern>,
        description: Option<Box<[u8]>>,
    },
    Number {
        min: Option<Num>,
        max: Option<Num>,
        integer: Option<bool>,
        description: Option<Box<[u8]>>,
    },
    Boolean {
        description: Option<Box<[u8]>>,
    },
    Null {
        description: Option<Box<[u8]>>,
    },
    Json {
        description: Option<Box<[u8]>>,
    },
    Literal {
        values: Vec<Lit>,
        description: Option<Box<[u8]>>,
    },
    Array {
        items: Id,
        min: Option<u64>,
        max: Option<u64>,
        description: Option<Box<[u8]>>,
    },
    Object {
        properties: Vec<(Box<[u8]>, Id)>,
        additional: Additional,
        description: Option<Box<[u8]>>,
    },
    Union {
        variants: Vec<Id>,
        mode: Option<Mode>,
        description: Option<Box<[u8]>>,
    },
    Optional {
        inner: Id,
    },
    Nullable {
        inner: Id,
    },
    Raw {
        schema: JsonRef,
    },
}

impl Decl {
    /// The child ids of this node, in slot order.
    pub fn children(&self) -> Vec<Id> {
        match self {
            Decl::Array { items, .. } => vec![*items],
            Decl::Object {
                properties,
                additional,
                ..
            } => {
                let mut ids: Vec<Id> = properties.iter().map(|(_, id)| *id).collect();
                if let Additional::Shape(id) = additional {
                    ids.push(*id);
                }
                ids
            }
            Decl::Union { variants, .. } => variants.clone(),
            Decl::Optional { inner } | Decl::Nullable { inner } => vec![*inner],
            _ => Vec::new(),
        }
    }

    /// Rewrites child ids through `map`.
    pub fn remap(&mut self, map: impl Fn(Id) -> Id) {
        match self {
            Decl::Array { items, .. } => *items = map(*items),
            Decl::Object {
                properties,
                additional,
                ..
            } => {
                for (_, id) in properties.iter_mut() {
                    *id = map(*id);
                }
                if let Additional::Shape(id) = additional {
                    *id = map(*id);
                }
            }
            Decl::Union { variants, .. } => {
                for id in variants.iter_mut() {
                    *id = map(*id);
                }
            }
            Decl::Optional { inner } | Decl::Nullable { inner } => *inner = map(*inner),
            _ => {}
        }
    }
}

/// A validated shape graph; node `0` is the root. Shared children stay shared.
#[derive(Clone, Debug)]
pub struct Declaration {
    pub nodes: Vec<Decl>,
}

/// The fault/context kind of a node: optional and nullable take their inner kind.
pub fn kind_of(nodes: &[Decl], mut id: Id) -> &'static str {
    loop {
        return match &nodes[id] {
            Decl::String { .. } => "string",
            Decl::Number { integer, .. } => {
                if *integer == Some(true) {
                    "integer"
                } else {
                    "number"
                }
            }
            Decl::Boolean { .. } => "boolean",
            Decl::Null { .. } => "null",
            Decl::Literal { .. } => "literal",
            Decl::Array { .. } => "array",
            Decl::Object { .. } => "object",
            Decl::Union { .. } => "union",
            Decl::Json { .. } | Decl::Raw { .. } => "json",
            Decl::Optional { inner } | Decl::Nullable { inner } => {
                id = *inner;
                continue;
            }
        };
    }
}
