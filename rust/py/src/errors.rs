//! The single mapping from core errors to Python exceptions, and the panic shield around
//! every entry point.

use std::panic::{catch_unwind, AssertUnwindSafe};

use orkestrel_core::errors::{Code, Context, ContractError, Limit};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};

use crate::convert::text;

static CONTRACT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARSE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const ERRORS: &str = "orkestrel.contract.errors";

fn context<'py>(py: Python<'py>, context: &Context) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    if let Some(path) = &context.path {
        let list = PyList::empty(py);
        for segment in path {
            list.append(text(py, segment)?)?;
        }
        out.set_item(intern!(py, "path"), list)?;
    }
    if let Some(shape) = context.shape {
        out.set_item(intern!(py, "shape"), shape)?;
    }
    match &context.limit {
        Some(Limit::Number(n)) => out.set_item(intern!(py, "limit"), n)?,
        Some(Limit::Text(t)) => out.set_item(intern!(py, "limit"), t)?,
        None => {}
    }
    if let Some(received) = &context.received {
        out.set_item(intern!(py, "received"), received)?;
    }
    Ok(out)
}

/// A Python `ContractError` carrying the core error's code and context.
pub fn contract_error(py: Python<'_>, error: &ContractError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = CONTRACT_ERROR.import(py, ERRORS, "ContractError")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "code"), error.code.name())?;
        let ctx = match &error.context {
            Some(ctx) => context(py, ctx)?.into_any(),
            None => py.None().into_bound(py),
        };
        kwargs.set_item(intern!(py, "context"), ctx)?;
        let instance = class.call((error.message.as_str(),), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|failure| failure)
}

/// A Python `ParseError` whose `faults` are the explain report.
pub fn parse_error(py: Python<'_>, faults: Bound<'_, PyAny>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        // The type's `tp_new` alone (BaseException's, in C) stores `args`; the Python
        // `__init__` would only store them again.
        let class = PARSE_ERROR.import(py, ERRORS, "ParseError")?;
        let args = PyTuple::new(py, [faults])?;
        let kind = class.as_type_ptr();
        // SAFETY: `kind` is a live exception type whose `tp_new` is BaseException's; it
        // returns a new reference or null with an error set.
        let instance = unsafe {
            match (*kind).tp_new {
                Some(new) => Bound::from_owned_ptr_or_err(
                    py,
                    new(kind, args.as_ptr(), std::ptr::null_mut()),
                )?,
                None => class.call1(args)?,
            }
        };
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|failure| failure)
}

/// Maps a core result to a Python result.
pub fn lift<T>(py: Python<'_>, result: Result<T, ContractError>) -> PyResult<T> {
    result.map_err(|error| contract_error(py, &error))
}

/// Runs an entry point so that a Rust panic becomes a `ContractError` instead of crossing
/// into Python.
pub fn shielded<T>(py: Python<'_>, door: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(_) => Err(contract_error(
            py,
            &ContractError::new(
                Code::Structure,
                format!("{door}: an internal failure was contained"),
                Context::default(),
            ),
        )),
    }
}
