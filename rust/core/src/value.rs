//! A read-only view of a JSON-like value, so every contract door walks serde values in
//! tests and live Python objects in the binding with the same code.

use std::borrow::Cow;
use std::ops::ControlFlow;

/// What a value is, as far as the contract cares.
#[derive(Debug)]
#[repr(u8)]
pub enum View<'a> {
    Null,
    Bool(bool),
    /// An integer that fits 64 bits.
    Int(i64),
    /// A double; integers beyond 64 bits arrive here as their nearest double.
    Float(f64),
    /// A string as WTF-8 bytes (lone surrogates survive as three-byte sequences).
    Str(Cow<'a, [u8]>),
    Array,
    Object,
    /// Anything else, with the name a fault's `received` gives it: `"function"` for a callable,
    /// else its type's name (the binding's `"tuple"`, `"mappingproxy"`…, or `"object"`).
    Other(&'static str),
}

impl View<'_> {
    /// The value as a double when it is a number.
    pub fn number(&self) -> Option<f64> {
        match *self {
            View::Int(i) => Some(i as f64),
            View::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The value as a finite double when it is a finite number.
    pub fn finite(&self) -> Option<f64> {
        self.number().filter(|n| n.is_finite())
    }
}

/// The type of a value, read without touching its contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    Str,
    Array,
    Object,
    Other,
}

impl Kind {
    /// The kind of a classified value.
    pub fn of(view: &View<'_>) -> Kind {
        match view {
            View::Null => Kind::Null,
            View::Bool(_) => Kind::Bool,
            View::Int(_) | View::Float(_) => Kind::Number,
            View::Str(_) => Kind::Str,
            View::Array => Kind::Array,
            View::Object => Kind::Object,
            View::Other(_) => Kind::Other,
        }
    }
}

/// A read the value refused (a container that changed while it was read, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreadable;

/// Why an object's entries could not be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntriesError {
    /// The object is not a plain record (a key that is not a string, say).
    NotRecord,
    /// The read failed.
    Unreadable,
}

/// One key of a record while it is visited: the key node, its identity and its value; its
/// text is read when asked for (a key found by identity needs none).
pub struct Entry<'e, N: Node> {
    pub key: &'e N::Key,
    /// The key's identity where keys are shared objects (an address), 0 otherwise; see
    /// [`crate::contract::Contract::bind_keys`].
    pub id: usize,
    pub value: &'e N,
}

impl<'e, N: Node> Entry<'e, N> {
    /// The key's text.
    #[inline(always)]
    pub fn text(&self) -> Cow<'e, [u8]> {
        N::key_text(self.key)
    }
}

/// A read-only JSON-like value: null, boolean, number, string, array, record or other.
pub trait Node: Sized + Clone {
    /// The representation of a record key (kept so parse output can reuse it).
    type Key: Clone;

    /// Classifies the value.
    fn view(&self) -> View<'_>;

    /// The text of a record key.
    fn key_text(key: &Self::Key) -> Cow<'_, [u8]>;

    /// The value's kind; cheaper than [`Node::view`] where contents are not needed.
    fn kind(&self) -> Kind {
        Kind::of(&self.view())
    }

    /// The value as a finite double when it is a finite number; cheaper than
    /// [`Node::view`] where a node type can read numbers directly.
    fn finite(&self) -> Option<f64> {
        self.view().finite()
    }

    /// A stable identity for cycle detection (an address).
    fn identity(&self) -> usize;

    /// The length of a string value in code points.
    fn char_len(&self) -> usize {
        match self.view() {
            View::Str(text) => crate::text::char_len(&text),
            _ => 0,
        }
    }

    /// The length of an array value.
    fn len(&self) -> Result<usize, Unreadable>;

    /// Whether an array value is empty.
    fn is_empty(&self) -> Result<bool, Unreadable> {
        self.len().map(|n| n == 0)
    }

    /// One element of an array value.
    fn item(&self, index: usize) -> Result<Self, Unreadable>;

    /// How many entries a record value has, as a capacity hint (0 when unknown).
    fn entry_count(&self) -> usize {
        0
    }

    /// Visits the own string keys of a record in storage order until `visit` breaks.
    fn entries<F>(&self, visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(Entry<'_, Self>) -> ControlFlow<()>;

    /// Visits the values of a record (its keys must still all be strings).
    fn values<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(&Self) -> ControlFlow<()>,
    {
        self.entries(|entry| visit(entry.value))
    }
}
