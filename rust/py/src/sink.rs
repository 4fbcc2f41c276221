//! `PySink`: builds parse output as Python objects, reusing every exactly valid leaf.

use orkestrel_core::contract::Sink;
use orkestrel_core::value::{Node, View};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyList};
use pyo3::IntoPyObjectExt;

use crate::convert::{integral, text};
use crate::node::{str_bytes, PyNode};

#[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
extern "C" {
    /// CPython's dict constructor with room for `minused` entries (exported by every 3.x).
    fn _PyDict_NewPresized(minused: ffi::Py_ssize_t) -> *mut ffi::PyObject;
}

/// A new dict with room for `len` entries, so filling it never resizes it.
fn presized(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyAny>> {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
    // SAFETY: returns a new reference or null with an exception set.
    unsafe {
        let size = ffi::Py_ssize_t::try_from(len).unwrap_or(0);
        Bound::from_owned_ptr_or_err(py, _PyDict_NewPresized(size))
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy))]
    {
        let _ = len;
        Ok(pyo3::types::PyDict::new(py).into_any())
    }
}

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

    fn object(
        &mut self,
        len: usize,
        entries: impl Iterator<Item = (Bound<'py, PyAny>, Self::Out)>,
    ) -> Self::Out {
        let dict = match presized(self.py, len) {
            Ok(dict) => dict,
            Err(error) => {
                self.error.get_or_insert(error);
                return self.py.None().into_bound(self.py);
            }
        };
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
            let stored = key.and_then(|key| {
                // SAFETY: a fresh dict and an exact str key: storing it runs no user code.
                let status =
                    unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) };
                if status == 0 {
                    Ok(())
                } else {
                    Err(PyErr::fetch(self.py))
                }
            });
            if let Err(error) = stored {
                self.error.get_or_insert(error);
            }
        }
        dict
    }
}
