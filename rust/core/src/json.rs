//! Owned JSON documents produced by the core (schemas, shapes, clones). Children are
//! reference-counted so a shared subtree is stored, and later emitted, once.

use std::sync::Arc;

/// A JSON number that remembers whether it came from an integer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    /// The number as a double, as JavaScript sees it.
    pub fn value(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// A shared JSON node.
pub type JsonRef = Arc<Json>;

/// One JSON value. Strings and keys are WTF-8 bytes; objects keep their key order.
#[derive(Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(Num),
    String(Box<[u8]>),
    Array(Vec<JsonRef>),
    Object(Vec<(Box<[u8]>, JsonRef)>),
}

impl Json {
    /// A string node.
    pub fn text(value: impl AsRef<[u8]>) -> JsonRef {
        Arc::new(Json::String(value.as_ref().into()))
    }

    /// An integer node.
    pub fn int(value: i64) -> JsonRef {
        Arc::new(Json::Number(Num::Int(value)))
    }

    /// The value under `key` when this is an object.
    pub fn get(&self, key: &str) -> Option<&JsonRef> {
        match self {
            Json::Object(entries) => entries
                .iter()
                .find(|(k, _)| &**k == key.as_bytes())
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Builds a JSON object, one key at a time, in insertion order.
#[derive(Default)]
pub struct ObjectBuilder(Vec<(Box<[u8]>, JsonRef)>);

impl ObjectBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        ObjectBuilder(Vec::new())
    }

    /// Appends a key.
    pub fn set(&mut self, key: impl AsRef<[u8]>, value: JsonRef) -> &mut Self {
        self.0.push((key.as_ref().into(), value));
        self
    }

    /// Appends a key when the value is present.
    pub fn maybe(&mut self, key: &str, value: Option<JsonRef>) -> &mut Self {
        if let Some(value) = value {
            self.set(key, value);
        }
        self
    }

    /// The finished object.
    pub fn build(self) -> JsonRef {
        Arc::new(Json::Object(self.0))
    }
}

impl Drop for Json {
    // A deep document must not be dropped recursively: children are detached onto a stack.
    fn drop(&mut self) {
        let mut stack: Vec<JsonRef> = Vec::new();
        detach(self, &mut stack);
        while let Some(node) = stack.pop() {
            if let Some(mut inner) = Arc::into_inner(node) {
                detach(&mut inner, &mut stack);
            }
        }
    }
}

fn detach(node: &mut Json, stack: &mut Vec<JsonRef>) {
    match node {
        Json::Array(items) => stack.append(items),
        Json::Object(entries) => stack.extend(entries.drain(..).map(|(_, v)| v)),
        _ => {}
    }
}
