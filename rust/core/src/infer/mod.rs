//! Schema inference (spec §9): one value or many samples to JSON Schema.
//!
//! The core is an [`Accumulator`]: a per-slot summary fed one value at a time through the
//! [`Source`] trait, so Python objects and JSON bytes are both walked in place. Accumulators
//! merge associatively and commutatively, which is what the multi-core JSON Lines reader and
//! Python's map-reduce `SchemaBuilder` rely on.

mod builder;
mod ctx;
mod enums;
mod error;
mod escape;
mod fields;
mod format;
mod json;
mod limits;
mod lines;
mod merge;
mod options;
mod parsed;
mod record;
mod render;
mod restore;
mod shape;
mod skeleton;
mod slot;
mod source;
mod state;
mod stream;
mod structural;
mod tape;
mod terms;
mod text;
mod walk;

pub use builder::{value_to_schema, Accumulator, OptionsMismatch, SchemaTooLarge};
pub use error::{LineError, Reason, SyntaxError};
pub use format::{is_valid_iso_instant, string_to_format, Format};
pub use json::{unify, Json};
pub use limits::{
    FORMAT_MAX_LENGTH, INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT, INFER_ENUM_LIMIT, REVISIT_LIMIT,
    SCHEMA_NODE_LIMIT, VARIANT_LIMIT,
};
pub use lines::{ErrorMode, Report, ERROR_SAMPLE};
pub use options::Options;
pub use parsed::Parsed;
pub use restore::decode;
pub use source::{leaf_of, Kind, NumberClass, Source};
pub use state::{encode, StateError};
pub use stream::{read_bytes, read_file, read_stream, Lines, LinesError, BLOCK, MAX_LINE};
pub use tape::Tape;
pub use text::{cmp_utf16, number_text};
