//! `json_size`: the length of `json.dumps(value)` with its default options, measured by
//! walking the value instead of writing the text.

use orkestrel_core::text::pyjson::{float_repr_len, int_len, string_len};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::unicode::ptr_bytes;
use crate::value::{self, Base};

/// Containers nested deeper than this are left to `json.dumps`, which applies Python's own
/// recursion limit.
const DEPTH_LIMIT: usize = 512;

/// The walk reads borrowed pointers of the value it was given. With a GIL that is sound because
/// it holds the root (so every object reachable from it stays alive) and runs no Python code: it
/// only makes exact type checks and reads str, int and float contents, so nothing can change or
/// free a container while it is being read. On a free-threaded build it reads each list and dict
/// once, inside its critical section, as strong references kept until the walk ends
/// (`crate::hold`, through `crate::value`); tuples, strings and numbers never change.
struct Walk<'py> {
    /// The walk is attached to the interpreter for as long as it lives.
    py: Python<'py>,
    /// The containers being measured, innermost last: meeting one again is a cycle.
    open: Vec<*mut ffi::PyObject>,
}

/// A value this walk does not measure exactly: `json.dumps` decides (it may call user code on
/// a subclass, refuse a type, or find a cycle).
struct Unmeasured;

impl Walk<'_> {
    /// The size of a scalar (`quotes` is 2 for a key, which `json.dumps` quotes); `None` for a
    /// container, `Err` for anything unmeasured.
    ///
    /// # Safety
    /// `ptr` is live (see `Walk`) and `kind` is its [`value::exact`].
    #[inline(always)]
    unsafe fn scalar(
        ptr: *mut ffi::PyObject,
        kind: Base,
        quotes: usize,
    ) -> Result<Option<usize>, Unmeasured> {
        // SAFETY: as the caller promises; each read matches the exact type.
        unsafe {
            match kind {
                Base::Str => Ok(Some(string_len(&ptr_bytes(ptr)))),
                Base::None => Ok(Some(4 + quotes)),
                Base::Bool if ptr == ffi::Py_True() => Ok(Some(4 + quotes)),
                Base::Bool => Ok(Some(5 + quotes)),
                Base::Int => match value::small_int(ptr) {
                    Ok(n) => Ok(Some(int_len(n) + quotes)),
                    Err(_) => Err(Unmeasured),
                },
                Base::Float => Ok(Some(float_repr_len(value::float(ptr)) + quotes)),
                Base::Dict | Base::List | Base::Tuple => Ok(None),
                Base::Other => Err(Unmeasured),
            }
        }
    }

    /// The size of a key: a `str` as itself, a number, bool or None quoted.
    ///
    /// # Safety
    /// `key` is live (see `Walk`); `text` says it is known to be an exact `str`.
    #[inline(always)]
    unsafe fn key(key: *mut ffi::PyObject, text: bool) -> Result<usize, Unmeasured> {
        // SAFETY: as the caller promises.
        unsafe {
            if text {
                return Ok(string_len(&ptr_bytes(key)));
            }
            Self::scalar(key, value::exact(key), 2)?.ok_or(Unmeasured)
        }
    }

    fn enter(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<(), Unmeasured> {
        if depth >= DEPTH_LIMIT || self.open.contains(&ptr) {
            return Err(Unmeasured);
        }
        self.open.push(ptr);
        Ok(())
    }

    fn value(&mut self, ptr: *mut ffi::PyObject, depth: usize) -> Result<usize, Unmeasured> {
        // SAFETY: `ptr` is live (see `Walk`), with the walk's scope open (`json_size`); an
        // exact list, tuple or dict has its items and entries read as `crate::value` says.
        unsafe {
            let kind = value::exact(ptr);
            match kind {
                Base::List | Base::Tuple => {
                    let items = value::items(self.py, ptr, kind == Base::List);
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
                Base::Dict => {
                    let count = value::entry_count(self.py, ptr);
                    if count == 0 {
                        return Ok(2);
                    }
                    self.enter(ptr, depth)?;
                    let mut size = 2 + 2 * (count - 1);
                    for (key, item, text) in value::entries(self.py, ptr) {
                        size += Self::key(key, text)? + 2 + self.value(item, depth + 1)?;
                    }
                    self.open.pop();
                    Ok(size)
                }
                _ => Self::scalar(ptr, kind, 0)?.ok_or(Unmeasured),
            }
        }
    }
}

/// The length of `json.dumps(value)` with its default options, or `None` when the value holds
/// something only `json.dumps` can judge: a subclass of a built-in type, a type it refuses, an
/// integer beyond 64 bits, a cycle, or nesting deeper than 512 containers.
#[pyfunction]
pub fn json_size(value: &Bound<'_, PyAny>) -> Option<usize> {
    let _scope = crate::hold::Scope::open(value.py());
    let mut walk = Walk {
        py: value.py(),
        open: Vec::new(),
    };
    walk.value(value.as_ptr(), 0).ok()
}
