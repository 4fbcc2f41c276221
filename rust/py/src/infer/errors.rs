//! Python exceptions raised by inference: `ContractError` for unreadable samples,
//! `JSONInputError` for bad JSON text, `OSError` for files.

use orkestrel_core::infer::{LineError, LinesError, SCHEMA_NODE_LIMIT};
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A Rust panic was caught (a bug, never expected on any input).
pub struct Panicked;

/// Runs `work`, stopping a panic from unwinding into Python.
pub fn shield<T>(work: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|_| Panicked)
}

/// The `RuntimeError` a caught panic becomes.
pub fn internal(door: &str) -> PyErr {
    PyRuntimeError::new_err(format!("{door}: internal error in schema inference"))
}

/// Runs `work`, turning a panic into [`internal`].
pub fn guard<T>(door: &str, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    shield(work).unwrap_or_else(|Panicked| Err(internal(door)))
}

fn contract_error(py: Python<'_>, message: &str, code: &str) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let class = py
            .import("orkestrel.contract.errors")?
            .getattr("ContractError")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("code", code)?;
        Ok(PyErr::from_value(class.call((message,), Some(&kwargs))?))
    })();
    made.unwrap_or_else(|e| e)
}

/// `ContractError(code="structure")`: the samples are not a readable collection.
pub fn unreadable(py: Python<'_>, door: &str, subject: &str) -> PyErr {
    contract_error(
        py,
        &format!("{door}: {subject} could not be read"),
        "structure",
    )
}

/// `ContractError(code="expansion")`: the schema would be too large to build.
pub fn too_large(py: Python<'_>, door: &str) -> PyErr {
    let message =
        format!("{door}: the inferred schema expands past {SCHEMA_NODE_LIMIT} schema objects");
    contract_error(py, &message, "expansion")
}

/// A `JSONInputError` instance for a bad line.
pub fn input_error<'py>(
    py: Python<'py>,
    source: Option<&str>,
    error: &LineError,
) -> PyResult<Bound<'py, PyAny>> {
    let class = py
        .import("orkestrel.contract.inference")?
        .getattr("JSONInputError")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("line", error.line)?;
    kwargs.set_item("column", error.column)?;
    kwargs.set_item("reason", error.reason.to_string())?;
    kwargs.set_item("code", error.reason.code())?;
    kwargs.set_item("source", source)?;
    class.call((), Some(&kwargs))
}

/// Raises a bad line as `JSONInputError`.
pub fn raise_input(py: Python<'_>, source: Option<&str>, error: &LineError) -> PyErr {
    match input_error(py, source, error) {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// Maps a failed JSON Lines read; `pending` is a Python error met by a callback or a reader.
pub fn lines_error(
    py: Python<'_>,
    source: Option<&str>,
    error: LinesError,
    pending: Option<PyErr>,
) -> PyErr {
    if let Some(e) = pending {
        return e;
    }
    match error {
        LinesError::Bad(line) => raise_input(py, source, &line),
        LinesError::Io(io) => {
            let errno = io.raw_os_error().unwrap_or(0);
            match source {
                Some(path) => PyOSError::new_err((errno, io.to_string(), path.to_string())),
                None => PyOSError::new_err((errno, io.to_string())),
            }
        }
        LinesError::Cancelled => PyRuntimeError::new_err("JSON Lines reading was cancelled"),
    }
}
