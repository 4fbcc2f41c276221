//! What a Python value is and what it holds, read from its storage: the one dispatch on the
//! built-in types (str, dict, int, list, float, bool, None, tuple), the one read of an int,
//! and the one read of a list's or tuple's items and a dict's entries for the walks that hold
//! borrowed pointers. Every walk of Python values goes through here: the contract's nodes
//! (node.rs), the inference's (infer/node.rs), the parse sink (sink.rs), `json_size`
//! (jsonsize.rs) and the database tool's cell reads (query.rs). Text is read in unicode.rs,
//! a dict's storage in dict.rs, and the free-threaded snapshots are kept in hold.rs.
//!
//! Nothing here runs Python code: type checks compare type pointers or walk `tp_base`, and the
//! reads that allocate (a huge int's double, whose overflow error is made and cleared) pause
//! the cycle collector ([`without_collection`]), so no finalizer or `gc.callbacks` hook can
//! change a container a walk is reading.

use std::os::raw::c_int;
use std::ptr::addr_of_mut;

use pyo3::ffi;
use pyo3::prelude::*;

use crate::dict::{prefetch, Cursor, Table, UnicodeCursor};
use crate::unicode::without_collection;

/// The built-in type of a value, as the walks tell them apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Base {
    Dict,
    Str,
    Int,
    List,
    Float,
    None,
    Bool,
    Tuple,
    /// Any other type, or (from [`exact`]) a subclass of one of the above.
    Other,
}

/// The built-in type of a live object, by its exact type pointer: a subclass is `Other`.
///
/// The order is the inference's hot order (records, then their usual values); callers that
/// `match` on the answer compile to the same chain of compares, as the branches are inlined.
///
/// # Safety
/// `ptr` is a live object.
#[inline(always)]
pub unsafe fn exact(ptr: *mut ffi::PyObject) -> Base {
    // SAFETY: reading the type pointer of a live object and comparing it with the built-in
    // types' statics; `None` is a singleton of a type that cannot be subclassed.
    unsafe {
        let ty = ffi::Py_TYPE(ptr);
        if ty == addr_of_mut!(ffi::PyDict_Type) {
            Base::Dict
        } else if ty == addr_of_mut!(ffi::PyUnicode_Type) {
            Base::Str
        } else if ty == addr_of_mut!(ffi::PyLong_Type) {
            Base::Int
        } else if ty == addr_of_mut!(ffi::PyList_Type) {
            Base::List
        } else if ty == addr_of_mut!(ffi::PyFloat_Type) {
            Base::Float
        } else if ptr == ffi::Py_None() {
            Base::None
        } else if ty == addr_of_mut!(ffi::PyBool_Type) {
            Base::Bool
        } else if ty == addr_of_mut!(ffi::PyTuple_Type) {
            Base::Tuple
        } else {
            Base::Other
        }
    }
}

/// The built-in type a live object is an instance of, subclasses included; the cold path
/// after [`exact`] answered `Other`.
///
/// # Safety
/// `ptr` is a live object.
#[cold]
pub unsafe fn subclass(ptr: *mut ffi::PyObject) -> Base {
    // SAFETY: subtype checks on a live object read its type's flags and bases only. No type
    // is a subclass of two of these (their layouts conflict), so the order only saves work.
    unsafe {
        if ffi::PyUnicode_Check(ptr) != 0 {
            Base::Str
        } else if ffi::PyBool_Check(ptr) != 0 {
            Base::Bool
        } else if ffi::PyLong_Check(ptr) != 0 {
            Base::Int
        } else if ffi::PyFloat_Check(ptr) != 0 {
            Base::Float
        } else if ffi::PyDict_Check(ptr) != 0 {
            Base::Dict
        } else if ffi::PyList_Check(ptr) != 0 {
            Base::List
        } else if ffi::PyTuple_Check(ptr) != 0 {
            Base::Tuple
        } else if ptr == ffi::Py_None() {
            Base::None
        } else {
            Base::Other
        }
    }
}

/// The built-in type a live object is an instance of: [`exact`], then [`subclass`].
///
/// # Safety
/// `ptr` is a live object.
#[inline(always)]
pub unsafe fn base(ptr: *mut ffi::PyObject) -> Base {
    // SAFETY: as the caller promises.
    unsafe {
        match exact(ptr) {
            Base::Other => subclass(ptr),
            known => known,
        }
    }
}

/// [`base`] of a bound object.
#[inline]
pub fn base_of(object: &Bound<'_, PyAny>) -> Base {
    // SAFETY: a bound object is live.
    unsafe { base(object.as_ptr()) }
}

/// [`exact`] of a bound object.
#[inline]
pub fn exact_of(object: &Bound<'_, PyAny>) -> Base {
    // SAFETY: a bound object is live.
    unsafe { exact(object.as_ptr()) }
}

/// An int's value when it fits 64 bits, else the sign of its overflow (1 or -1).
///
/// # Safety
/// `ptr` is a live int (or subclass): its digits are read directly, no `__index__` runs, and
/// an overflow is reported through the flag, not an error.
#[inline(always)]
pub unsafe fn small_int(ptr: *mut ffi::PyObject) -> Result<i64, c_int> {
    let mut overflow: c_int = 0;
    // SAFETY: as the caller promises.
    let value = unsafe { ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow) };
    if overflow == 0 {
        Ok(value)
    } else {
        Err(overflow)
    }
}

/// An int as the nearest double; `None` past the double range. Kept out of line: only ints
/// beyond 64 bits come here.
///
/// # Safety
/// `ptr` is a live int (or subclass).
#[cold]
#[inline(never)]
pub unsafe fn int_double(ptr: *mut ffi::PyObject) -> Option<f64> {
    without_collection(|| {
        // SAFETY: as the caller promises; an overflow sets an error (an allocation, made with
        // the collector paused), cleared here by the attached caller.
        unsafe {
            let double = ffi::PyLong_AsDouble(ptr);
            if double == -1.0 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            Some(double)
        }
    })
}

/// A float's (or subclass's) double, read from its storage.
///
/// # Safety
/// `ptr` is a live float (or subclass).
#[inline(always)]
pub unsafe fn float(ptr: *mut ffi::PyObject) -> f64 {
    // SAFETY: as the caller promises.
    unsafe { ffi::PyFloat_AS_DOUBLE(ptr) }
}

/// The items of a live list or tuple as one state, for a walk that holds borrowed pointers.
///
/// With a GIL they are read in place: the walk runs no Python code, so the list cannot change
/// while it lasts. On a free-threaded build a list is read from the walk's snapshot
/// (`crate::hold`), its strong references kept until the walk's scope ends. A tuple never
/// changes and holds its items as long as it lives, on every build.
///
/// # Safety
/// `ptr` is a live list (`list`) or tuple, exactly or a subclass, kept alive for `'a` by the
/// caller or the walk's scope, a `hold::Scope` is open on a free-threaded build, and (with a
/// GIL) no Python code runs while the slice is used.
#[inline(always)]
pub unsafe fn items<'a>(
    py: Python<'_>,
    ptr: *mut ffi::PyObject,
    list: bool,
) -> &'a [*mut ffi::PyObject] {
    let _ = py;
    #[cfg(Py_GIL_DISABLED)]
    if list {
        // SAFETY: as the caller promises; the snapshot lasts until the scope ends.
        return unsafe {
            let (items, len) = crate::hold::list_items(py, ptr);
            std::slice::from_raw_parts(items, len)
        };
    }
    // SAFETY: a live list (read in place only with a GIL, see above) or tuple: `ob_item` holds
    // `size` live items. An empty list's `ob_item` may be null, so no slice is made from it.
    unsafe {
        let (start, size) = if list {
            let object = ptr.cast::<ffi::PyListObject>();
            ((*object).ob_item.cast_const(), ffi::PyList_GET_SIZE(ptr))
        } else {
            let object = ptr.cast::<ffi::PyTupleObject>();
            (
                (*object).ob_item.as_ptr().cast_mut().cast_const(),
                ffi::PyTuple_GET_SIZE(ptr),
            )
        };
        match usize::try_from(size) {
            Ok(len) if len > 0 && !start.is_null() => std::slice::from_raw_parts(start, len),
            _ => &[],
        }
    }
}

/// A dict entry as a borrowing walk reads it: key, value, and whether the key is known to be
/// an exact `str` without reading its type (it came from a unicode-kind table).
pub type Raw = (*mut ffi::PyObject, *mut ffi::PyObject, bool);

/// The entries of a live dict (or subclass), in order, for a walk that holds borrowed pointers:
/// from the table on CPython 3.11 to 3.15 with a GIL, else `PyDict_Next` (with the next entry read
/// ahead so its value's header can be prefetched) with a GIL, and from the walk's snapshot
/// (`crate::hold`) on a free-threaded build. Each entry's value header is prefetched.
pub struct Entries {
    dict: *mut ffi::PyObject,
    /// The dict's table, or no entries when it is read through `PyDict_Next`.
    cursor: Cursor,
    /// Every key in the table is an exact `str` (a unicode-kind table).
    unicode: bool,
    /// No table: entries come from `PyDict_Next` (or the snapshot).
    fallback: bool,
    pos: ffi::Py_ssize_t,
    /// Whether `PyDict_Next` may read one entry ahead: only where no Python code runs until
    /// the last entry is read ([`entries`]); a walk that checks the dict after each visit
    /// ([`in_place`]) must read each entry after the visits before it.
    read_ahead: bool,
    ahead: Option<(*mut ffi::PyObject, *mut ffi::PyObject)>,
    /// The dict's entries as the walk's scope holds them (free-threaded builds only; none when
    /// `count` is negative, read in place).
    #[cfg(Py_GIL_DISABLED)]
    held: *const (*mut ffi::PyObject, *mut ffi::PyObject),
    #[cfg(Py_GIL_DISABLED)]
    count: ffi::Py_ssize_t,
}

/// The entries of a live dict as one state (see [`Entries`]).
///
/// # Safety
/// `dict` is a live dict (or subclass), kept alive by the caller or the walk's scope for as
/// long as the entries are used, a `hold::Scope` is open on a free-threaded build, and (with a
/// GIL) no Python code runs until the last entry is read.
#[inline(always)]
pub unsafe fn entries(py: Python<'_>, dict: *mut ffi::PyObject) -> Entries {
    #[cfg(Py_GIL_DISABLED)]
    // SAFETY: a live dict, with the walk's scope open (as the caller promises).
    let (held, count) = unsafe { crate::hold::dict_entries(py, dict) };
    #[cfg(Py_GIL_DISABLED)]
    return Entries {
        held,
        count: count as ffi::Py_ssize_t,
        // SAFETY: as the caller promises.
        ..unsafe { in_place(dict) }
    };
    #[cfg(not(Py_GIL_DISABLED))]
    {
        let _ = py;
        Entries {
            read_ahead: true,
            // SAFETY: as the caller promises.
            ..unsafe { in_place(dict) }
        }
    }
}

/// The entries of a live dict (or subclass) as [`entries`] gives them, when it is read from a
/// unicode-kind table (every key an exact `str`); `None` otherwise (always on free-threaded
/// builds, which read a snapshot).
///
/// # Safety
/// As [`entries`].
#[inline(always)]
pub unsafe fn unicode_entries(dict: *mut ffi::PyObject) -> Option<UnicodeCursor> {
    // SAFETY: as the caller promises (a table is only read on CPython 3.11 to 3.15 built with
    // a GIL; see dict.rs).
    unsafe { Table::of(dict) }.and_then(UnicodeCursor::of)
}

/// The entries of a live dict (or subclass) read in place, from its table on CPython 3.11 to 3.15
/// (GIL builds) or else `PyDict_Next`, on every build: for a walk that keeps the dict still itself
/// (the contract's unguarded reads, which run no Python code; its guarded ones take [`stepwise`]
/// where the version tag does not show every change).
///
/// # Safety
/// `dict` is a live dict (or subclass), and no entry is read after a change to it (the caller
/// stops at the first change it sees, or runs no Python code while it reads).
#[inline(always)]
pub unsafe fn in_place(dict: *mut ffi::PyObject) -> Entries {
    // SAFETY: a live dict, unchanged while its entries are read (a table is only read on
    // CPython 3.11 to 3.15 built with a GIL; see dict.rs).
    let table = unsafe { Table::of(dict) };
    of_table(dict, table)
}

/// The entries of a live dict (or subclass) through `PyDict_Next` alone, never its table: for a
/// walk that checks the dict after visits that may run Python code, where the version tag does
/// not show every change (`crate::dict::TAGGED`). Such a change may free the table (a resize
/// that leaves the size as it was), which `PyDict_Next` never holds on to: it finds the table
/// anew for each entry.
///
/// # Safety
/// `dict` is a live dict (or subclass), inside its critical section on a free-threaded build.
#[inline(always)]
pub unsafe fn stepwise(dict: *mut ffi::PyObject) -> Entries {
    of_table(dict, None)
}

/// The entries of `dict` from `table`, or from `PyDict_Next` without one.
#[inline(always)]
fn of_table(dict: *mut ffi::PyObject, table: Option<Table>) -> Entries {
    Entries {
        dict,
        cursor: table.map_or_else(Cursor::empty, Cursor::of),
        unicode: table.is_some_and(Table::unicode),
        fallback: table.is_none(),
        pos: 0,
        read_ahead: false,
        ahead: None,
        #[cfg(Py_GIL_DISABLED)]
        held: std::ptr::null(),
        #[cfg(Py_GIL_DISABLED)]
        count: -1,
    }
}

/// The number of entries [`entries`] gives for a live dict (or subclass).
///
/// # Safety
/// As [`entries`].
#[inline(always)]
pub unsafe fn entry_count(py: Python<'_>, dict: *mut ffi::PyObject) -> usize {
    #[cfg(Py_GIL_DISABLED)]
    // SAFETY: as the caller promises; the length is the snapshot's.
    let count = unsafe { crate::hold::dict_entries(py, dict).1 };
    #[cfg(not(Py_GIL_DISABLED))]
    let count = {
        let _ = py;
        crate::dict::dict_len(dict).max(0) as usize
    };
    count
}

impl Entries {
    /// The next entry, with its value's header prefetched: from the snapshot where the walk
    /// holds one (free-threaded builds), else from `PyDict_Next`.
    #[inline(always)]
    fn pull(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        #[cfg(Py_GIL_DISABLED)]
        if self.count >= 0 {
            if self.pos >= self.count {
                return None;
            }
            // SAFETY: `pos` is below the snapshot's length, and the snapshot lasts until the
            // walk's scope ends (see `entries`).
            let (key, value) = unsafe { *self.held.add(self.pos as usize) };
            self.pos += 1;
            prefetch(value);
            return Some((key, value));
        }
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // Through a local: a field's address passed out would keep the whole state, table
        // cursor included, in memory (not in registers) while the entries are read.
        let mut pos = self.pos;
        // SAFETY: a live dict that does not change while it is read (see `entries` and
        // `in_place`), or (`stepwise`) one that may change between two calls: each call finds
        // the table anew and bounds `pos` by its entries.
        let more = unsafe { ffi::PyDict_Next(self.dict, &mut pos, &mut key, &mut value) };
        self.pos = pos;
        if more == 0 {
            return None;
        }
        prefetch(value);
        Some((key, value))
    }
}

impl Iterator for Entries {
    type Item = Raw;

    #[inline(always)]
    fn next(&mut self) -> Option<Raw> {
        // SAFETY: the cursor was read from this dict, which cannot change while it is read (a
        // cursor is only read on CPython 3.11 to 3.15 built with a GIL; elsewhere it is empty).
        match unsafe { self.cursor.next() } {
            Some((key, value)) => Some((key, value, self.unicode)),
            None if !self.fallback => None,
            None => {
                let entry = match self.ahead.take() {
                    Some(entry) => entry,
                    None => self.pull()?,
                };
                if self.read_ahead {
                    self.ahead = self.pull();
                }
                Some((entry.0, entry.1, false))
            }
        }
    }
}
