//! `json_size`: the length of `json.dumps(value)` with its default options, measured by
//! walking the value instead of writing the text.

use std::os::raw::c_int;

use orkestrel_core::text::pyjson::{float_repr_len, int_len, string_len};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::unicode::ptr_bytes;

/// Containers nested deeper than this are left to `json.dumps`, which applies Python's own
/// recursion limit.
const DEPTH_LIMIT: usize = 512;

/// The walk reads borrowed pointers of the value it was given. With a GIL that is sound because
/// it holds the root (so every object reachable from it stays alive) and runs no Python code: it
/// only makes exact type checks and reads str, int and float contents, so nothing can change or
/// free a container while it is being read. On a free-threaded build it reads each list and dict
/// once, inside its critical section, as strong references kept until the walk ends
/// (`crate::hold`); tuples, strings and numbers never change.
struct Walk<'py> {
    /// The walk is attached to the interpreter for as long as it lives.
    _attached: Python<'py>,
    /// The containers being measured, innermost last: meeting one again is a cycle.
    open: Vec<*mut ffi::PyObject>,
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

impl Walk<'_> {
    fn text(&self, ptr: *mut ffi::PyObject) -> usize {
        // SAFETY: `ptr` is a live exact str, kept alive for the walk (see `Walk`).
        string_len(&unsafe { ptr_bytes(ptr) })
    }

    /// The size of a scalar: `Ok(None)` for a container, `Err` for anything unmeasured.
    fn scalar(&self, ptr: *mut ffi::PyObject, quoted: bool) -> Result<Option<usize>, Unmeasured> {
        let quotes = if quoted { 2 } else { 0 };
        // SAFETY: exact type checks and reads on a live object.
        unsafe {
            if ffi::PyUnicode_CheckExact(ptr) != 0 {
                return Ok(Some(self.text(ptr)));
            }
            if ptr == ffi::Py_None() {
                return Ok(Some(4 + quotes));
            }
            if ptr == ffi::Py_True() {
                return Ok(Some(4 + quotes));
            }
            if ptr == ffi::Py_False() {
                return Ok(Some(5 + quotes));
            }
            if ffi::PyLong_CheckExact(ptr) != 0 {
                return exact_int(ptr).map(|n| Some(n + quotes));
            }
            if ffi::PyFloat_CheckExact(ptr) != 0 {
                return Ok(Some(float_repr_len(ffi::PyFloat_AS_DOUBLE(ptr)) + quotes));
            }
        }
        Ok(None)
    }

    fn enter(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<(), Unmeasured> {
        if depth >= DEPTH_LIMIT || self.open.contains(&ptr) {
            return Err(Unmeasured);
        }
        self.open.push(ptr);
        Ok(())
    }

    fn value(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<usize, Unmeasured> {
        if let Some(size) = self.scalar(ptr, false)? {
            return Ok(size);
        }
        // SAFETY: exact type checks and reads on a live object; the items and entries read are
        // borrowed from containers nothing can change during the walk (with a GIL; a tuple on
        // every build) or from the walk's snapshots (lists and dicts without one; see `Walk`).
        unsafe {
            let list = ffi::PyList_CheckExact(ptr) != 0;
            #[cfg(Py_GIL_DISABLED)]
            if list {
                return self.held_list(ptr, depth);
            }
            if list || ffi::PyTuple_CheckExact(ptr) != 0 {
                let count = if list {
                    ffi::PyList_Size(ptr)
                } else {
                    ffi::PyTuple_Size(ptr)
                };
                if count <= 0 {
                    return Ok(2);
                }
                self.enter(ptr, depth)?;
                let mut size = 2 + 2 * (count.unsigned_abs() - 1);
                for index in 0..count {
                    let item = if list {
                        ffi::PyList_GetItem(ptr, index)
                    } else {
                        ffi::PyTuple_GetItem(ptr, index)
                    };
                    size += self.value(item, depth + 1)?;
                }
                self.open.pop();
                return Ok(size);
            }
            #[cfg(Py_GIL_DISABLED)]
            if ffi::PyDict_CheckExact(ptr) != 0 {
                return self.held_dict(ptr, depth);
            }
            #[cfg(not(Py_GIL_DISABLED))]
            if ffi::PyDict_CheckExact(ptr) != 0 {
                let count = ffi::PyDict_Size(ptr);
                if count <= 0 {
                    return Ok(2);
                }
                self.enter(ptr, depth)?;
                let mut size = 2 + 2 * (count.unsigned_abs() - 1);
                let mut position: ffi::Py_ssize_t = 0;
                let mut key: *mut ffi::PyObject = std::ptr::null_mut();
                let mut item: *mut ffi::PyObject = std::ptr::null_mut();
                while ffi::PyDict_Next(ptr, &mut position, &mut key, &mut item) != 0 {
                    let key = self.scalar(key, true)?.ok_or(Unmeasured)?;
                    size += key + 2 + self.value(item, depth + 1)?;
                }
                self.open.pop();
                return Ok(size);
            }
        }
        Err(Unmeasured)
    }
}

/// The free-threaded reads of lists and dicts: from the snapshots the walk's scope holds.
#[cfg(Py_GIL_DISABLED)]
impl Walk<'_> {
    /// The size of a live exact list.
    fn held_list(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<usize, Unmeasured> {
        // SAFETY: a live list, with the walk's scope open (`json_size`); the snapshot lasts
        // until the scope ends, after the walk.
        let items = unsafe {
            let (items, len) = crate::hold::list_items(self._attached, ptr);
            std::slice::from_raw_parts(items, len)
        };
        if items.is_empty() {
            return Ok(2);
        }
        self.enter(ptr, depth)?;
        let mut size = 2 + 2 * (items.len() - 1);
        for &item in items {
            size += self.value(item, depth + 1)?;
        }
        self.open.pop();
        Ok(size)
    }

    /// The size of a live exact dict.
    fn held_dict(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<usize, Unmeasured> {
        // SAFETY: as in `held_list`, for a live dict.
        let entries = unsafe {
            let (entries, len) = crate::hold::dict_entries(self._attached, ptr);
            std::slice::from_raw_parts(entries, len)
        };
        if entries.is_empty() {
            return Ok(2);
        }
        self.enter(ptr, depth)?;
        let mut size = 2 + 2 * (entries.len() - 1);
        for &(key, item) in entries {
            let key = self.scalar(key, true)?.ok_or(Unmeasured)?;
            size += key + 2 + self.value(item, depth + 1)?;
        }
        self.open.pop();
        Ok(size)
    }
}

/// The length of `json.dumps(value)` with its default options, or `None` when the value holds
/// something only `json.dumps` can judge: a subclass of a built-in type, a type it refuses, an
/// integer beyond 64 bits, a cycle, or nesting deeper than 512 containers.
#[pyfunction]
pub fn json_size(value: &Bound<'_, PyAny>) -> Option<usize> {
    let _scope = crate::hold::Scope::open(value.py());
    let mut walk = Walk {
        _attached: value.py(),
        open: Vec::new(),
    };
    walk.value(value.as_ptr(), 0).ok()
}
