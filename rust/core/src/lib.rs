//! Pure Rust core of orkestrel. It has no Python dependency: the `orkestrel-py`
//! crate binds it as `orkestrel._core`.

/// The crate version, shared with the Python package.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod infer;
