//! The one table from core errors to Python exceptions, and the panic shields around every
//! entry point.
//!
//! | core error | Python exception |
//! | --- | --- |
//! | [`ContractError`] (any [`Code`]) | `ContractError(message, code=, context=)` ([`contract_error`]) |
//! | a value that fails `parse` | `ParseError(FaultReport)` ([`parse_error`]) |
//! | samples that cannot be read (inference) | `ContractError(code="structure")` ([`unreadable`]) |
//! | `SchemaTooLarge` | `ContractError(code="expansion")` ([`too_large`]) |
//! | [`LineError`] | `JSONInputError(line=, column=, reason=, code=, source=)` ([`input_error`]) |
//! | [`LinesError::Io`] | `OSError(errno, message[, path])` ([`lines_error`]) |
//! | [`LinesError::Cancelled`] | `RuntimeError` ([`lines_error`]) |
//! | [`SearchError::Oversize`] | `ResultSizeError` ([`search_error`]) |
//! | any other [`SearchError`] | `PatternError` ([`search_error`]) |
//! | a panic in a contract entry point | `ContractError(code="structure")` ([`shielded`]) |
//! | a panic in an inference entry point | `RuntimeError` ([`guard`], [`internal`]) |
//! | a panic in the search engine | `PatternError` ([`search_error`]) |
//! | [`QueryError`] (an unknown operator or connector) | `ValueError` ([`query_error`]) |
//! | [`OptionsMismatch`] (merging builders) | `ValueError` ([`options_mismatch`]) |
//! | bytes `decode` refuses (`SchemaBuilder.__setstate__`) | `ValueError` ([`bad_state`]) |
//!
//! The binding's own refusals of an argument, before any core code runs, are `TypeError` or
//! `ValueError` raised where the argument is read (query.rs, infer/input.rs, infer/options.rs,
//! infer/builder.rs, functions.rs, search.rs); a wrong type is named as Python names it, in one
//! wording ([`wrong_type`]: `"<what was expected>, not <type>"`).
//!
//! `ContractError` and `ParseError` live in `orkestrel.contract.errors`, `JSONInputError` in
//! `orkestrel.contract.inference`; `PatternError` and `ResultSizeError` are defined here.

use std::panic::{catch_unwind, AssertUnwindSafe};

use orkestrel_core::errors::{Code, Context, ContractError, Limit};
use orkestrel_core::infer::{LineError, LinesError, OptionsMismatch, SCHEMA_NODE_LIMIT};
use orkestrel_core::query::normalize::QueryError;
use orkestrel_core::search::SearchError;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::convert::{list, text};

pyo3::create_exception!(
    orkestrel._core,
    PatternError,
    PyValueError,
    "Raised when a search pattern cannot be compiled or run by the linear-time engine."
);

pyo3::create_exception!(
    orkestrel._core,
    ResultSizeError,
    PatternError,
    "Raised when a search's matches or a replaced text would pass the size bound it was given."
);

static CONTRACT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARSE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static JSON_INPUT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const ERRORS: &str = "orkestrel.contract.errors";
const INFERENCE: &str = "orkestrel.contract.inference";

/// A Rust panic was caught (a bug, never expected on any input).
pub struct Panicked;

/// Runs `work`, stopping a panic from unwinding into Python.
#[inline]
pub fn shield<T>(work: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|_| Panicked)
}

fn context<'py>(py: Python<'py>, context: &Context) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    if let Some(path) = &context.path {
        let path = list(py, path, |segment| text(py, segment))?;
        out.set_item(intern!(py, "path"), path)?;
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

/// Runs a contract entry point so that a Rust panic becomes a `ContractError` instead of
/// crossing into Python.
pub fn shielded<T>(py: Python<'_>, door: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    shield(body).unwrap_or_else(|Panicked| {
        Err(contract_error(
            py,
            &ContractError::new(
                Code::Structure,
                format!("{door}: an internal failure was contained"),
                Context::default(),
            ),
        ))
    })
}

/// A `ContractError` with a code and no context.
fn bare(py: Python<'_>, code: Code, message: String) -> PyErr {
    let error = ContractError {
        code,
        message,
        context: None,
    };
    contract_error(py, &error)
}

/// `ContractError(code="structure")`: the samples are not a readable collection.
pub fn unreadable(py: Python<'_>, door: &str, subject: &str) -> PyErr {
    let message = format!("{door}: {subject} could not be read");
    bare(py, Code::Structure, message)
}

/// `ContractError(code="expansion")`: the schema would be too large to build.
pub fn too_large(py: Python<'_>, door: &str) -> PyErr {
    let message =
        format!("{door}: the inferred schema expands past {SCHEMA_NODE_LIMIT} schema objects");
    bare(py, Code::Expansion, message)
}

/// The `RuntimeError` a panic caught in inference becomes.
pub fn internal(door: &str) -> PyErr {
    PyRuntimeError::new_err(format!("{door}: internal error in schema inference"))
}

/// Runs an inference entry point, turning a panic into [`internal`].
pub fn guard<T>(door: &str, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    shield(work).unwrap_or_else(|Panicked| Err(internal(door)))
}

/// A `JSONInputError` instance for a bad line.
pub fn input_error<'py>(
    py: Python<'py>,
    source: Option<&str>,
    error: &LineError,
) -> PyResult<Bound<'py, PyAny>> {
    let class = JSON_INPUT_ERROR.import(py, INFERENCE, "JSONInputError")?;
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

/// Maps the search engine's outcome: a refusal, or a panic that must never reach Python.
pub fn search_error<T>(outcome: Result<Result<T, SearchError>, Panicked>) -> PyResult<T> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(SearchError::Oversize)) => {
            Err(ResultSizeError::new_err(SearchError::Oversize.to_string()))
        }
        Ok(Err(refusal)) => Err(PatternError::new_err(refusal.to_string())),
        Err(Panicked) => Err(PatternError::new_err(
            "the search engine failed on this input",
        )),
    }
}

/// `ValueError`: a query condition names an operator or connector there is none of.
pub fn query_error(error: QueryError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// `ValueError`: two builders with different options cannot be merged.
pub fn options_mismatch(_: OptionsMismatch) -> PyErr {
    PyValueError::new_err("cannot merge builders with different options")
}

/// `ValueError`: bytes that are not a `SchemaBuilder`'s pickled state.
pub fn bad_state<E>(_: E) -> PyErr {
    PyValueError::new_err("not a SchemaBuilder state")
}

/// `TypeError("<expected>, not <type>")`, naming the value's type as `type(value).__name__`
/// does; the error of reading that name where it cannot be read.
pub fn wrong_type(expected: &str, value: &Bound<'_, PyAny>) -> PyErr {
    match value.get_type().name() {
        Ok(name) => PyTypeError::new_err(format!("{expected}, not {name}")),
        Err(error) => error,
    }
}
