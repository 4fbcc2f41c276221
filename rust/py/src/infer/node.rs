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

use crate::dict::{prefetch, UnicodeCursor};
use crate::unicode::ptr_bytes;
use crate::value::{self, Base};

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

    fn subclass_of(self, ty: *mut ffi::PyTypeObject) -> bool {
        // SAFETY: both are live type objects.
        unsafe { ffi::PyType_IsSubtype(ffi::Py_TYPE(self.obj), ty) != 0 }
    }

    /// Classifies an int without converting small ones to a double.
    #[inline(always)]
    fn int_class(self) -> NumberClass {
        #[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy), not(GraalPy)))]
        {
            // Kept here, not in `crate::value`: the inference's own fast path, which knows an
            // int is an integer from its digit count without reading it (a third of an int's
            // cost in the objects bench).
            // SAFETY: `obj` is an int; on 3.11 (this branch only) an int is a `PyVarObject` whose
            // `ob_size` is its signed digit count, read directly: `ffi::Py_SIZE` debug-asserts that
            // its argument is not an int (true from 3.12) and would panic in a debug build. At most
            // 34 digits (of 15 or 30 bits) is below 2^1020: a finite double, so an integer.
            let size = unsafe { (*self.obj.cast::<ffi::PyVarObject>()).ob_size };
            if size.unsigned_abs() <= 34 {
                return NumberClass::Integer;
            }
        }
        #[cfg(all(Py_3_12, not(any(Py_3_14, Py_LIMITED_API, PyPy, GraalPy))))]
        {
            // SAFETY: `obj` is an int (or subclass). On 3.12 and 3.13 (this branch only) an int
            // is `PyObject_HEAD` (`ffi::PyObject`) then `long_value.lv_tag`, a word holding its
            // digit count above the 3 sign/flag bits (`_PyLong_NON_SIZE_BITS`,
            // `cpython/longintrepr.h`). An int never changes once made, so the read races with
            // nothing, with a GIL or without (PyO3 builds free-threaded only from 3.14, which
            // this branch leaves to the call below). 34 digits at most is a finite double, as
            // on 3.11.
            let digits = unsafe { *self.obj.cast::<ffi::PyObject>().add(1).cast::<usize>() } >> 3;
            if digits <= 34 {
                return NumberClass::Integer;
            }
        }
        self.int_class_slow()
    }

    #[cold]
    fn int_class_slow(self) -> NumberClass {
        // SAFETY: `obj` is an int (module note).
        match unsafe { value::small_int(self.obj) } {
            Ok(_) => NumberClass::Integer,
            Err(_) => NumberClass::of(self.int_value()),
        }
    }

    /// An int's double; beyond the double range, +Infinity whatever the sign (a non-finite
    /// number to the inference either way).
    fn int_value(self) -> f64 {
        // SAFETY: `obj` is an int (module note).
        unsafe { value::int_double(self.obj) }.unwrap_or(f64::INFINITY)
    }

    /// The kind of a subclass of a built-in type, or of anything else.
    #[cold]
    fn slow_kind(self) -> Kind {
        // SAFETY: `obj` is a live object (module note).
        match unsafe { value::subclass(self.obj) } {
            Base::Bool => Kind::Boolean,
            Base::Str => Kind::String,
            Base::Int => Kind::Number(self.int_class()),
            // SAFETY: a float (or subclass).
            Base::Float => Kind::Number(NumberClass::of(unsafe { value::float(self.obj) })),
            Base::Dict => Kind::Object,
            Base::List | Base::Tuple => Kind::Array,
            Base::None => Kind::Null,
            Base::Other => self.temporal_kind(),
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

/// Elements of a list or tuple, read as `crate::value::items` says.
pub struct Items<'py> {
    node: PyNode<'py>,
    items: std::slice::Iter<'py, *mut ffi::PyObject>,
}

impl<'py> Iterator for Items<'py> {
    type Item = PyNode<'py>;

    #[inline]
    fn next(&mut self) -> Option<PyNode<'py>> {
        let item = *self.items.next()?;
        if let Some(&ahead) = self.items.as_slice().first() {
            prefetch(ahead);
        }
        Some(self.node.at(item))
    }
}

/// Entries of a dict (subclasses are read through the dict storage, like `json.dumps`), read
/// as `crate::value::entries` says.
pub struct Entries<'py> {
    node: PyNode<'py>,
    entries: value::Entries,
}

/// Entries of a dict whose table holds exact `str` keys only (see
/// [`crate::value::unicode_entries`]).
pub struct StringEntries<'py> {
    node: PyNode<'py>,
    cursor: UnicodeCursor,
}

impl<'py> Iterator for StringEntries<'py> {
    type Item = (Key, PyNode<'py>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // SAFETY: the cursor was read from this dict, live and unchanged for the walk (module
        // note).
        let (key, value) = unsafe { self.cursor.next() }?;
        Some((Key(key), self.node.at(value)))
    }
}

/// A `str` key of a dict being walked.
#[derive(Clone, Copy)]
pub struct Key(*mut ffi::PyObject);

impl<'py> Iterator for Entries<'py> {
    type Item = (Option<Key>, PyNode<'py>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (key, value, known) = self.entries.next()?;
        // SAFETY: `key` is a borrowed, live object (a unicode-kind table holds exact `str`
        // keys only, so a known key's type is not read).
        let text = known || unsafe { ffi::PyUnicode_Check(key) } != 0;
        Some((text.then_some(Key(key)), self.node.at(value)))
    }
}

impl<'py> Source<'py> for PyNode<'py> {
    type Items = Items<'py>;
    type Key = Key;
    type Entries = Entries<'py>;
    type StringEntries = StringEntries<'py>;

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
        // SAFETY: `obj` is a live object (module note); each read matches its type.
        unsafe {
            match value::exact(self.obj) {
                Base::Dict => Kind::Object,
                Base::Str => Kind::String,
                Base::Int => Kind::Number(self.int_class()),
                Base::List | Base::Tuple => Kind::Array,
                Base::Float => Kind::Number(NumberClass::of(value::float(self.obj))),
                Base::None => Kind::Null,
                Base::Bool => Kind::Boolean,
                Base::Other => self.slow_kind(),
            }
        }
    }

    /// [`leaf_of`] of [`PyNode::kind`], decided per type: each arm's `leaf_of` folds to a
    /// constant, where a `match` on a built `Kind` compiles to a jump table that mispredicts as
    /// kinds alternate.
    #[inline(always)]
    fn leaf(self) -> Option<u32> {
        // SAFETY: `obj` is a live object (module note); each read matches its type.
        unsafe {
            match value::exact(self.obj) {
                Base::Dict | Base::List => None,
                Base::Str => leaf_of(Kind::String),
                Base::Int => leaf_of(Kind::Number(self.int_class())),
                Base::None => leaf_of(Kind::Null),
                Base::Bool => leaf_of(Kind::Boolean),
                Base::Float => leaf_of(Kind::Number(NumberClass::of(value::float(self.obj)))),
                Base::Tuple | Base::Other => self.slow_leaf(),
            }
        }
    }

    fn number(self) -> f64 {
        // SAFETY: `kind` said this is an int or a float (subclasses included).
        unsafe {
            match value::base(self.obj) {
                Base::Float => value::float(self.obj),
                _ => self.int_value(),
            }
        }
    }

    fn number_exact(self) -> bool {
        // SAFETY: `kind` said this is an int or a float (subclasses included).
        unsafe {
            match value::base(self.obj) {
                Base::Float => true,
                _ => value::small_int(self.obj).is_ok_and(|v| v.unsigned_abs() <= 1 << 53),
            }
        }
    }

    fn text(self) -> Cow<'py, [u8]> {
        utf8(self.obj)
    }

    fn len(self) -> usize {
        // SAFETY: `kind` said this is a dict, list or tuple, live for the walk, inside its
        // scope; the length is the one its items or entries give (module note).
        unsafe {
            if ffi::PyDict_Check(self.obj) != 0 {
                value::entry_count(self.py, self.obj)
            } else {
                value::items(self.py, self.obj, self.is_list()).len()
            }
        }
    }

    fn items(self) -> Items<'py> {
        // SAFETY: `kind` said this is a list or tuple, live for the walk, inside its scope
        // (module note).
        let items = unsafe { value::items(self.py, self.obj, self.is_list()) };
        Items {
            node: self,
            items: items.iter(),
        }
    }

    fn entries(self) -> Entries<'py> {
        Entries {
            node: self,
            // SAFETY: `kind` said this is a dict, live for the walk, inside its scope (module
            // note).
            entries: unsafe { value::entries(self.py, self.obj) },
        }
    }

    #[inline(always)]
    fn string_entries(self) -> Option<StringEntries<'py>> {
        // SAFETY: `kind` said this is a dict, live for the walk, inside its scope (module note).
        let cursor = unsafe { value::unicode_entries(self.obj) }?;
        Some(StringEntries { node: self, cursor })
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
