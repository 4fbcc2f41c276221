//! A compiled contract (spec §5): one shape compiled once into a strict guard, a coercing
//! parser, a coercive fault report and a JSON Schema.

mod explain;
pub mod fault;
mod guard;
pub mod jsonvalue;
mod keys;
mod parse;
mod schema;

pub use fault::{Fault, FaultLimit, Reason, Segment};
pub use parse::{coerce_boolean, coerce_number, coerce_string, Sink};

use crate::json::JsonRef;
use crate::pattern::Pattern;
use crate::shape::{kind_of, Additional, Decl, Declaration, Id, Mode};
use crate::text::keys::js_order;

struct Prop {
    name: Box<[u8]>,
    shape: Id,
    optional: bool,
    kind: &'static str,
}

enum Tail {
    Closed,
    Open,
    Shape(Id),
}

enum Compiled {
    String {
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<Pattern>,
    },
    Number {
        min: Option<crate::json::Num>,
        max: Option<crate::json::Num>,
        integer: bool,
    },
    Boolean,
    Null,
    Json,
    Raw,
    Literal(keys::Members),
    Array {
        items: Id,
        min: Option<u64>,
        max: Option<u64>,
    },
    Object {
        props: Vec<Prop>,
        index: keys::KeyIndex,
        required: usize,
        tail: Tail,
    },
    Union {
        variants: Vec<Id>,
        one_of: bool,
    },
    Nullable(Id),
    Optional(Id),
}

/// A shape compiled once; every door is total over readable values.
pub struct Contract {
    declaration: Declaration,
    nodes: Vec<Compiled>,
    kinds: Vec<&'static str>,
    schema: JsonRef,
}

impl Contract {
    /// Compiles a validated declaration.
    pub fn compile(declaration: Declaration) -> Contract {
        let decls = &declaration.nodes;
        let nodes = decls.iter().map(|decl| compile_node(decls, decl)).collect();
        let kinds = (0..decls.len()).map(|id| kind_of(decls, id)).collect();
        let schema = schema::emit(&declaration);
        Contract {
            declaration,
            nodes,
            kinds,
            schema,
        }
    }

    /// The emitted JSON Schema (spec §5.1).
    pub fn schema(&self) -> &JsonRef {
        &self.schema
    }

    /// The declaration this contract was compiled from.
    pub fn declaration(&self) -> &Declaration {
        &self.declaration
    }
}

fn compile_node(decls: &[Decl], decl: &Decl) -> Compiled {
    match decl {
        Decl::String {
            min, max, pattern, ..
        } => Compiled::String {
            min: *min,
            max: *max,
            pattern: pattern.clone(),
        },
        Decl::Number {
            min, max, integer, ..
        } => Compiled::Number {
            min: *min,
            max: *max,
            integer: *integer == Some(true),
        },
        Decl::Boolean { .. } => Compiled::Boolean,
        Decl::Null { .. } => Compiled::Null,
        Decl::Json { .. } => Compiled::Json,
        Decl::Raw { .. } => Compiled::Raw,
        Decl::Literal { values, .. } => Compiled::Literal(keys::Members::new(values)),
        Decl::Array {
            items, min, max, ..
        } => Compiled::Array {
            items: *items,
            min: *min,
            max: *max,
        },
        Decl::Object {
            properties,
            additional,
            ..
        } => {
            let names: Vec<&[u8]> = properties.iter().map(|(name, _)| &**name).collect();
            let props: Vec<Prop> = js_order(&names)
                .into_iter()
                .map(|position| {
                    let (name, id) = &properties[position];
                    let (shape, optional) = match decls[*id] {
                        Decl::Optional { inner } => (inner, true),
                        _ => (*id, false),
                    };
                    Prop {
                        name: name.clone(),
                        shape,
                        optional,
                        kind: kind_of(decls, *id),
                    }
                })
                .collect();
            let required = props.iter().filter(|p| !p.optional).count();
            let tail = match additional {
                Additional::Absent | Additional::Bool(false) => Tail::Closed,
                Additional::Bool(true) => Tail::Open,
                Additional::Shape(id) => Tail::Shape(*id),
            };
            let index = keys::KeyIndex::new(&props.iter().map(|p| &*p.name).collect::<Vec<_>>());
            Compiled::Object {
                props,
                index,
                required,
                tail,
            }
        }
        Decl::Union { variants, mode, .. } => Compiled::Union {
            variants: variants.clone(),
            one_of: *mode == Some(Mode::OneOf),
        },
        Decl::Nullable { inner } => Compiled::Nullable(*inner),
        Decl::Optional { inner } => Compiled::Optional(*inner),
    }
}

/// Finds a declared property by key text, trying position `hint` first: keys mostly come
/// in declaration order, so the property after the last one found is the likely one.
#[inline]
fn find_near(props: &[Prop], index: &keys::KeyIndex, key: &[u8], hint: usize) -> Option<usize> {
    let same = |at: usize| keys::same_bytes(&props[at].name, key);
    if index.is_at(hint, key, same) {
        return Some(hint);
    }
    index.find(key, same)
}

/// Finds a declared property by key text.
#[inline]
fn find(props: &[Prop], index: &keys::KeyIndex, key: &[u8]) -> Option<usize> {
    index.find(key, |at| keys::same_bytes(&props[at].name, key))
}
