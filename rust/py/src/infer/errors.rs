//! Python exceptions raised by inference: `ContractError` for unreadable samples,
//! `JSONInputError` for bad JSON text, `OSError` for files.

use orkestrel_core::infer::{LineError, LinesError};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `ContractError(message, code="structure")`.
pub fn unreadable(py: Python<'_>, door: &str, subject: &str) -> PyErr {
    let message = format!("{door}: {subject} could not be read");
    let made = (|| -> PyResult<PyErr> {
        let class = py
            .import("orkestrel.contract.errors")?
            .getattr("ContractError")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("code", "structure")?;
        Ok(PyErr::from_value(
            class.call((message.as_str(),), Some(&kwargs))?,
        ))
    })();
    made.unwrap_or_else(|e| e)
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
