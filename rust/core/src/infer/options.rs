//! Inference options and their sanitising rules (spec §9.1).

use super::limits::{INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT};

/// The knobs shared by every inference entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Attach a unanimous `format` to string slots.
    pub format: bool,
    /// Emit `enum` for repeated low-cardinality primitive slots.
    pub enums: bool,
    /// Close inferred objects with `additionalProperties: false`.
    pub closed: bool,
    /// Containers opened below the root, at most [`INFER_DEPTH_LIMIT`].
    pub max_depth: u32,
    /// Keys inferred per object (`0` leaves every object open and every array bare).
    pub max_properties: usize,
    /// Merge objects wherever they meet (array items, `anyOf` variants) key-wise, `required`
    /// being the keys every one of them had, as genson does; off, each distinct object shape is
    /// its own `anyOf` variant, as the reference does.
    pub merge: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            format: false,
            enums: false,
            closed: true,
            max_depth: INFER_DEPTH_LIMIT,
            max_properties: INFER_BREADTH_LIMIT,
            merge: false,
        }
    }
}

impl Options {
    /// Keeps a non-negative integral depth (capped at the ceiling); anything else is the default.
    pub fn depth_from(value: Option<f64>) -> u32 {
        match value {
            Some(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 => {
                if v >= f64::from(INFER_DEPTH_LIMIT) {
                    INFER_DEPTH_LIMIT
                } else {
                    // In range and integral, so the cast is exact.
                    v as u32
                }
            }
            _ => INFER_DEPTH_LIMIT,
        }
    }

    /// Keeps a non-negative integral breadth; anything else is the default.
    pub fn breadth_from(value: Option<f64>) -> usize {
        match value {
            Some(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 => {
                if v >= usize::MAX as f64 {
                    usize::MAX
                } else {
                    v as usize
                }
            }
            _ => INFER_BREADTH_LIMIT,
        }
    }
}
