//! `SchemaBuilder`: the accumulator as a Python class, and the report of a JSON Lines read.

use orkestrel_core::infer::{decode, encode, Accumulator, Lines, Options, Report};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use super::functions::add_samples;
use super::input::{mode, read_document, read_lines, Input};
use super::node::PyNode;
use super::options::{options, Budget};
use super::schema;
use crate::convert::list;
use crate::errors::{bad_state, guard, input_error, internal, options_mismatch, shield, Panicked};

/// An accumulator that infers one JSON Schema from samples added over time.
#[pyclass(module = "orkestrel._core", name = "SchemaBuilder")]
pub struct SchemaBuilder {
    acc: Accumulator,
    /// Set when a Rust panic (a bug) interrupted a change: the summary may be half updated.
    broken: bool,
}

impl SchemaBuilder {
    fn usable(&self) -> PyResult<()> {
        if self.broken {
            return Err(PyRuntimeError::new_err(
                "this SchemaBuilder hit an internal error and can no longer be used",
            ));
        }
        Ok(())
    }

    /// Applies a change, marking the builder broken if it panics half way.
    fn change<T>(
        &mut self,
        door: &str,
        work: impl FnOnce(&mut Accumulator) -> PyResult<T>,
    ) -> PyResult<T> {
        self.usable()?;
        let acc = &mut self.acc;
        shield(|| work(acc)).unwrap_or_else(|Panicked| {
            self.broken = true;
            Err(internal(door))
        })
    }
}

/// Counts from reading JSON Lines into a `SchemaBuilder`.
#[pyclass(module = "orkestrel._core", name = "LinesReport", frozen, get_all)]
pub struct LinesReport {
    /// Lines read, blank ones included.
    lines: u64,
    /// Lines added as samples.
    samples: u64,
    /// Bad lines skipped (always 0 when errors="raise").
    skipped: u64,
    /// The first bad lines as `JSONInputError` objects, in line order.
    errors: Py<PyList>,
}

#[pymethods]
impl LinesReport {
    fn __repr__(&self) -> String {
        format!(
            "LinesReport(lines={}, samples={}, skipped={})",
            self.lines, self.samples, self.skipped
        )
    }
}

fn report(py: Python<'_>, report: &Report, source: Option<&str>) -> PyResult<LinesReport> {
    let errors = list(py, &report.errors, |error| input_error(py, source, error))?;
    Ok(LinesReport {
        lines: report.lines,
        samples: report.samples,
        skipped: report.skipped,
        errors: errors.unbind(),
    })
}

fn describe(opts: Options) -> String {
    format!(
        "format={}, enum={}, closed={}, max_depth={}, max_properties={}, merge={}",
        py_bool(opts.format),
        py_bool(opts.enums),
        py_bool(opts.closed),
        opts.max_depth,
        opts.max_properties,
        py_bool(opts.merge)
    )
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

#[pymethods]
impl SchemaBuilder {
    #[new]
    #[pyo3(signature = (*, format = false, r#enum = false, closed = true, max_depth = Budget::DEPTH, max_properties = Budget::BREADTH, merge = false))]
    fn new(
        format: bool,
        r#enum: bool,
        closed: bool,
        max_depth: Budget,
        max_properties: Budget,
        merge: bool,
    ) -> Self {
        let opts = options(format, r#enum, closed, max_depth, max_properties, merge);
        SchemaBuilder {
            acc: Accumulator::new(opts),
            broken: false,
        }
    }

    /// Adds one sample.
    fn add(&mut self, sample: &Bound<'_, PyAny>) -> PyResult<()> {
        self.change("SchemaBuilder.add", |acc| {
            let _scope = crate::hold::Scope::open(sample.py());
            acc.add(PyNode::new(sample));
            Ok(())
        })
    }

    /// Adds every sample of an iterable.
    fn add_many(&mut self, samples: &Bound<'_, PyAny>) -> PyResult<()> {
        self.change("SchemaBuilder.add_many", |acc| {
            add_samples(acc, samples, "SchemaBuilder.add_many", false)
        })
    }

    /// Adds each non-blank line of JSON Lines text as a sample, using every core.
    #[pyo3(signature = (source, *, errors = "raise", threads = None, progress = None))]
    fn add_json_lines(
        &mut self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        errors: &str,
        threads: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<LinesReport> {
        let input = Input::lines(source)?;
        let name = input.name();
        let lines = Lines {
            mode: mode(errors)?,
            threads: threads.unwrap_or(0),
            ..Lines::new(self.acc.options())
        };
        let done = self.change("SchemaBuilder.add_json_lines", |acc| {
            read_lines(py, acc, input, lines, progress.as_ref())
        })?;
        report(py, &done, name.as_deref())
    }

    /// Adds one JSON document (bytes or str) as a sample.
    fn add_json(&mut self, py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = Input::document(document)?;
        self.change("SchemaBuilder.add_json", |acc| {
            read_document(py, acc, input)
        })
    }

    /// Folds another builder (built with the same options) into this one.
    fn merge(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let other = other
            .cast::<SchemaBuilder>()
            .map_err(|_| PyTypeError::new_err("merge expects another SchemaBuilder"))?;
        let theirs = if other.is(slf) {
            slf.borrow().acc.clone()
        } else {
            other.borrow().usable()?;
            other.borrow().acc.clone()
        };
        let mut mine = slf.borrow_mut();
        if theirs.options() != mine.acc.options() {
            return Err(PyValueError::new_err(format!(
                "cannot merge builders with different options ({} vs {})",
                describe(mine.acc.options()),
                describe(theirs.options())
            )));
        }
        mine.change("SchemaBuilder.merge", |acc| {
            py.detach(|| acc.merge(&theirs)).map_err(options_mismatch)
        })
    }

    /// Returns the JSON Schema of every sample added so far.
    fn to_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.usable()?;
        guard("SchemaBuilder.to_schema", || {
            let acc = &self.acc;
            let rendered = py.detach(|| acc.schema());
            schema(py, rendered, "SchemaBuilder.to_schema")
        })
    }

    /// How many samples were added (merged builders included).
    #[getter]
    fn samples(&self) -> u64 {
        self.acc.samples()
    }

    /// The options, as keyword arguments of the constructor.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let opts = self.acc.options();
        let dict = PyDict::new(py);
        dict.set_item("format", opts.format)?;
        dict.set_item("enum", opts.enums)?;
        dict.set_item("closed", opts.closed)?;
        dict.set_item("max_depth", opts.max_depth)?;
        dict.set_item("max_properties", opts.max_properties)?;
        dict.set_item("merge", opts.merge)?;
        Ok(dict)
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.usable()?;
        guard("SchemaBuilder.__getstate__", || {
            let acc = &self.acc;
            let state = py.detach(|| encode(acc));
            Ok(PyBytes::new(py, &state))
        })
    }

    fn __setstate__(&mut self, py: Python<'_>, state: &Bound<'_, PyBytes>) -> PyResult<()> {
        let bytes = state.as_bytes();
        let decoded = guard("SchemaBuilder.__setstate__", || {
            py.detach(|| decode(bytes)).map_err(bad_state)
        })?;
        self.acc = decoded;
        self.broken = false;
        Ok(())
    }

    fn __copy__(&self) -> PyResult<Self> {
        self.usable()?;
        Ok(SchemaBuilder {
            acc: self.acc.clone(),
            broken: false,
        })
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.__copy__()
    }

    fn __repr__(&self) -> String {
        format!(
            "SchemaBuilder({}, samples={})",
            describe(self.acc.options()),
            self.acc.samples()
        )
    }
}
