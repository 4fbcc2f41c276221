//! `PyNode`: the core's value view over a live Python object. Exact built-in types are
//! recognised by type pointer; subclasses take a cold path. Reads go straight to object
//! storage, so no user code (`__eq__`, `__hash__`, `__len__`, `__str__`…) ever runs.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::Mutex;

use orkestrel_core::value::{EntriesError, Entry, Kind, Node, Unreadable, View};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::critical_section::with_critical_section;

use crate::dict::{dict_len, dict_version, TAGGED};
use crate::unicode::{ptr_bytes, str_bytes};
use crate::value::{self, Base};

/// A Python object seen as a JSON-like value.
#[derive(Clone)]
pub struct PyNode<'py>(pub Bound<'py, PyAny>);

/// An int's (or subclass's) view: `Int` within 64 bits, else the nearest `Float` (±Infinity
/// past the double range).
///
/// # Safety
/// `ptr` is a live int (or subclass).
#[inline(always)]
unsafe fn int_view(ptr: *mut ffi::PyObject) -> View<'static> {
    // SAFETY: as the caller promises.
    unsafe {
        match value::small_int(ptr) {
            Ok(value) => View::Int(value),
            Err(sign) => {
                View::Float(value::int_double(ptr).unwrap_or(f64::from(sign) * f64::INFINITY))
            }
        }
    }
}

/// Visits a dict's entries from its storage as borrowed pointers; a key that is not a `str` makes
/// the value not a record. With `guarded`, the dict is checked after each visit, which may have run
/// Python code (a finalizer or a `gc.callbacks` hook started by an allocation): any change to it
/// makes it unreadable, so what the visits saw is one state of the dict, never keys from before a
/// change mixed with keys from after it. The check is the version tag where the interpreter keeps
/// one (3.11 to 3.13 with a GIL), else the size, and there the entries come from `PyDict_Next`, not
/// the table. Unguarded walks are for visits that run no Python code, so the dict cannot change
/// under them.
///
/// # Safety
/// `dict` is a live dict; `visit` gets live entries and must take its own references to
/// anything it keeps past its return, or (unguarded) run no Python code.
#[inline(always)]
unsafe fn walk_dict<F>(
    dict: *mut ffi::PyObject,
    guarded: bool,
    mut visit: F,
) -> Result<(), EntriesError>
where
    F: FnMut(*mut ffi::PyObject, *mut ffi::PyObject) -> ControlFlow<()>,
{
    // SAFETY: only dicts are records.
    if unsafe { ffi::PyDict_Check(dict) } == 0 {
        return Err(EntriesError::NotRecord);
    }
    let size = dict_len(dict);
    let version = dict_version(dict);
    // SAFETY: `dict` is a live dict. Guarded walks read its table only where the version tag
    // shows every change (`TAGGED`: 3.11 to 3.13 with a GIL) and stop at the first one, checked
    // after every visit, before the next entry is read; elsewhere they step with `PyDict_Next`,
    // which is sound across changes. Unguarded ones run no code that could change it.
    let entries = unsafe {
        if guarded && !TAGGED {
            value::stepwise(dict)
        } else {
            value::in_place(dict)
        }
    };
    for (key, value, text) in entries {
        // SAFETY: a type check on a live key (a unicode table's keys are exact `str`s).
        if !text && unsafe { ffi::PyUnicode_Check(key) } == 0 {
            return Err(EntriesError::NotRecord);
        }
        let flow = visit(key, value);
        // Every change moves the version; without one, only a size change is seen.
        if guarded && (dict_version(dict) != version || dict_len(dict) != size) {
            return Err(EntriesError::Unreadable);
        }
        if flow.is_break() {
            break;
        }
    }
    Ok(())
}

/// The value view of a live object, read from its storage.
///
/// # Safety
/// `ptr` is a live object that outlives `'a`.
#[inline(always)]
unsafe fn view_of<'a>(ptr: *mut ffi::PyObject) -> View<'a> {
    // SAFETY: a live object; each read matches its exact type.
    unsafe {
        match value::exact(ptr) {
            Base::Str => View::Str(ptr_bytes(ptr)),
            Base::Dict => View::Object,
            Base::Int => int_view(ptr),
            Base::List => View::Array,
            Base::Float => View::Float(value::float(ptr)),
            Base::Bool => View::Bool(ptr == ffi::Py_True()),
            Base::None => View::Null,
            Base::Tuple | Base::Other => subclass_view(ptr),
        }
    }
}

/// The view of a subclass of a built-in type, or of anything else: a tuple is no array.
///
/// # Safety
/// `ptr` is a live object that outlives `'a`.
#[cold]
unsafe fn subclass_view<'a>(ptr: *mut ffi::PyObject) -> View<'a> {
    // SAFETY: a live object; each read matches its type.
    unsafe {
        match value::subclass(ptr) {
            Base::Str => View::Str(ptr_bytes(ptr)),
            Base::Int => int_view(ptr),
            Base::Float => View::Float(value::float(ptr)),
            Base::Dict => View::Object,
            Base::List => View::Array,
            _ if ffi::PyCallable_Check(ptr) != 0 => View::Other("function"),
            _ => View::Other(type_name(ptr)),
        }
    }
}

/// The `tp_name` of a live object's type, read from the type object; `None` where the type
/// object cannot be read (the limited API).
///
/// # Safety
/// `ptr` is a live object, and the bytes are used before any Python code runs.
#[cfg(not(Py_LIMITED_API))]
unsafe fn tp_name<'a>(ptr: *mut ffi::PyObject) -> Option<&'a [u8]> {
    // SAFETY: a live object's type is live, and its `tp_name` is a C string while it is; the
    // caller copies it out before any Python code could rename the type.
    unsafe {
        let raw = (*ffi::Py_TYPE(ptr)).tp_name;
        (!raw.is_null()).then(|| std::ffi::CStr::from_ptr(raw).to_bytes())
    }
}

/// # Safety
/// Nothing is read.
#[cfg(Py_LIMITED_API)]
unsafe fn tp_name<'a>(_ptr: *mut ffi::PyObject) -> Option<&'a [u8]> {
    None
}

/// The most distinct type names [`type_name`] keeps; each is kept for the process's life.
const TYPE_NAMES: usize = 256;

/// The longest type name [`type_name`] keeps, in bytes; a longer one is cut.
const TYPE_NAME_BYTES: usize = 64;

static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// The name of a live object's Python type as `type(value).__name__` reads it (`tuple`,
/// `mappingproxy`, a class's own name), so a fault names what the caller passed. The view
/// holds it for good, so each distinct name is kept once, at most [`TYPE_NAMES`] of them; past
/// that, and for a name that is not UTF-8, it is `object`.
///
/// # Safety
/// `ptr` is a live object.
#[cold]
unsafe fn type_name(ptr: *mut ffi::PyObject) -> &'static str {
    // SAFETY: `ptr` is a live object.
    let Some(full) = (unsafe { tp_name(ptr) }) else {
        return "object";
    };
    let Ok(full) = std::str::from_utf8(full) else {
        return "object";
    };
    // A static type's `tp_name` carries its module (`decimal.Decimal`); `__name__` does not.
    let mut name = full.rsplit('.').next().unwrap_or(full);
    if name.len() > TYPE_NAME_BYTES {
        let mut end = TYPE_NAME_BYTES;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name = &name[..end];
    }
    let Ok(mut names) = NAMES.lock() else {
        return "object";
    };
    if let Some(kept) = names.iter().find(|kept| **kept == name) {
        return kept;
    }
    if names.len() >= TYPE_NAMES {
        return "object";
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.push(kept);
    kept
}

/// A live object as a finite double when it is a finite number.
///
/// # Safety
/// `ptr` is a live object.
#[inline(always)]
unsafe fn finite_of(ptr: *mut ffi::PyObject) -> Option<f64> {
    // SAFETY: a live object; each read matches its exact type.
    unsafe {
        let number = match value::exact(ptr) {
            Base::Float => value::float(ptr),
            Base::Int => return int_view(ptr).finite(),
            _ => return view_of(ptr).finite(),
        };
        Some(number).filter(|n| n.is_finite())
    }
}

/// The kind of a live object.
///
/// # Safety
/// `ptr` is a live object.
#[inline(always)]
unsafe fn kind_of(ptr: *mut ffi::PyObject) -> Kind {
    // SAFETY: a live object.
    unsafe {
        match value::exact(ptr) {
            Base::Str => Kind::Str,
            Base::Dict => Kind::Object,
            Base::Int | Base::Float => Kind::Number,
            Base::List => Kind::Array,
            Base::Bool => Kind::Bool,
            Base::None => Kind::Null,
            Base::Tuple | Base::Other => Kind::of(&subclass_view(ptr)),
        }
    }
}

/// The length of a live `str` in code points (Python's own `len`); 0 for other objects.
///
/// # Safety
/// `ptr` is a live object.
unsafe fn char_len_of(ptr: *mut ffi::PyObject) -> usize {
    // SAFETY: `ptr` is a live object; its length is read only when it is a str.
    unsafe {
        if ffi::PyUnicode_Check(ptr) == 0 {
            return 0;
        }
        usize::try_from(ffi::PyUnicode_GET_LENGTH(ptr)).unwrap_or(0)
    }
}

/// The length of a live list.
///
/// # Safety
/// `ptr` is a live object.
unsafe fn list_len(ptr: *mut ffi::PyObject) -> Result<usize, Unreadable> {
    // SAFETY: only lists are arrays.
    unsafe {
        if ffi::PyList_Check(ptr) == 0 {
            return Err(Unreadable);
        }
        // Another thread may resize the list on a free-threaded build: `PyList_Size` reads the
        // size atomically there.
        #[cfg(Py_GIL_DISABLED)]
        let size = ffi::PyList_Size(ptr);
        #[cfg(not(Py_GIL_DISABLED))]
        let size = ffi::PyList_GET_SIZE(ptr);
        usize::try_from(size).map_err(|_| Unreadable)
    }
}

/// A borrowed item of a live list, bounds-checked.
///
/// # Safety
/// `list` is a live object.
#[inline(always)]
unsafe fn list_item(
    py: Python<'_>,
    list: *mut ffi::PyObject,
    index: usize,
) -> Result<*mut ffi::PyObject, Unreadable> {
    let at = ffi::Py_ssize_t::try_from(index).map_err(|_| Unreadable)?;
    // SAFETY: a bounds-checked read of a list's storage.
    unsafe {
        if ffi::PyList_Check(list) == 0 || at >= ffi::PyList_GET_SIZE(list) {
            return Err(Unreadable);
        }
        #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_GIL_DISABLED)))]
        let item = ffi::PyList_GET_ITEM(list, at);
        #[cfg(any(Py_LIMITED_API, PyPy, GraalPy, Py_GIL_DISABLED))]
        let item = ffi::PyList_GetItem(list, at);
        if item.is_null() {
            drop(PyErr::take(py));
            return Err(Unreadable);
        }
        Ok(item)
    }
}

/// The number of entries of a live dict; 0 for other objects.
fn entry_count_of(ptr: *mut ffi::PyObject) -> usize {
    // SAFETY: a type check on a live object.
    if unsafe { ffi::PyDict_Check(ptr) } == 0 {
        return 0;
    }
    usize::try_from(dict_len(ptr)).unwrap_or(0)
}

impl<'py> PyNode<'py> {
    /// Visits a dict's entries from its storage, with strong references (see [`walk_dict`]).
    #[inline]
    fn walk<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(&Bound<'py, PyAny>, &PyNode<'py>) -> ControlFlow<()>,
    {
        let py = self.0.py();
        with_critical_section(&self.0, || {
            // SAFETY: a live dict, guarded; key and value are taken as new references
            // before anything else runs.
            unsafe {
                walk_dict(self.0.as_ptr(), true, |key, value| {
                    let key = Bound::from_borrowed_ptr(py, key);
                    let value = PyNode(Bound::from_borrowed_ptr(py, value));
                    visit(&key, &value)
                })
            }
        })
    }
}

impl<'py> Node for PyNode<'py> {
    type Key = Bound<'py, PyAny>;

    #[inline(always)]
    fn key_text<'k>(key: &'k Bound<'py, PyAny>) -> Cow<'k, [u8]> {
        str_bytes(key)
    }

    #[inline]
    fn view(&self) -> View<'_> {
        // SAFETY: a live object, borrowed for as long as the view.
        unsafe { view_of(self.0.as_ptr()) }
    }

    #[inline]
    fn kind(&self) -> Kind {
        // SAFETY: a live object.
        unsafe { kind_of(self.0.as_ptr()) }
    }

    #[inline]
    fn finite(&self) -> Option<f64> {
        // SAFETY: a live object.
        unsafe { finite_of(self.0.as_ptr()) }
    }

    fn identity(&self) -> usize {
        self.0.as_ptr() as usize
    }

    fn char_len(&self) -> usize {
        // SAFETY: a live object.
        unsafe { char_len_of(self.0.as_ptr()) }
    }

    fn len(&self) -> Result<usize, Unreadable> {
        // SAFETY: a live object.
        unsafe { list_len(self.0.as_ptr()) }
    }

    #[inline]
    fn item(&self, index: usize) -> Result<Self, Unreadable> {
        let py = self.0.py();
        #[cfg(not(Py_GIL_DISABLED))]
        // SAFETY: a live list; the item is taken as a new reference at once, under the GIL.
        unsafe {
            let item = list_item(py, self.0.as_ptr(), index)?;
            Ok(PyNode(Bound::from_borrowed_ptr(py, item)))
        }
        #[cfg(Py_GIL_DISABLED)]
        // SAFETY: a live object; `PyList_GetItemRef` takes the item as a new reference
        // atomically (another thread may change the list), or sets IndexError, taken here.
        unsafe {
            let list = self.0.as_ptr();
            let at = ffi::Py_ssize_t::try_from(index).map_err(|_| Unreadable)?;
            if ffi::PyList_Check(list) == 0 {
                return Err(Unreadable);
            }
            Bound::from_owned_ptr_or_err(py, ffi::PyList_GetItemRef(list, at))
                .map(PyNode)
                .map_err(|_| Unreadable)
        }
    }

    fn entry_count(&self) -> usize {
        entry_count_of(self.0.as_ptr())
    }

    fn entries<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(Entry<'_, Self>) -> ControlFlow<()>,
    {
        self.walk(|key, value| {
            visit(Entry {
                key,
                id: key.as_ptr() as usize,
                value,
            })
        })
    }

    fn values<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(&Self) -> ControlFlow<()>,
    {
        self.walk(|_, value| visit(value))
    }
}

/// A Python object seen as a JSON-like value through a borrowed pointer, for reads during
/// which no Python code runs (the strict guard): no reference count moves and no dict's
/// version is re-read.
///
/// Sound because such a read holds the GIL throughout and never calls into Python: values
/// are read from object storage with type checks only, and the reads that allocate (the
/// UTF-8 of a non-ASCII `str`, a huge `int` as a double) pause the cycle collector, so no
/// finalizer or `gc.callbacks` hook can run. So no container changes while it is read, and
/// every object reached stays owned by the container it was read from, back to the root,
/// which the caller owns for `'a`.
///
/// The free-threaded build has no such guard (another thread may change a container at any
/// time), so there the contract reads through [`PyNode`] only and this type goes unused.
#[derive(Clone, Copy)]
#[cfg_attr(Py_GIL_DISABLED, allow(dead_code))]
pub struct PyView<'a> {
    ptr: *mut ffi::PyObject,
    py: Python<'a>,
}

#[cfg_attr(Py_GIL_DISABLED, allow(dead_code))]
impl<'a> PyView<'a> {
    /// A view of `object`, for reads that run no Python code while it lives.
    pub fn new(object: &'a Bound<'_, PyAny>) -> PyView<'a> {
        PyView {
            ptr: object.as_ptr(),
            // SAFETY: `object` is attached to the interpreter for `'a`.
            py: unsafe { Python::assume_attached() },
        }
    }

    fn at(self, ptr: *mut ffi::PyObject) -> PyView<'a> {
        PyView { ptr, py: self.py }
    }
}

impl<'a> Node for PyView<'a> {
    type Key = PyView<'a>;

    #[inline(always)]
    fn key_text<'k>(key: &'k PyView<'a>) -> Cow<'k, [u8]> {
        // SAFETY: a key of a live dict, alive while the walk reads it (see the type's
        // documentation).
        unsafe { ptr_bytes(key.ptr) }
    }

    #[inline]
    fn view(&self) -> View<'_> {
        // SAFETY: a live object (see the type's documentation).
        unsafe { view_of(self.ptr) }
    }

    #[inline]
    fn kind(&self) -> Kind {
        // SAFETY: a live object.
        unsafe { kind_of(self.ptr) }
    }

    #[inline]
    fn finite(&self) -> Option<f64> {
        // SAFETY: a live object.
        unsafe { finite_of(self.ptr) }
    }

    fn identity(&self) -> usize {
        self.ptr as usize
    }

    fn char_len(&self) -> usize {
        // SAFETY: a live object.
        unsafe { char_len_of(self.ptr) }
    }

    fn len(&self) -> Result<usize, Unreadable> {
        // SAFETY: a live object.
        unsafe { list_len(self.ptr) }
    }

    #[inline]
    fn item(&self, index: usize) -> Result<Self, Unreadable> {
        // SAFETY: a live list; the item stays owned by it (see the type's documentation).
        unsafe { list_item(self.py, self.ptr, index).map(|item| self.at(item)) }
    }

    fn entry_count(&self) -> usize {
        entry_count_of(self.ptr)
    }

    #[inline]
    fn entries<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(Entry<'_, Self>) -> ControlFlow<()>,
    {
        // SAFETY: a live dict, walked unguarded: the visits run no Python code (see the
        // type's documentation), and the entries stay owned by the dict.
        unsafe {
            walk_dict(self.ptr, false, |key, value| {
                let key = self.at(key);
                let value = self.at(value);
                visit(Entry {
                    key: &key,
                    id: key.ptr as usize,
                    value: &value,
                })
            })
        }
    }

    #[inline]
    fn values<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(&Self) -> ControlFlow<()>,
    {
        // SAFETY: as in `entries`.
        unsafe { walk_dict(self.ptr, false, |_, value| visit(&self.at(value))) }
    }
}
