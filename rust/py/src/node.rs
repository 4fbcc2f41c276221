//! `PyNode`: the core's value view over a live Python object. Exact built-in types are
//! recognised by type pointer; subclasses take a cold path. Reads go straight to object
//! storage, so no user code (`__eq__`, `__hash__`, `__len__`, `__str__`…) ever runs.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::os::raw::c_int;
use std::ptr::addr_of_mut;

use orkestrel_core::value::{EntriesError, Entry, Kind, Node, Unreadable, View};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::critical_section::with_critical_section;

use crate::infer::dict::Table;

/// A Python object seen as a JSON-like value.
#[derive(Clone)]
pub struct PyNode<'py>(pub Bound<'py, PyAny>);

/// The bytes of a compact ASCII `str` (the usual kind), read inline; `None` for other kinds.
///
/// # Safety
/// `ptr` is a live `str` (or subclass), and the slice is used only while it stays alive.
#[inline]
pub unsafe fn ascii_bytes<'a>(ptr: *mut ffi::PyObject) -> Option<&'a [u8]> {
    #[cfg(not(any(Py_3_14, Py_LIMITED_API, PyPy, GraalPy)))]
    // SAFETY: a compact ASCII str stores its characters, which are its UTF-8, inline.
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(ptr) != 0 {
            let len = usize::try_from(ffi::PyUnicode_GET_LENGTH(ptr)).unwrap_or(0);
            let data = ffi::PyUnicode_DATA(ptr).cast::<u8>();
            return Some(std::slice::from_raw_parts(data, len));
        }
    }
    #[cfg(any(Py_3_14, Py_LIMITED_API, PyPy, GraalPy))]
    let _ = ptr;
    None
}

/// The WTF-8 bytes of a `str` (or subclass): UTF-8, with lone surrogates kept.
#[inline]
pub fn str_bytes<'a>(object: &'a Bound<'_, PyAny>) -> Cow<'a, [u8]> {
    // SAFETY: `object` is a live str that outlives the borrow.
    match unsafe { ascii_bytes(object.as_ptr()) } {
        Some(bytes) => Cow::Borrowed(bytes),
        None => str_bytes_slow(object),
    }
}

#[cold]
fn str_bytes_slow<'a>(object: &'a Bound<'_, PyAny>) -> Cow<'a, [u8]> {
    let ptr = object.as_ptr();
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `ptr` is a live str; the UTF-8 buffer is cached in it and lives as long as it.
    unsafe {
        let data = ffi::PyUnicode_AsUTF8AndSize(ptr, &mut size);
        if !data.is_null() {
            let len = usize::try_from(size).unwrap_or(0);
            return Cow::Borrowed(std::slice::from_raw_parts(data.cast::<u8>(), len));
        }
    }
    drop(PyErr::take(object.py()));
    let encoded = unsafe {
        ffi::PyUnicode_AsEncodedString(ptr, c"utf-8".as_ptr(), c"surrogatepass".as_ptr())
    };
    // SAFETY: a new reference or null.
    match unsafe { Bound::from_owned_ptr_or_opt(object.py(), encoded) } {
        Some(bytes) => {
            let bytes = unsafe {
                let data = ffi::PyBytes_AsString(bytes.as_ptr());
                let len = usize::try_from(ffi::PyBytes_Size(bytes.as_ptr())).unwrap_or(0);
                std::slice::from_raw_parts(data.cast::<u8>(), len).to_vec()
            };
            Cow::Owned(bytes)
        }
        None => {
            drop(PyErr::take(object.py()));
            Cow::Owned(Vec::new())
        }
    }
}

/// The number of entries of a dict, read inline where the layout is known.
#[inline]
pub fn dict_len(dict: *mut ffi::PyObject) -> ffi::Py_ssize_t {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
    // SAFETY: `dict` is a live dict (or subclass), whose layout starts with PyDictObject.
    unsafe {
        (*dict.cast::<ffi::PyDictObject>()).ma_used
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy))]
    // SAFETY: `dict` is a live dict.
    unsafe {
        ffi::PyDict_Size(dict)
    }
}

/// A dict's version tag, which every change to it moves; 0 where the layout is not known.
#[inline]
fn dict_version(dict: *mut ffi::PyObject) -> u64 {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_12)))]
    // SAFETY: `dict` is a live dict (or subclass), whose layout starts with PyDictObject.
    #[allow(deprecated)]
    unsafe {
        (*dict.cast::<ffi::PyDictObject>()).ma_version_tag
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_12))]
    {
        let _ = dict;
        0
    }
}

fn int_view(ptr: *mut ffi::PyObject) -> View<'static> {
    let mut overflow: c_int = 0;
    // SAFETY: `ptr` is a live int (or subclass); no user code runs for an int.
    let value = unsafe { ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow) };
    if overflow == 0 {
        return View::Int(value);
    }
    let double = unsafe { ffi::PyLong_AsDouble(ptr) };
    if double == -1.0 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        unsafe { ffi::PyErr_Clear() };
        return View::Float(f64::from(overflow) * f64::INFINITY);
    }
    View::Float(double)
}

impl<'py> PyNode<'py> {
    /// Visits a dict's entries from its storage, with strong references; a key that is not a
    /// `str` makes the value not a record, and a size change makes it unreadable.
    #[inline]
    fn walk<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(&Bound<'py, PyAny>, &PyNode<'py>) -> ControlFlow<()>,
    {
        let dict = self.0.as_ptr();
        // SAFETY: only dicts are records.
        if unsafe { ffi::PyDict_Check(dict) } == 0 {
            return Err(EntriesError::NotRecord);
        }
        let py = self.0.py();
        with_critical_section(&self.0, || {
            let size = dict_len(dict);
            let mut position: ffi::Py_ssize_t = 0;
            // SAFETY: `dict` is a live dict; the table is used only while the dict's version
            // tag shows it unchanged (checked after every visit, which may run a finalizer).
            let mut table = unsafe { Table::of(dict) };
            let version = dict_version(dict);
            loop {
                let (key, value) = match table {
                    // SAFETY: the dict is unchanged since the table was read (see above).
                    Some(table) => match unsafe { table.next(&mut position) } {
                        Some(entry) => entry,
                        None => break,
                    },
                    None => {
                        let mut key: *mut ffi::PyObject = std::ptr::null_mut();
                        let mut value: *mut ffi::PyObject = std::ptr::null_mut();
                        // SAFETY: PyDict_Next reads the dict's storage; the position is an
                        // entry index, as the table's is.
                        if unsafe { ffi::PyDict_Next(dict, &mut position, &mut key, &mut value) }
                            == 0
                        {
                            break;
                        }
                        (key, value)
                    }
                };
                // SAFETY: key and value are live entries of the dict; they are taken as new
                // references before anything else runs.
                let key = unsafe { Bound::from_borrowed_ptr(py, key) };
                let value = PyNode(unsafe { Bound::from_borrowed_ptr(py, value) });
                if unsafe { ffi::PyUnicode_Check(key.as_ptr()) } == 0 {
                    return Err(EntriesError::NotRecord);
                }
                let flow = visit(&key, &value);
                // Every change moves the version, so while it stands the size does too.
                if table.is_none() || dict_version(dict) != version {
                    if dict_len(dict) != size {
                        return Err(EntriesError::Unreadable);
                    }
                    // Changed in place (a finalizer, say): go on as `PyDict_Next` reads it.
                    table = None;
                }
                if flow.is_break() {
                    break;
                }
            }
            Ok(())
        })
    }

    #[cold]
    fn subclass_view(&self) -> View<'_> {
        let ptr = self.0.as_ptr();
        // SAFETY: type checks on a live object.
        unsafe {
            if ffi::PyUnicode_Check(ptr) != 0 {
                View::Str(str_bytes(&self.0))
            } else if ffi::PyLong_Check(ptr) != 0 {
                int_view(ptr)
            } else if ffi::PyFloat_Check(ptr) != 0 {
                View::Float(ffi::PyFloat_AS_DOUBLE(ptr))
            } else if ffi::PyDict_Check(ptr) != 0 {
                View::Object
            } else if ffi::PyList_Check(ptr) != 0 {
                View::Array
            } else if ffi::PyCallable_Check(ptr) != 0 {
                View::Other("function")
            } else {
                View::Other("object")
            }
        }
    }
}

impl<'py> Node for PyNode<'py> {
    type Key = Bound<'py, PyAny>;

    #[inline]
    fn view(&self) -> View<'_> {
        let ptr = self.0.as_ptr();
        // SAFETY: comparing the type pointer of a live object with the built-in types.
        unsafe {
            let ty = ffi::Py_TYPE(ptr);
            if ty == addr_of_mut!(ffi::PyUnicode_Type) {
                View::Str(str_bytes(&self.0))
            } else if ty == addr_of_mut!(ffi::PyDict_Type) {
                View::Object
            } else if ty == addr_of_mut!(ffi::PyLong_Type) {
                int_view(ptr)
            } else if ty == addr_of_mut!(ffi::PyList_Type) {
                View::Array
            } else if ty == addr_of_mut!(ffi::PyFloat_Type) {
                View::Float(ffi::PyFloat_AS_DOUBLE(ptr))
            } else if ty == addr_of_mut!(ffi::PyBool_Type) {
                View::Bool(ptr == ffi::Py_True())
            } else if ptr == ffi::Py_None() {
                View::Null
            } else {
                self.subclass_view()
            }
        }
    }

    #[inline]
    fn kind(&self) -> Kind {
        let ptr = self.0.as_ptr();
        // SAFETY: type checks on a live object.
        unsafe {
            let ty = ffi::Py_TYPE(ptr);
            if ty == addr_of_mut!(ffi::PyUnicode_Type) {
                Kind::Str
            } else if ty == addr_of_mut!(ffi::PyDict_Type) {
                Kind::Object
            } else if ty == addr_of_mut!(ffi::PyLong_Type) || ty == addr_of_mut!(ffi::PyFloat_Type)
            {
                Kind::Number
            } else if ty == addr_of_mut!(ffi::PyList_Type) {
                Kind::Array
            } else if ty == addr_of_mut!(ffi::PyBool_Type) {
                Kind::Bool
            } else if ptr == ffi::Py_None() {
                Kind::Null
            } else {
                Kind::of(&self.subclass_view())
            }
        }
    }

    fn identity(&self) -> usize {
        self.0.as_ptr() as usize
    }

    fn utf16_len(&self) -> usize {
        let ptr = self.0.as_ptr();
        // SAFETY: `ptr` is a str when the core asks; compact kinds 1 and 2 hold no astral
        // characters, so their code point count is their UTF-16 length.
        unsafe {
            if ffi::PyUnicode_Check(ptr) == 0 {
                return 0;
            }
            if ffi::PyUnicode_KIND(ptr) != ffi::PyUnicode_4BYTE_KIND {
                return usize::try_from(ffi::PyUnicode_GET_LENGTH(ptr)).unwrap_or(0);
            }
        }
        orkestrel_core::text::utf16_len(&str_bytes(&self.0))
    }

    fn len(&self) -> Result<usize, Unreadable> {
        // SAFETY: only lists are arrays.
        unsafe {
            if ffi::PyList_Check(self.0.as_ptr()) == 0 {
                return Err(Unreadable);
            }
            usize::try_from(ffi::PyList_GET_SIZE(self.0.as_ptr())).map_err(|_| Unreadable)
        }
    }

    #[inline]
    fn item(&self, index: usize) -> Result<Self, Unreadable> {
        let list = self.0.as_ptr();
        let at = ffi::Py_ssize_t::try_from(index).map_err(|_| Unreadable)?;
        let py = self.0.py();
        // SAFETY: a bounds-checked read of a list's storage; the item is taken as a new
        // reference at once.
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
            Ok(PyNode(Bound::from_borrowed_ptr(py, item)))
        }
    }

    fn entry_count(&self) -> usize {
        // SAFETY: a type check on a live object.
        if unsafe { ffi::PyDict_Check(self.0.as_ptr()) } == 0 {
            return 0;
        }
        usize::try_from(dict_len(self.0.as_ptr())).unwrap_or(0)
    }

    fn entries<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(Entry<'_, Self>) -> ControlFlow<()>,
    {
        self.walk(|key, value| {
            let text = str_bytes(key);
            visit(Entry {
                key,
                text: &text,
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
