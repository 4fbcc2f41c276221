//! Schema inference bindings: Python objects are walked in place, JSON text is parsed in Rust
//! with the GIL released.

mod builder;
mod functions;
mod input;
mod node;
mod options;

pub use builder::{LinesReport, SchemaBuilder};
pub use functions::{
    infer_json, infer_json_lines, is_valid_iso_instant, samples_to_format, samples_to_schema,
    string_to_format, value_to_schema,
};

use orkestrel_core::infer::{Json, SchemaTooLarge, FORMAT_MAX_LENGTH, INFER_ENUM_LIMIT};
use pyo3::prelude::*;

use crate::convert::json;
use crate::errors::too_large;

/// Converts a rendered schema, or raises `ContractError(code="expansion")` for `door`.
fn schema<'py>(
    py: Python<'py>,
    rendered: Result<Json, SchemaTooLarge>,
    door: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match rendered {
        Ok(schema) => json(py, &schema),
        Err(SchemaTooLarge) => Err(too_large(py, door)),
    }
}

/// Adds the inference-only limits to the module (the depth and breadth limits are shared).
pub fn constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    node::prepare(m.py());
    m.add("INFER_ENUM_LIMIT", INFER_ENUM_LIMIT)?;
    m.add("FORMAT_MAX_LENGTH", FORMAT_MAX_LENGTH)
}
