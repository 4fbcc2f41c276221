//! Module-level functions: shape checks, `schema_to_shape`, previews and JSON helpers.

use orkestrel_core::contract::coerce_number as contract_number;
use orkestrel_core::contract::jsonvalue::{clone_json, is_json_value as json_value};
use orkestrel_core::errors::{Code, Context, ContractError};
use orkestrel_core::shape::builder::check_builder;
use orkestrel_core::shape::from_schema::schema_to_shape as widen;
use orkestrel_core::shape::gate::validate;
use orkestrel_core::shape::render::render;
use orkestrel_core::text::number::number_to_string as js_number;
use orkestrel_core::text::preview::preview as js_preview;
use orkestrel_core::value::{Node, View};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::convert;
use crate::errors::{contract_error, lift, shield, shielded};
use crate::node::PyNode;
use crate::sink::PySink;

/// Runs a builder's argument checks and the declaration gate; returns fresh shape data.
#[pyfunction]
pub fn check_shape<'py>(
    py: Python<'py>,
    builder: &str,
    shape: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    shielded(py, builder, || {
        let declaration = lift(py, check_builder(builder, &PyNode(shape.clone())))?;
        convert::json(py, &render(&declaration))
    })
}

/// Validates a hand-assembled shape graph; returns fresh shape data.
#[pyfunction]
pub fn validate_shape<'py>(
    py: Python<'py>,
    shape: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    shielded(py, "validate_shape", || {
        let declaration = lift(py, validate(&PyNode(shape.clone()), false))?;
        convert::json(py, &render(&declaration))
    })
}

/// Widens a JSON Schema into shape data (spec §10).
#[pyfunction]
pub fn schema_to_shape<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    shielded(py, "schema_to_shape", || {
        convert::json(py, &widen(&PyNode(schema.clone())))
    })
}

/// Renders a short, safe description of a value, as a fault's `received` text shows it.
#[pyfunction]
pub fn preview(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    shielded(py, "preview", || Ok(js_preview(&PyNode(value.clone()))))
}

/// Formats a number as JavaScript's `String(number)` does: `5.0` is `5`, `1e21` is `1e+21`.
#[pyfunction]
pub fn number_to_string(value: &Bound<'_, PyAny>) -> PyResult<String> {
    match PyNode(value.clone()).view() {
        View::Int(i) => Ok(js_number(i as f64)),
        View::Float(f) => Ok(js_number(f)),
        _ => Err(PyTypeError::new_err(
            "number_to_string expects an int or a float",
        )),
    }
}

/// Reads a value as a number shape's coercing parser does: a finite number as is, a string by
/// ECMAScript `Number()` over its trimmed text (blank and non-finite refused); `None` otherwise.
#[pyfunction]
pub fn coerce_number(value: &Bound<'_, PyAny>) -> Option<f64> {
    let node = PyNode(value.clone());
    let view = node.view();
    match view {
        View::Bool(_) => None,
        _ => contract_number(&view),
    }
}

/// Whether a value is JSON data: finite numbers, lists, str-keyed dicts, no cycles.
#[pyfunction]
pub fn is_json_value(value: &Bound<'_, PyAny>) -> bool {
    let node = PyNode(value.clone());
    shield(|| json_value(&node)).unwrap_or(false)
}

fn clone<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    door: &str,
) -> PyResult<Bound<'py, PyAny>> {
    shielded(py, door, || {
        let mut sink = PySink { py, error: None };
        let out = lift(py, clone_json(&PyNode(value.clone()), &mut sink, door))?;
        match sink.error {
            Some(error) => Err(error),
            None => Ok(out),
        }
    })
}

/// A deep copy of JSON data in fresh containers; `ContractError` (`clone`) otherwise.
#[pyfunction]
pub fn clone_json_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    clone(py, value, "clone_json_value")
}

/// A deep copy of a JSON record; `ContractError` (`clone`) for anything else.
#[pyfunction]
pub fn clone_json_record<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if !matches!(PyNode(value.clone()).view(), View::Object) {
        let error = ContractError::new(
            Code::Clone,
            "clone_json_record: value is not a plain record",
            Context {
                shape: Some("json"),
                ..Context::default()
            },
        );
        return Err(contract_error(py, &error));
    }
    clone(py, value, "clone_json_record")
}
