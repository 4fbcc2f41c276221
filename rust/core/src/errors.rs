//! The declaration error of the contract core: a closed code, a message and a context.

use std::fmt;

/// The closed set of contract error codes (spec §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Bound,
    Range,
    Empty,
    Placement,
    Structure,
    Literal,
    Cycle,
    Pattern,
    Generate,
    Random,
    Clone,
    Depth,
    Expansion,
}

impl Code {
    /// The code's wire name.
    pub fn name(self) -> &'static str {
        match self {
            Code::Bound => "bound",
            Code::Range => "range",
            Code::Empty => "empty",
            Code::Placement => "placement",
            Code::Structure => "structure",
            Code::Literal => "literal",
            Code::Cycle => "cycle",
            Code::Pattern => "pattern",
            Code::Generate => "generate",
            Code::Random => "random",
            Code::Clone => "clone",
            Code::Depth => "depth",
            Code::Expansion => "expansion",
        }
    }
}

/// A `limit` in an error context: a number or a description.
#[derive(Clone, Debug, PartialEq)]
pub enum Limit {
    Number(u64),
    Text(&'static str),
}

/// The optional context of a [`ContractError`]; absent fields are omitted on the wire.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    pub path: Option<Vec<Vec<u8>>>,
    pub shape: Option<&'static str>,
    pub limit: Option<Limit>,
    pub received: Option<String>,
}

/// A refused declaration or an unreadable value.
#[derive(Clone, Debug, PartialEq)]
pub struct ContractError {
    pub code: Code,
    pub message: String,
    pub context: Option<Context>,
}

impl ContractError {
    /// An error with a context.
    pub fn new(code: Code, message: impl Into<String>, context: Context) -> Self {
        ContractError {
            code,
            message: message.into(),
            context: Some(context),
        }
    }

    /// A `structure` error saying that `subject` could not be read by `door`.
    pub fn unreadable(door: &str, subject: &str, shape: Option<&'static str>) -> Self {
        ContractError::new(
            Code::Structure,
            format!("{door}: {subject} could not be read"),
            Context {
                shape,
                ..Context::default()
            },
        )
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ContractError {}

/// Builds a context path from string segments.
pub fn path_of<I, S>(segments: I) -> Vec<Vec<u8>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    segments.into_iter().map(|s| s.as_ref().to_vec()).collect()
}
