//! The inference functions of `orkestrel._core`.

use std::borrow::Cow;

use orkestrel_core::infer::{self, Accumulator, Lines, Options};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

use super::input::{mode, read_document, read_lines, Input};
use super::node::PyNode;
use super::options::{options, Budget};
use super::schema;
use crate::errors::{guard, unreadable};
use crate::hold::Scope;
use crate::unicode::str_bytes;
use crate::value;

/// Adds every sample of a list, tuple or other iterable (not a string, bytes or mapping).
/// `whole` says these are all the samples the accumulator will see.
pub fn add_samples(
    acc: &mut Accumulator,
    samples: &Bound<'_, PyAny>,
    door: &str,
    whole: bool,
) -> PyResult<()> {
    let py = samples.py();
    let refused = samples.is_instance_of::<PyString>()
        || samples.is_instance_of::<PyBytes>()
        || samples.is_instance_of::<PyByteArray>()
        || samples.is_instance_of::<PyDict>();
    if refused {
        return Err(unreadable(py, door, "samples"));
    }
    let _scope = Scope::open(py);
    if let Ok(list) = samples.cast::<PyList>() {
        add_list(acc, list, whole);
        return Ok(());
    }
    if let Ok(tuple) = samples.cast::<PyTuple>() {
        // SAFETY: a live tuple the caller holds; a tuple never changes.
        let items = unsafe { value::items(py, tuple.as_ptr(), false) };
        acc.add_all(items.iter().map(|&item| PyNode::borrowed(py, item)));
        return Ok(());
    }
    let iterator = samples
        .try_iter()
        .map_err(|_| unreadable(py, door, "samples"))?;
    for item in iterator {
        acc.add(PyNode::new(&item?));
    }
    Ok(())
}

/// Adds every item of a list, read as `crate::value::items` says, inside the caller's walk
/// scope.
fn add_list(acc: &mut Accumulator, list: &Bound<'_, PyList>, whole: bool) {
    let py = list.py();
    // SAFETY: a live list the caller holds, with the caller's scope open; no Python code runs
    // until the last item is added.
    let items = unsafe { value::items(py, list.as_ptr(), true) };
    // SAFETY: type checks on live objects.
    if whole
        && items
            .iter()
            .all(|&item| unsafe { ffi::PyDict_Check(item) } != 0)
    {
        acc.records_only();
    }
    acc.add_all(items.iter().map(|&item| PyNode::borrowed(py, item)));
}

/// Runs an inference entry point: a new accumulator with `opts`, filled by `fill` and
/// rendered, with a panic turned into [`crate::errors::internal`] for `door`.
fn fresh<'py>(
    py: Python<'py>,
    door: &str,
    opts: Options,
    fill: impl FnOnce(&mut Accumulator) -> PyResult<()>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(door, || {
        let mut acc = Accumulator::new(opts);
        fill(&mut acc)?;
        schema(py, acc.schema(), door)
    })
}

/// Infers one JSON Schema that every sample satisfies.
#[pyfunction]
#[pyo3(signature = (samples, *, format = false, r#enum = false, closed = true, max_depth = Budget::DEPTH, max_properties = Budget::BREADTH, merge = false))]
pub fn samples_to_schema<'py>(
    samples: &Bound<'py, PyAny>,
    format: bool,
    r#enum: bool,
    closed: bool,
    max_depth: Budget,
    max_properties: Budget,
    merge: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(format, r#enum, closed, max_depth, max_properties, merge);
    fresh(samples.py(), "samples_to_schema", opts, |acc| {
        add_samples(acc, samples, "samples_to_schema", true)
    })
}

/// Infers the JSON Schema of one value.
#[pyfunction]
#[pyo3(signature = (value, *, format = false, closed = true, max_depth = Budget::DEPTH, max_properties = Budget::BREADTH, merge = false))]
pub fn value_to_schema<'py>(
    value: &Bound<'py, PyAny>,
    format: bool,
    closed: bool,
    max_depth: Budget,
    max_properties: Budget,
    merge: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(format, false, closed, max_depth, max_properties, merge);
    guard("value_to_schema", || {
        let _scope = Scope::open(value.py());
        let rendered = infer::value_to_schema(PyNode::new(value), opts);
        schema(value.py(), rendered, "value_to_schema")
    })
}

/// Infers one JSON Schema from JSON Lines, each non-blank line being a sample.
#[pyfunction]
#[pyo3(signature = (source, *, format = false, r#enum = false, closed = true, max_depth = Budget::DEPTH, max_properties = Budget::BREADTH, merge = false, errors = "raise", threads = None, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn infer_json_lines<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    format: bool,
    r#enum: bool,
    closed: bool,
    max_depth: Budget,
    max_properties: Budget,
    merge: bool,
    errors: &str,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(format, r#enum, closed, max_depth, max_properties, merge);
    let lines = Lines {
        mode: mode(errors)?,
        threads: threads.unwrap_or(0),
        ..Lines::new(opts)
    };
    fresh(py, "infer_json_lines", opts, |acc| {
        let input = Input::lines(source)?;
        read_lines(py, acc, input, lines, progress.as_ref()).map(drop)
    })
}

/// Infers the JSON Schema of one JSON document (as `samples_to_schema([document])`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (document, *, format = false, r#enum = false, closed = true, max_depth = Budget::DEPTH, max_properties = Budget::BREADTH, merge = false))]
pub fn infer_json<'py>(
    py: Python<'py>,
    document: &Bound<'py, PyAny>,
    format: bool,
    r#enum: bool,
    closed: bool,
    max_depth: Budget,
    max_properties: Budget,
    merge: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(format, r#enum, closed, max_depth, max_properties, merge);
    fresh(py, "infer_json", opts, |acc| {
        read_document(py, acc, Input::document(document)?)
    })
}

/// Detects which format a string has (uuid, date-time, date, time, email or uri), if any.
#[pyfunction]
pub fn string_to_format(value: &Bound<'_, PyAny>) -> Option<&'static str> {
    let text = value.cast::<PyString>().ok()?;
    infer::string_to_format(&text_of(text)).map(infer::Format::name)
}

/// Detects the format every value shares, when all are strings of one format.
#[pyfunction]
pub fn samples_to_format(values: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
    let mut shared: Option<infer::Format> = None;
    for value in values.try_iter()? {
        let value = value?;
        let Ok(text) = value.cast::<PyString>() else {
            return Ok(None);
        };
        match (infer::string_to_format(&text_of(text)), shared) {
            (None, _) => return Ok(None),
            (Some(f), None) => shared = Some(f),
            (Some(f), Some(g)) if f != g => return Ok(None),
            _ => {}
        }
    }
    Ok(shared.map(infer::Format::name))
}

/// Determines whether an ISO date or date-time string names a real calendar instant.
#[pyfunction]
pub fn is_valid_iso_instant(value: &Bound<'_, PyString>) -> bool {
    infer::is_valid_iso_instant(&text_of(value))
}

fn text_of<'a>(value: &'a Bound<'_, PyString>) -> Cow<'a, [u8]> {
    str_bytes(value.as_any())
}
