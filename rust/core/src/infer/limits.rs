//! Inference limits from the reference constants, plus the guards this port adds.

/// Default and ceiling of the inference depth (nested containers that are opened).
pub const INFER_DEPTH_LIMIT: u32 = crate::constants::INFER_DEPTH_LIMIT as u32;
/// Default number of keys inferred per object.
pub const INFER_BREADTH_LIMIT: usize = crate::constants::INFER_BREADTH_LIMIT;
/// Largest number of distinct values a slot may hold and still become an `enum`.
pub const INFER_ENUM_LIMIT: usize = 12;
/// Strings longer than this many UTF-16 units never get a `format`.
pub const FORMAT_MAX_LENGTH: usize = 128;
/// Distinct object/array schemas a slot lists one by one before it merges them key-wise.
pub const VARIANT_LIMIT: usize = 256;
/// Visits of already-seen shared containers allowed while adding one sample, on top of one per
/// reference the sample actually holds (so only exponential re-expansion is cut).
pub const REVISIT_LIMIT: u64 = 1 << 16;
/// Largest inferred schema, in schema objects; a value whose schema would expand past it (a
/// shared-reference DAG) is refused.
pub const SCHEMA_NODE_LIMIT: usize = 1 << 20;
