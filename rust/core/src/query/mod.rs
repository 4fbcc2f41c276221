//! The database tool's query helpers: row-cap clamping, connector normalisation and the
//! `like` / `glob` pattern matchers the SQLite driver registers as SQL functions.

pub mod limit;
pub mod normalize;
pub mod pattern;

pub use limit::{clamp_limit, resolve_limit, ClampedLimit};
pub use normalize::{
    normalize_conditions, Condition, Connector, Operator, QueryError, RawCondition,
};
pub use pattern::{glob_match, like_match};
