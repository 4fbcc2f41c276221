//! `Contract`: a shape compiled once, shared immutably (`Arc`) by every call.

use std::sync::Arc;

use orkestrel_core::contract::{Contract, Fault, Segment};
use orkestrel_core::errors::ContractError;
use orkestrel_core::json::JsonRef;
use orkestrel_core::shape::gate::validate;
use orkestrel_core::shape::render::render;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::convert;
use crate::errors::{contract_error, lift, parse_error, shield, shielded};
use crate::node::PyNode;
#[cfg(not(Py_GIL_DISABLED))]
use crate::node::PyView;
use crate::sink::PySink;
use crate::unicode::str_bytes;

/// A compiled contract: `schema`, `is_valid`, `parse` and `explain` over one shape.
#[pyclass(frozen, module = "orkestrel._core", name = "Contract")]
pub struct PyContract {
    inner: Arc<Contract>,
    shape: JsonRef,
    /// The interned `str` of every declared property name and string literal member, bound
    /// into `inner` by identity:
    /// held here so that no other object takes their addresses while `inner` is used.
    _names: Vec<Py<PyString>>,
}

fn prefix(path: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Segment>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let mut segments = Vec::new();
    for item in path.try_iter()? {
        let item = item?;
        let item = item.cast::<pyo3::types::PyString>()?;
        segments.push(Segment::Key(str_bytes(item.as_any()).into()));
    }
    Ok(segments)
}

/// Parses of one call: a value that fails a parse and then shows no fault changed between the
/// two walks, and is parsed again.
const PARSE_TRIES: usize = 3;

// Parses begun on this thread, counted in debug builds only: the free-threaded tests read it to
// check the bound above, which no GIL build can reach.
#[cfg(debug_assertions)]
thread_local! {
    static PARSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Parses begun on the calling thread (debug builds only).
#[cfg(debug_assertions)]
#[pyfunction]
pub fn _debug_parses() -> u64 {
    PARSES.with(std::cell::Cell::get)
}

/// The faults of a failed parse, kept in Rust until Python reads them.
#[pyclass(frozen, module = "orkestrel._core", name = "FaultReport")]
pub struct PyFaultReport {
    faults: Vec<Fault>,
}

#[pymethods]
impl PyFaultReport {
    /// The faults as a list of dicts.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        convert::faults(py, &self.faults)
    }

    fn __len__(&self) -> usize {
        self.faults.len()
    }
}

#[pymethods]
impl PyContract {
    /// Validates and compiles a shape.
    #[new]
    fn new(py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<Self> {
        shielded(py, "create_contract", || {
            let declaration = lift(py, validate(&PyNode(shape.clone()), false))?;
            let shape = render(&declaration);
            let mut contract = Contract::compile(declaration);
            // Keys written in Python source are interned, so a record built by user code
            // usually has these very objects as keys.
            let mut names = Vec::new();
            contract.bind_keys(|name| match std::str::from_utf8(name) {
                Ok(text) => {
                    let interned = PyString::intern(py, text);
                    let identity = interned.as_ptr() as usize;
                    names.push(interned.unbind());
                    identity
                }
                Err(_) => 0,
            });
            Ok(PyContract {
                inner: Arc::new(contract),
                shape,
                _names: names,
            })
        })
    }

    /// The emitted JSON Schema, as a fresh dict on every access.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::json(py, self.inner.schema())
    }

    /// The declaration this contract was compiled from, as fresh shape data.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::json(py, &self.shape)
    }

    /// Whether the value satisfies the contract exactly; never raises.
    fn is_valid(&self, value: &Bound<'_, PyAny>) -> bool {
        // The guard runs no Python code, so it can read through borrowed pointers; where
        // other threads may change containers while they are read, it takes references.
        #[cfg(not(Py_GIL_DISABLED))]
        let node = PyView::new(value);
        #[cfg(Py_GIL_DISABLED)]
        let node = PyNode(value.clone());
        shield(|| self.inner.is_valid(&node)).unwrap_or(false)
    }

    /// The coerced value, or `ParseError` carrying the `explain` faults.
    fn parse<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        shielded(py, "parse", || {
            let node = PyNode(value.clone());
            // The report is a second walk: a value that another thread changes in between (on
            // a free-threaded build; with a GIL no collection starts there, see
            // `test_changed_input.py`) can fail the parse and leave no fault. It is then parsed
            // again, and refused as unreadable if it keeps changing.
            for _ in 0..PARSE_TRIES {
                #[cfg(debug_assertions)]
                PARSES.with(|count| count.set(count.get() + 1));
                let mut sink = PySink { py, error: None };
                match self.inner.parse(&node, &mut sink) {
                    Ok(Some(out)) => {
                        return match sink.error {
                            Some(error) => Err(error),
                            None => Ok(out),
                        };
                    }
                    Ok(None) => {
                        // The report reads the input as `is_valid` does, through borrowed
                        // pointers (sound with the GIL, see `PyView`): the walk runs no Python
                        // code and keeps only Rust data. The free-threaded build holds
                        // references. `explain` keeps the held walk; a law checks both give the
                        // same report.
                        #[cfg(not(Py_GIL_DISABLED))]
                        let faults = self.inner.explain(&PyView::new(value), Vec::new());
                        #[cfg(Py_GIL_DISABLED)]
                        let faults = self.inner.explain(&node, Vec::new());
                        if !faults.is_empty() {
                            let report = Bound::new(py, PyFaultReport { faults })?;
                            return Err(parse_error(py, report.into_any()));
                        }
                    }
                    Err(error) => return Err(contract_error(py, &error)),
                }
            }
            Err(contract_error(
                py,
                &ContractError::unreadable("parse", "value", None),
            ))
        })
    }

    /// The faults of the value under the coercive reading; `[]` exactly when parse succeeds.
    #[pyo3(signature = (value, path = None))]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        path: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let prefix = prefix(path)?;
        shielded(py, "explain", || {
            let faults = self.inner.explain(&PyNode(value.clone()), prefix);
            convert::faults(py, &faults)
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Contract({})", self.shape(py)?.repr()?))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let class = py.get_type::<PyContract>();
        let args = PyTuple::new(py, [self.shape(py)?])?;
        PyTuple::new(py, [class.into_any(), args.into_any()])
    }
}
