//! The database layer's query helpers: row-cap clamping, connector normalisation, the
//! `like` / `glob` pattern matchers the SQLite driver registers as SQL functions, and the fast
//! path of row encoding.

pub mod cells;
pub mod limit;
pub mod normalize;
pub mod pattern;

pub use cells::{judge, CellKind, Sample, Verdict};
pub use limit::{clamp_limit, resolve_limit, ClampedLimit};
pub use normalize::{
    normalize_conditions, Condition, Connector, Operator, QueryError, RawCondition,
};
pub use pattern::{glob_match, like_match};
