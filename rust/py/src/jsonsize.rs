//! `json_size`: the length of `json.dumps(value)` with its default options, measured by
//! walking the value instead of writing the text.

use std::collections::HashSet;
use std::os::raw::c_int;

use orkestrel_core::text::pyjson::{float_repr_len, int_len, string_len};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyTuple};

use crate::node::str_bytes;

/// Containers nested deeper than this are left to `json.dumps`, which applies Python's own
/// recursion limit.
const DEPTH_LIMIT: usize = 512;

struct Walk {
    open: HashSet<usize>,
}

/// A value this walk does not measure exactly: `json.dumps` decides (it may call user code on
/// a subclass, refuse a type, or find a cycle).
struct Unmeasured;

fn exact_int(ptr: *mut ffi::PyObject) -> Result<usize, Unmeasured> {
    let mut overflow: c_int = 0;
    // SAFETY: `ptr` is a live exact int; no user code runs.
    let value = unsafe { ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow) };
    if overflow != 0 {
        return Err(Unmeasured);
    }
    Ok(int_len(value))
}

impl Walk {
    fn key(&self, key: &Bound<'_, PyAny>) -> Result<usize, Unmeasured> {
        let ptr = key.as_ptr();
        // SAFETY: type checks on a live object.
        unsafe {
            if ffi::PyUnicode_CheckExact(ptr) != 0 {
                return Ok(string_len(&str_bytes(key)));
            }
            if key.is_none() {
                return Ok(6);
            }
            if ptr == ffi::Py_True() {
                return Ok(6);
            }
            if ptr == ffi::Py_False() {
                return Ok(7);
            }
            if ffi::PyLong_CheckExact(ptr) != 0 {
                return exact_int(ptr).map(|n| n + 2);
            }
            if ffi::PyFloat_CheckExact(ptr) != 0 {
                return Ok(float_repr_len(ffi::PyFloat_AS_DOUBLE(ptr)) + 2);
            }
        }
        Err(Unmeasured)
    }

    fn enter(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<usize, Unmeasured> {
        let id = ptr as usize;
        if depth >= DEPTH_LIMIT || !self.open.insert(id) {
            return Err(Unmeasured);
        }
        Ok(id)
    }

    fn value(&mut self, value: &Bound<'_, PyAny>, depth: usize) -> Result<usize, Unmeasured> {
        let ptr = value.as_ptr();
        // SAFETY: type checks on a live object.
        let (text, int, float, list, tuple, dict) = unsafe {
            (
                ffi::PyUnicode_CheckExact(ptr) != 0,
                ffi::PyLong_CheckExact(ptr) != 0,
                ffi::PyFloat_CheckExact(ptr) != 0,
                ffi::PyList_CheckExact(ptr) != 0,
                ffi::PyTuple_CheckExact(ptr) != 0,
                ffi::PyDict_CheckExact(ptr) != 0,
            )
        };
        if text {
            return Ok(string_len(&str_bytes(value)));
        }
        if value.is_none() {
            return Ok(4);
        }
        // SAFETY: the bool singletons are compared by address.
        unsafe {
            if ptr == ffi::Py_True() {
                return Ok(4);
            }
            if ptr == ffi::Py_False() {
                return Ok(5);
            }
        }
        if int {
            return exact_int(ptr);
        }
        if float {
            let number = value.cast::<PyFloat>().map_err(|_| Unmeasured)?.value();
            return Ok(float_repr_len(number));
        }
        if list || tuple {
            let items: Vec<Bound<'_, PyAny>> = if list {
                value
                    .cast::<PyList>()
                    .map_err(|_| Unmeasured)?
                    .iter()
                    .collect()
            } else {
                value
                    .cast::<PyTuple>()
                    .map_err(|_| Unmeasured)?
                    .iter()
                    .collect()
            };
            if items.is_empty() {
                return Ok(2);
            }
            let id = self.enter(ptr, depth)?;
            let mut size = 2 + 2 * (items.len() - 1);
            for item in &items {
                size += self.value(item, depth + 1)?;
            }
            self.open.remove(&id);
            return Ok(size);
        }
        if dict {
            let dict = value.cast::<PyDict>().map_err(|_| Unmeasured)?;
            let entries: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = dict.iter().collect();
            if entries.is_empty() {
                return Ok(2);
            }
            let id = self.enter(ptr, depth)?;
            let mut size = 2 + 2 * (entries.len() - 1);
            for (key, item) in &entries {
                size += self.key(key)? + 2 + self.value(item, depth + 1)?;
            }
            self.open.remove(&id);
            return Ok(size);
        }
        Err(Unmeasured)
    }
}

/// The length of `json.dumps(value)` with its default options, or `None` when the value holds
/// something only `json.dumps` can judge: a subclass of a built-in type, a type it refuses, an
/// integer beyond 64 bits, a cycle, or nesting deeper than 512 containers.
#[pyfunction]
pub fn json_size(value: &Bound<'_, PyAny>) -> Option<usize> {
    let mut walk = Walk {
        open: HashSet::new(),
    };
    walk.value(value, 0).ok()
}
