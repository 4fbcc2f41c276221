//! A compiled contract (spec §5): one shape compiled once into a strict guard, a coercing
//! parser, a coercive fault report and a JSON Schema.

mod explain;
pub mod fault;
mod guard;
pub mod jsonvalue;
mod keys;
mod parse;
mod schema;
mod slots;

pub use fault::{Fault, FaultLimit, Path, Reason, Segment};
pub use parse::{coerce_boolean, coerce_number, coerce_string, Sink};
use slots::{Extras, Filled, Slots};

use crate::json::JsonRef;
use crate::pattern::Pattern;
use crate::shape::{kind_of, Additional, Decl, Declaration, Id, Mode};
use crate::text::keys::js_order;

struct Prop {
    name: std::sync::Arc<[u8]>,
    /// The identity of a key object known to hold `name` (0 when none is bound).
    id: usize,
    shape: Id,
    optional: bool,
    kind: &'static str,
}

enum Tail {
    Closed,
    Open,
    Shape(Id),
}

// A plain tag byte: every walk dispatches on the node's kind first, and a niche-packed tag
// would be decoded from a field's value at each step.
#[repr(u8)]
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

    /// Binds each declared property name to the identity of a key object that holds that
    /// text (`identity(name)`, 0 for none), so a record key that is that very object is
    /// found without reading its text. The caller keeps those objects alive, unchanged, for
    /// as long as the contract is used, so no other key can have their identities.
    /// String members of literal shapes are bound the same way, so a value that is that
    /// very object is a member without a lookup.
    pub fn bind_keys(&mut self, mut identity: impl FnMut(&[u8]) -> usize) {
        for node in &mut self.nodes {
            match node {
                Compiled::Object { props, .. } => {
                    for prop in props.iter_mut() {
                        prop.id = identity(&prop.name);
                    }
                }
                Compiled::Literal(members) => members.bind(&mut identity),
                _ => {}
            }
        }
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
                        name: std::sync::Arc::from(&**name),
                        id: 0,
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

impl Contract {
    /// Whether a shape is a leaf: its strict guard passing means its report is empty.
    fn is_leaf(&self, id: Id) -> bool {
        matches!(
            self.nodes[id],
            Compiled::String { .. }
                | Compiled::Number { .. }
                | Compiled::Boolean
                | Compiled::Null
                | Compiled::Json
                | Compiled::Raw
                | Compiled::Literal(_)
        )
    }
}

/// Finds a declared property by key text, trying position `hint` first: keys mostly come
/// in declaration order, so the property after the last one found is the likely one.
/// A key that is the bound key object of the expected property (keys written in Python
/// source, in declaration order) is found by one comparison, inline; others by their text.
#[inline(always)]
fn find_near<N: crate::value::Node>(
    props: &[Prop],
    index: &keys::KeyIndex,
    entry: &crate::value::Entry<'_, N>,
    hint: usize,
) -> Option<usize> {
    let id = entry.id;
    if id != 0 && props.get(hint).is_some_and(|prop| prop.id == id) {
        return Some(hint);
    }
    // A record declares no property: every key is an extra.
    if props.is_empty() {
        return None;
    }
    find_text(props, index, &entry.text(), hint)
}

/// [`find_near`] by key text.
#[inline(never)]
fn find_text(props: &[Prop], index: &keys::KeyIndex, key: &[u8], hint: usize) -> Option<usize> {
    let same = |at: usize| keys::same_bytes(&props[at].name, key);
    if index.is_at(hint, key, same) {
        return Some(hint);
    }
    index.find(key, same)
}
