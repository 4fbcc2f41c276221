//! Faults: the entries of an `explain` report (spec §6).

use std::sync::Arc;

use crate::json::Num;
pub use crate::text::preview::Received;

/// One segment of a fault path: a record key or an array index.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// Shared, so that a fault under a declared property does not copy its name.
    Key(Arc<[u8]>),
    Index(usize),
}

impl Segment {
    /// The segment as text (indices in decimal).
    pub fn text(&self) -> Vec<u8> {
        match self {
            Segment::Key(key) => key.to_vec(),
            Segment::Index(index) => index.to_string().into_bytes(),
        }
    }
}

/// Why a value failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Type,
    Missing,
    Constraint,
    Variant,
    OneOf,
}

impl Reason {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Type => "type",
            Reason::Missing => "missing",
            Reason::Constraint => "constraint",
            Reason::Variant => "variant",
            Reason::OneOf => "oneOf",
        }
    }
}

/// The `limit` of a constraint fault.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultLimit {
    Number(Num),
    Text(Arc<[u8]>),
}

/// One fault; absent fields are omitted on the wire, in the order of the fields here.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub reason: Reason,
    pub path: Vec<Segment>,
    pub expected: Option<&'static str>,
    pub constraint: Option<&'static str>,
    pub limit: Option<FaultLimit>,
    pub received: Option<Received>,
    /// `variants` of a variant fault, `matched` of a oneOf fault.
    pub count: Option<usize>,
}

impl Fault {
    /// A fault with only a reason and a path.
    pub fn at(reason: Reason, path: Vec<Segment>) -> Fault {
        Fault {
            reason,
            path,
            expected: None,
            constraint: None,
            limit: None,
            received: None,
            count: None,
        }
    }
}
