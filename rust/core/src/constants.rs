//! Limits and vocabularies shared by every contract door (spec §2).

/// Maximum entries in any fault report, at every nesting level.
pub const FAULT_LIMIT: usize = 64;
/// Maximum UTF-16 length of a previewed string before it is cut with `…`.
pub const PREVIEW_LIMIT: usize = 64;
/// Container nesting accepted by the bounded JSON guards.
pub const GUARD_DEPTH_LIMIT: usize = 512;
/// Maximum shape height, in edges from the root to the deepest leaf.
pub const COMPILE_DEPTH_LIMIT: usize = 512;
/// Maximum size of the tree a shape graph expands into.
pub const COMPILE_NODE_LIMIT: u64 = 16_384;
/// Maximum number of nodes a JSON clone may produce.
pub const CLONE_NODE_LIMIT: usize = 262_144;
/// Minimum number of union attempts made by a generator.
pub const GENERATION_ATTEMPT_LIMIT: usize = 32;
/// Depth budget of inference and of `schema_to_shape`.
pub const INFER_DEPTH_LIMIT: usize = 32;
/// Per-container key and variant cap of inference and of `schema_to_shape`.
pub const INFER_BREADTH_LIMIT: usize = 256;
/// The seven JSON Schema type names, in the reference order.
pub const JSON_SCHEMA_TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];
/// The largest integer a double represents exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
