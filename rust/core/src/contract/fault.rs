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

/// Paths at most this deep are held in the fault itself.
const SHORT: usize = 4;

/// A fault path: up to [`SHORT`] segments held inline, so that the usual fault allocates
/// nothing for its path; read as a slice of segments.
#[derive(Clone)]
pub enum Path {
    /// The first `len` segments; the rest are `Index(0)` fillers, never read.
    Short(u8, [Segment; SHORT]),
    Long(Vec<Segment>),
}

impl Path {
    /// A path of `len` segments, each written by `fill` into the slots it is given in order:
    /// held inline when it fits, unless `long` asks for the heap.
    #[inline]
    pub(crate) fn build(len: usize, long: bool, fill: impl FnOnce(&mut [Segment])) -> Path {
        if len <= SHORT && !long {
            let mut segments = [const { Segment::Index(0) }; SHORT];
            fill(&mut segments[..len]);
            Path::Short(len as u8, segments)
        } else {
            let mut segments = vec![Segment::Index(0); len];
            fill(&mut segments);
            Path::Long(segments)
        }
    }
}

impl std::ops::Deref for Path {
    type Target = [Segment];

    #[inline]
    fn deref(&self) -> &[Segment] {
        match self {
            Path::Short(len, segments) => &segments[..usize::from(*len)],
            Path::Long(segments) => segments,
        }
    }
}

impl From<Vec<Segment>> for Path {
    fn from(segments: Vec<Segment>) -> Path {
        Path::Long(segments)
    }
}

impl PartialEq for Path {
    fn eq(&self, other: &Path) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
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
    pub path: Path,
    pub expected: Option<&'static str>,
    pub constraint: Option<&'static str>,
    pub limit: Option<FaultLimit>,
    pub received: Option<Received>,
    /// `variants` of a variant fault, `matched` of a oneOf fault.
    pub count: Option<usize>,
}

impl Fault {
    /// A fault with only a reason and a path.
    pub fn at(reason: Reason, path: Path) -> Fault {
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
