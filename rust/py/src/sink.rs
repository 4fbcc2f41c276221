//! `PySink`: builds parse output as Python objects, reusing every exactly valid leaf.

use orkestrel_core::contract::Sink;
use orkestrel_core::value::{Node, View};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList};
use pyo3::IntoPyObjectExt;

use crate::convert::{integral, text};
use crate::node::{str_bytes, PyNode};

/// Parse output under construction; the first failure to allocate is kept and reported.
pub struct PySink<'py> {
    pub py: Python<'py>,
    pub error: Option<PyErr>,
}

impl<'py> PySink<'py> {
    fn settle(&mut self, made: PyResult<Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
        made.unwrap_or_else(|error| {
            self.error.get_or_insert(error);
            self.py.None().into_bound(self.py)
        })
    }
}

impl<'py> Sink<PyNode<'py>> for PySink<'py> {
    type Out = Bound<'py, PyAny>;

    fn keep(&mut self, node: &PyNode<'py>) -> Self::Out {
        node.0.clone()
    }

    fn string(&mut self, bytes: &[u8]) -> Self::Out {
        let made = text(self.py, bytes);
        self.settle(made)
    }

    fn number(&mut self, value: f64, integer: bool) -> Self::Out {
        if integer {
            let made = integral(self.py, value);
            self.settle(made)
        } else {
            PyFloat::new(self.py, value).into_any()
        }
    }

    fn plain(&mut self, node: &PyNode<'py>) -> Self::Out {
        // SAFETY: type checks on a live object.
        let ptr = node.0.as_ptr();
        let exact = unsafe {
            ffi::PyUnicode_CheckExact(ptr) != 0
                || ffi::PyLong_CheckExact(ptr) != 0
                || ffi::PyFloat_CheckExact(ptr) != 0
        };
        if exact {
            return node.0.clone();
        }
        let made = match node.view() {
            View::Str(bytes) => text(self.py, &bytes),
            View::Int(i) => i.into_bound_py_any(self.py),
            View::Float(f) if unsafe { ffi::PyFloat_Check(ptr) } != 0 => {
                Ok(PyFloat::new(self.py, f).into_any())
            }
            _ => Ok(node.0.clone()),
        };
        self.settle(made)
    }

    fn boolean(&mut self, value: bool) -> Self::Out {
        PyBool::new(self.py, value).to_owned().into_any()
    }

    fn array(&mut self, items: Vec<Self::Out>) -> Self::Out {
        let made = PyList::new(self.py, items).map(Bound::into_any);
        self.settle(made)
    }

    fn object(&mut self, entries: Vec<(Bound<'py, PyAny>, Self::Out)>) -> Self::Out {
        let dict = PyDict::new(self.py);
        for (key, value) in entries {
            // A key of a str subclass is rebuilt as a plain str so that storing it runs no
            // user `__hash__` or `__eq__`.
            // SAFETY: a type check on a live object.
            let exact = unsafe { ffi::PyUnicode_CheckExact(key.as_ptr()) } != 0;
            let key = if exact {
                Ok(key)
            } else {
                text(self.py, &str_bytes(&key))
            };
            if let Err(error) = key.and_then(|key| dict.set_item(key, value)) {
                self.error.get_or_insert(error);
            }
        }
        dict.into_any()
    }
}
