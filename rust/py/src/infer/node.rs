//! [`Source`] over live Python objects, read in place through the C API.
//!
//! Safety: a walk is attached to the interpreter (a `Python` token), inside a
//! [`crate::hold::Scope`], and runs no Python code. With a GIL it only borrows references owned
//! by the root object, which nothing can change or free while it runs. On a free-threaded build
//! it reads each list and dict once, inside that object's critical section, as strong
//! references the scope keeps until the walk ends (`crate::hold`); tuples, strings and numbers
//! never change. Either way every pointer it holds is to a live object, unchanged for the walk.

use std::borrow::Cow;
use std::marker::PhantomData;

use orkestrel_core::infer::{leaf_of, Format, Kind, NumberClass, Source};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use crate::dict::{dict_len, prefetch, Cursor, Table};
use crate::unicode::ptr_bytes;

/// The `datetime` classes, looked up once per interpreter.
struct Temporal {
    datetime: Py<PyType>,
    date: Py<PyType>,
    time: Py<PyType>,
}

static TEMPORAL: PyOnceLock<Temporal> = PyOnceLock::new();

/// Looks the `datetime` classes up ahead of any walk: importing runs Python code, which must
/// never happen while a walk holds borrowed pointers.
pub fn prepare(py: Python<'_>) {
    let _ = temporal(py);
}

fn temporal(py: Python<'_>) -> Option<&Temporal> {
    TEMPORAL
        .get_or_try_init(py, || -> PyResult<Temporal> {
            let module = py.import("datetime")?;
            Ok(Temporal {
                datetime: module.getattr("datetime")?.cast_into::<PyType>()?.unbind(),
                date: module.getattr("date")?.cast_into::<PyType>()?.unbind(),
                time: module.getattr("time")?.cast_into::<PyType>()?.unbind(),
            })
        })
        .ok()
}

/// A borrowed Python value.
#[derive(Clone, Copy)]
pub struct PyNode<'py> {
    obj: *mut ffi::PyObject,
    py: Python<'py>,
    _life: PhantomData<&'py ()>,
}

impl<'py> PyNode<'py> {
    /// Wraps a value kept alive by the caller for `'py`.
    pub fn new(value: &Bound<'py, PyAny>) -> PyNode<'py> {
        PyNode {
            obj: value.as_ptr(),
            py: value.py(),
            _life: PhantomData,
        }
    }

    /// Wraps a borrowed pointer.
    ///
    /// The caller guarantees `obj` is a live object kept alive for `'py` by a reference it holds.
    pub fn borrowed(py: Python<'py>, obj: *mut ffi::PyObject) -> PyNode<'py> {
        PyNode {
            obj,
            py,
            _life: PhantomData,
        }
    }

    fn at(self, obj: *mut ffi::PyObject) -> PyNode<'py> {
        PyNode { obj, ..self }
    }

    fn is(self, ty: *mut ffi::PyTypeObject) -> bool {
        // SAFETY: `obj` is a live object (see the module note).
        unsafe { ffi::Py_TYPE(self.obj) == ty }
    }

    fn subclass_of(self, ty: *mut ffi::PyTypeObject) -> bool {
        // SAFETY: both are live type objects.
        unsafe { ffi::PyType_IsSubtype(ffi::Py_TYPE(self.obj), ty) != 0 }
    }

    /// Classifies an int without converting small ones to a double.
    #[inline(always)]
    fn int_class(self) -> NumberClass {
        #[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy), not(GraalPy)))]
        {
            // SAFETY: `obj` is an int; on 3.11 (this branch only) an int is a `PyVarObject` whose
            // `ob_size` is its signed digit count, read directly: `ffi::Py_SIZE` debug-asserts that
            // its argument is not an int (true from 3.12) and would panic in a debug build. At most
            // 34 digits (of 15 or 30 bits) is below 2^1020: a finite double, so an integer.
            let size = unsafe { (*self.obj.cast::<ffi::PyVarObject>()).ob_size };
            if size.unsigned_abs() <= 34 {
                return NumberClass::Integer;
            }
        }
        self.int_class_slow()
    }

    #[cold]
    fn int_class_slow(self) -> NumberClass {
        // SAFETY: `obj` is an int; an overflow is reported through the flag, not an error.
        let small = unsafe {
            let mut overflow = 0;
            ffi::PyLong_AsLongLongAndOverflow(self.obj, &mut overflow);
            overflow == 0
        };
        if small {
            NumberClass::Integer
        } else {
            NumberClass::of(self.int_value())
        }
    }

    fn int_value(self) -> f64 {
        // SAFETY: `obj` is an int; an overflow sets an error we clear, and means ±Infinity.
        unsafe {
            let x = ffi::PyLong_AsDouble(self.obj);
            if x == -1.0 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return f64::INFINITY;
            }
            x
        }
    }

    fn slow_kind(self) -> Kind {
        // SAFETY: type checks on a live object.
        unsafe {
            if ffi::PyBool_Check(self.obj) != 0 {
                Kind::Boolean
            } else if ffi::PyUnicode_Check(self.obj) != 0 {
                Kind::String
            } else if ffi::PyLong_Check(self.obj) != 0 {
                Kind::Number(self.int_class())
            } else if ffi::PyFloat_Check(self.obj) != 0 {
                Kind::Number(NumberClass::of(ffi::PyFloat_AsDouble(self.obj)))
            } else if ffi::PyDict_Check(self.obj) != 0 {
                Kind::Object
            } else if ffi::PyList_Check(self.obj) != 0 || ffi::PyTuple_Check(self.obj) != 0 {
                Kind::Array
            } else {
                self.temporal_kind()
            }
        }
    }

    #[cold]
    fn slow_leaf(self) -> Option<u32> {
        leaf_of(self.slow_kind())
    }

    fn temporal_kind(self) -> Kind {
        let Some(t) = TEMPORAL.get(self.py) else {
            return Kind::Other;
        };
        let check = |ty: &Py<PyType>| self.subclass_of(ty.as_ptr().cast());
        if check(&t.datetime) {
            Kind::Temporal(Format::DateTime)
        } else if check(&t.date) {
            Kind::Temporal(Format::Date)
        } else if check(&t.time) {
            Kind::Temporal(Format::Time)
        } else {
            Kind::Other
        }
    }

    fn is_list(self) -> bool {
        // SAFETY: type check on a live object.
        unsafe { ffi::PyList_Check(self.obj) != 0 }
    }
}

/// The UTF-8 text of a `str`; lone surrogates are kept as WTF-8.
#[inline]
fn utf8<'py>(obj: *mut ffi::PyObject) -> Cow<'py, [u8]> {
    // SAFETY: `obj` is a live `str` kept alive for the walk (see the module note); a `str`
    // never changes, and CPython fills its UTF-8 cache under its own lock where there is no GIL.
    unsafe { ptr_bytes(obj) }
}

/// Elements of a list or tuple.
pub struct Items<'py> {
    node: PyNode<'py>,
    list: bool,
    at: isize,
    len: isize,
    /// A list's items as the walk's scope holds them (free-threaded builds only).
    #[cfg(Py_GIL_DISABLED)]
    held: *const *mut ffi::PyObject,
}

impl Items<'_> {
    fn get(&self, at: isize) -> *mut ffi::PyObject {
        #[cfg(Py_GIL_DISABLED)]
        if self.list {
            // SAFETY: `at` is below the snapshot's length, and the snapshot lasts until the
            // walk's scope ends (module note).
            return unsafe { *self.held.add(at as usize) };
        }
        // SAFETY: callers keep `at` in bounds. With a GIL the container cannot change during
        // the walk, which runs no Python code; without one only tuples are read here, and a
        // tuple never changes (module note).
        unsafe {
            if self.list {
                ffi::PyList_GET_ITEM(self.node.obj, at)
            } else {
                ffi::PyTuple_GET_ITEM(self.node.obj, at)
            }
        }
    }
}

impl<'py> Iterator for Items<'py> {
    type Item = PyNode<'py>;

    fn next(&mut self) -> Option<PyNode<'py>> {
        if self.at >= self.len {
            return None;
        }
        let item = self.get(self.at);
        self.at += 1;
        if self.at < self.len {
            prefetch(self.get(self.at));
        }
        Some(self.node.at(item))
    }
}

/// Entries of a dict (subclasses are read through the dict storage, like `json.dumps`).
pub struct Entries<'py> {
    node: PyNode<'py>,
    /// The dict's table, or no entries when it is read through `PyDict_Next`.
    cursor: Cursor,
    /// Every key in the table is an exact `str` (a unicode-kind table).
    unicode: bool,
    /// No table: entries come from `PyDict_Next`.
    fallback: bool,
    pos: ffi::Py_ssize_t,
    ahead: Option<(*mut ffi::PyObject, *mut ffi::PyObject)>,
    /// The dict's entries as the walk's scope holds them (free-threaded builds only).
    #[cfg(Py_GIL_DISABLED)]
    held: *const (*mut ffi::PyObject, *mut ffi::PyObject),
    #[cfg(Py_GIL_DISABLED)]
    count: ffi::Py_ssize_t,
}

impl Entries<'_> {
    /// The next entry of the snapshot, with its value's header prefetched.
    #[cfg(Py_GIL_DISABLED)]
    fn pull(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        if self.pos >= self.count {
            return None;
        }
        // SAFETY: `pos` is below the snapshot's length, and the snapshot lasts until the walk's
        // scope ends (module note).
        let (key, value) = unsafe { *self.held.add(self.pos as usize) };
        self.pos += 1;
        prefetch(value);
        Some((key, value))
    }

    /// The next entry from `PyDict_Next`, with its value's header prefetched.
    #[cfg(not(Py_GIL_DISABLED))]
    fn pull(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: `obj` is a live dict that cannot change during the walk: the GIL is held and no
        // Python code runs (free-threaded builds read the snapshot instead).
        let more = unsafe { ffi::PyDict_Next(self.node.obj, &mut self.pos, &mut key, &mut value) };
        if more == 0 {
            return None;
        }
        prefetch(value);
        Some((key, value))
    }
}

/// A `str` key of a dict being walked.
#[derive(Clone, Copy)]
pub struct Key(*mut ffi::PyObject);

impl<'py> Iterator for Entries<'py> {
    type Item = (Option<Key>, PyNode<'py>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // SAFETY: the cursor was read from this dict, which cannot change during the walk (a
        // cursor is only read on CPython 3.11, which has a GIL; elsewhere it is empty).
        let (key, value) = match unsafe { self.cursor.next() } {
            // A unicode-kind table holds exact `str` keys only.
            Some((key, value)) if self.unicode => {
                return Some((Some(Key(key)), self.node.at(value)))
            }
            Some(entry) => entry,
            None if !self.fallback => return None,
            None => {
                let entry = match self.ahead.take() {
                    Some(entry) => entry,
                    None => self.pull()?,
                };
                self.ahead = self.pull();
                entry
            }
        };
        // SAFETY: `key` is a borrowed, live object.
        let key = (unsafe { ffi::PyUnicode_Check(key) } != 0).then_some(Key(key));
        Some((key, self.node.at(value)))
    }
}

impl<'py> Source<'py> for PyNode<'py> {
    type Items = Items<'py>;
    type Key = Key;
    type Entries = Entries<'py>;

    const KEY_IDENTITIES: bool = true;

    fn key_text(key: Key) -> Cow<'py, [u8]> {
        utf8(key.0)
    }

    /// The key object's address. A `str` never changes, and while an epoch lasts every sample
    /// walked in it is alive (`Accumulator::add_all` is only given the items of a list or tuple
    /// the caller holds), so no other key can take the address: one address is one text.
    #[inline]
    fn key_identity(key: Key) -> usize {
        key.0 as usize
    }

    #[inline(always)]
    fn kind(self) -> Kind {
        // SAFETY: exact type checks against the builtin types.
        unsafe {
            if self.is(&raw mut ffi::PyDict_Type) {
                Kind::Object
            } else if self.is(&raw mut ffi::PyUnicode_Type) {
                Kind::String
            } else if self.is(&raw mut ffi::PyLong_Type) {
                Kind::Number(self.int_class())
            } else if self.is(&raw mut ffi::PyList_Type) {
                Kind::Array
            } else if self.is(&raw mut ffi::PyFloat_Type) {
                Kind::Number(NumberClass::of(ffi::PyFloat_AS_DOUBLE(self.obj)))
            } else if self.obj == ffi::Py_None() {
                Kind::Null
            } else if self.is(&raw mut ffi::PyBool_Type) {
                Kind::Boolean
            } else if self.is(&raw mut ffi::PyTuple_Type) {
                Kind::Array
            } else {
                self.slow_kind()
            }
        }
    }

    /// [`leaf_of`] of [`PyNode::kind`], decided by branches: each arm's `leaf_of` folds to a
    /// constant, where a `match` on a built `Kind` compiles to a jump table that mispredicts as
    /// kinds alternate.
    #[inline(always)]
    fn leaf(self) -> Option<u32> {
        // SAFETY: exact type checks against the builtin types.
        unsafe {
            if self.is(&raw mut ffi::PyDict_Type) || self.is(&raw mut ffi::PyList_Type) {
                None
            } else if self.is(&raw mut ffi::PyUnicode_Type) {
                leaf_of(Kind::String)
            } else if self.is(&raw mut ffi::PyLong_Type) {
                leaf_of(Kind::Number(self.int_class()))
            } else if self.obj == ffi::Py_None() {
                leaf_of(Kind::Null)
            } else if self.is(&raw mut ffi::PyBool_Type) {
                leaf_of(Kind::Boolean)
            } else if self.is(&raw mut ffi::PyFloat_Type) {
                leaf_of(Kind::Number(NumberClass::of(ffi::PyFloat_AS_DOUBLE(
                    self.obj,
                ))))
            } else {
                self.slow_leaf()
            }
        }
    }

    fn number(self) -> f64 {
        // SAFETY: `kind` said this is an int or a float (subclasses included).
        unsafe {
            if ffi::PyFloat_Check(self.obj) != 0 {
                ffi::PyFloat_AsDouble(self.obj)
            } else {
                self.int_value()
            }
        }
    }

    fn number_exact(self) -> bool {
        // SAFETY: `kind` said this is an int or a float; an overflow sets an error we clear.
        unsafe {
            if ffi::PyFloat_Check(self.obj) != 0 {
                return true;
            }
            let mut overflow = 0;
            let v = ffi::PyLong_AsLongLongAndOverflow(self.obj, &mut overflow);
            if overflow != 0 || (v == -1 && !ffi::PyErr_Occurred().is_null()) {
                ffi::PyErr_Clear();
                return false;
            }
            v.unsigned_abs() <= 1 << 53
        }
    }

    fn text(self) -> Cow<'py, [u8]> {
        utf8(self.obj)
    }

    fn len(self) -> usize {
        #[cfg(Py_GIL_DISABLED)]
        // SAFETY: `kind` said this is a dict, list or tuple, live for the walk; its length is
        // the snapshot's, which the walk's items and entries give (module note).
        unsafe {
            if ffi::PyDict_Check(self.obj) != 0 {
                return crate::hold::dict_entries(self.py, self.obj).1;
            } else if self.is_list() {
                return crate::hold::list_items(self.py, self.obj).1;
            }
        }
        // SAFETY: `kind` said this is a dict, list or tuple.
        let n = unsafe {
            if ffi::PyDict_Check(self.obj) != 0 {
                dict_len(self.obj)
            } else if self.is_list() {
                ffi::PyList_GET_SIZE(self.obj)
            } else {
                ffi::PyTuple_GET_SIZE(self.obj)
            }
        };
        n.max(0) as usize
    }

    fn items(self) -> Items<'py> {
        #[cfg(Py_GIL_DISABLED)]
        if self.is_list() {
            // SAFETY: `kind` said this is a list, live for the walk (module note).
            let (held, len) = unsafe { crate::hold::list_items(self.py, self.obj) };
            return Items {
                node: self,
                list: true,
                at: 0,
                len: len as isize,
                held,
            };
        }
        Items {
            node: self,
            list: self.is_list(),
            at: 0,
            len: self.len() as isize,
            #[cfg(Py_GIL_DISABLED)]
            held: std::ptr::null(),
        }
    }

    fn entries(self) -> Entries<'py> {
        // SAFETY: `kind` said this is a dict, alive and unchanged for the walk (a table is only
        // read on CPython 3.11, which has a GIL).
        let table = unsafe { Table::of(self.obj) };
        #[cfg(Py_GIL_DISABLED)]
        // SAFETY: a live dict (module note).
        let (held, count) = unsafe { crate::hold::dict_entries(self.py, self.obj) };
        Entries {
            node: self,
            cursor: table.map_or_else(Cursor::empty, Cursor::of),
            unicode: table.is_some_and(Table::unicode),
            fallback: table.is_none(),
            pos: 0,
            ahead: None,
            #[cfg(Py_GIL_DISABLED)]
            held,
            #[cfg(Py_GIL_DISABLED)]
            count: count as ffi::Py_ssize_t,
        }
    }

    fn identity(self) -> Option<usize> {
        // SAFETY: reading the reference count of a live object. A count of one means only
        // the parent holds it, so it cannot be reached twice.
        let count = unsafe { ffi::Py_REFCNT(self.obj) };
        // On a free-threaded build the walk's own references (module note) are not counted: an
        // object is identified exactly when it would be with a GIL, and the revisit allowance
        // that bounds shared structure is the same.
        #[cfg(Py_GIL_DISABLED)]
        let count = count - crate::hold::held_count(self.obj);
        (count > 1).then_some(self.obj as usize)
    }

    fn duplicate_keys() -> bool {
        false
    }
}
