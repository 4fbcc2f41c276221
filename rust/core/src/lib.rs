//! Pure Rust core of orkestrel. It has no Python dependency: the `orkestrel-py`
//! crate binds it as `orkestrel._core`.

pub mod constants;
pub mod contract;
pub mod errors;
pub mod infer;
pub mod json;
pub mod pattern;
pub mod shape;
pub mod stack;
pub mod text;
pub mod value;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

/// The crate version, shared with the Python package.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod query;
pub mod search;
