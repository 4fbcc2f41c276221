//! Keyword options shared by the inference entry points.

use orkestrel_core::infer::{Options, INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::wrong_type;
use crate::value::{base_of, Base};

/// A depth or breadth budget as given (an int or float); out-of-range values fall back as in
/// the reference (negative, fractional or non-finite → the default; depth capped at 32).
#[derive(Clone, Copy, Debug)]
pub struct Budget(pub f64);

impl Budget {
    pub const DEPTH: Budget = Budget(INFER_DEPTH_LIMIT as f64);
    pub const BREADTH: Budget = Budget(INFER_BREADTH_LIMIT as f64);
}

impl<'a, 'py> FromPyObject<'a, 'py> for Budget {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Budget> {
        match base_of(&obj) {
            Base::Bool => Err(PyTypeError::new_err(
                "a depth or breadth limit must be an int",
            )),
            Base::Int => Ok(Budget(obj.extract::<f64>().unwrap_or(f64::INFINITY))),
            Base::Float => Ok(Budget(obj.extract::<f64>()?)),
            _ => Err(wrong_type("a depth or breadth limit must be an int", &obj)),
        }
    }
}

/// Builds sanitised core options.
pub fn options(
    format: bool,
    enums: bool,
    closed: bool,
    depth: Budget,
    breadth: Budget,
    merge: bool,
) -> Options {
    Options {
        format,
        enums,
        closed,
        max_depth: Options::depth_from(Some(depth.0)),
        max_properties: Options::breadth_from(Some(breadth.0)),
        merge,
    }
}
