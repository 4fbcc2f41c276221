//! `PySink`: builds parse output as Python objects, reusing every exactly valid leaf.

use orkestrel_core::contract::Sink;
use orkestrel_core::value::{Node, View};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyList};
use pyo3::IntoPyObjectExt;

use crate::convert::{integral, text};
use crate::dict::{dict_len, Table, TAGGED};
use crate::node::PyNode;
use crate::unicode::str_bytes;
use crate::value::{base_of, exact_of, Base};

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

/// A list being filled: its first `filled` slots are set, the rest still null.
pub struct Items<'py> {
    list: Bound<'py, PyAny>,
    filled: ffi::Py_ssize_t,
}

/// Parse output under construction; the first failure to allocate is kept and reported.
///
/// Records are built in a presized dict, or, where the output has the input's keys in its
/// order, as a copy of the input dict with the changed values replaced: CPython clones an
/// exact dict's table in one copy, which is cheaper than inserting every key.
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
        if matches!(exact_of(&node.0), Base::Str | Base::Int | Base::Float) {
            return node.0.clone();
        }
        let made = match node.view() {
            View::Str(bytes) => text(self.py, &bytes),
            View::Int(i) => i.into_bound_py_any(self.py),
            View::Float(f) if base_of(&node.0) == Base::Float => {
                Ok(PyFloat::new(self.py, f).into_any())
            }
            _ => Ok(node.0.clone()),
        };
        self.settle(made)
    }

    fn is_kept(&self, out: &Self::Out, node: &PyNode<'py>) -> bool {
        out.is(&node.0)
    }

    type Draft = Draft<'py>;

    fn can_draft(&self, input: &PyNode<'py>) -> bool {
        // Only where the walk stops at any change to the record (`TAGGED`): the copy, taken
        // during the walk, then holds what was walked, and no other thread changes it.
        TAGGED && clean_table(input.0.as_ptr()).is_some()
    }

    fn draft(&mut self, input: &PyNode<'py>) -> Option<Draft<'py>> {
        // SAFETY: `can_draft` found an exact dict (a walk goes on only through the dict it
        // started with); `PyDict_Copy` returns a new reference or null with an error set.
        let copy =
            unsafe { Bound::from_owned_ptr_or_opt(self.py, ffi::PyDict_Copy(input.0.as_ptr())) };
        let Some(copy) = copy else {
            drop(PyErr::take(self.py));
            return None;
        };
        // The copy's own table is the one patched: it must be as clean as the input's was.
        let table = clean_table(copy.as_ptr())?;
        // The walk goes on while the draft is made, and may run a finalizer or a collector
        // hook: untracked, the draft is out of their reach (`gc.get_objects()`), so no code
        // but this sink sees or changes it before it is finished (see `drafted`).
        // SAFETY: a live dict no other code holds; untracking a tracked object.
        let track = unsafe { ffi::PyObject_GC_IsTracked(copy.as_ptr()) } != 0;
        if track {
            unsafe { ffi::PyObject_GC_UnTrack(copy.as_ptr().cast()) };
        }
        Some(Draft {
            copy,
            table,
            track,
            released: Vec::new(),
        })
    }

    #[inline]
    fn patch(
        &mut self,
        draft: &mut Draft<'py>,
        position: usize,
        key: &Bound<'py, PyAny>,
        value: Self::Out,
    ) -> Result<(), Self::Out> {
        let Ok(at) = ffi::Py_ssize_t::try_from(position) else {
            return Err(value);
        };
        // SAFETY: the copy is private and changed only by replacing values (see `replace`).
        match unsafe { draft.table.at(at) } {
            Some((k, v)) if k == key.as_ptr() => {
                draft.track |= !atomic(&value);
                // The draft is untracked: any value may go in place (it is tracked once
                // finished if it holds one the collector tracks).
                let Draft {
                    copy,
                    table,
                    released,
                    ..
                } = draft;
                self.replace(copy, *table, at + 1, (key, v), value, true, released);
                Ok(())
            }
            _ => Err(value),
        }
    }

    fn copy_record(&mut self, input: &PyNode<'py>) -> Option<Self::Out> {
        // No code runs between the walk's last check and this copy, so it holds the entries
        // walked (`can_draft` found an exact dict with a clean table); nothing else sees it
        // before it is returned, so it stays tracked as `PyDict_Copy` made it.
        // SAFETY: a live exact dict; a new reference or null with an error set.
        let copy =
            unsafe { Bound::from_owned_ptr_or_opt(self.py, ffi::PyDict_Copy(input.0.as_ptr())) };
        if copy.is_none() {
            drop(PyErr::take(self.py));
        }
        copy
    }

    #[inline]
    fn drafted(&mut self, draft: Draft<'py>) -> Self::Out {
        if draft.track {
            // SAFETY: the draft is a live dict, untracked since `draft`.
            unsafe { ffi::PyObject_GC_Track(draft.copy.as_ptr().cast()) };
        }
        draft.copy
    }

    fn drafted_entries(
        &mut self,
        input: &PyNode<'py>,
        draft: Option<Draft<'py>>,
        count: usize,
    ) -> Vec<(Bound<'py, PyAny>, Self::Out)> {
        let py = self.py;
        let table = match &draft {
            Some(draft) => Some(draft.table),
            None => clean_table(input.0.as_ptr()),
        };
        let mut entries = Vec::with_capacity(count);
        let mut position: ffi::Py_ssize_t = 0;
        while let Some(table) = table.filter(|_| entries.len() < count) {
            // SAFETY: the draft is private and changed only by replacing values; the input is
            // a dict being walked, read here while no other code runs (any change made to it
            // during the walk fails the walk, and these entries with it). Each entry is taken
            // as new references.
            match unsafe { table.next(&mut position) } {
                Some((key, value)) => entries.push(unsafe {
                    (
                        Bound::from_borrowed_ptr(py, key),
                        Bound::from_borrowed_ptr(py, value),
                    )
                }),
                None => break,
            }
        }
        entries
    }

    fn object_like(
        &mut self,
        input: &PyNode<'py>,
        len: usize,
        mut entries: impl Iterator<Item = (Bound<'py, PyAny>, Self::Out)>,
    ) -> Self::Out {
        let Some((copy, table)) = self.clone_dict(input, len) else {
            return self.object(len, entries);
        };
        let mut position: ffi::Py_ssize_t = 0;
        let mut done = 0usize;
        // Replaced values that only the copy held (the input lost them to a change made while
        // the copy was allocated): released after the loop, so that no finalizer runs while
        // the copy's table is read.
        let mut released: Vec<Bound<'py, PyAny>> = Vec::new();
        // SAFETY: a live dict. A tracked copy may take any value in place; an untracked one
        // (its input held no container) only values the collector never tracks, and others
        // through `PyDict_SetItem`, which starts tracking it.
        let tracked = unsafe { ffi::PyObject_GC_IsTracked(copy.as_ptr()) } != 0;
        while let Some((key, value)) = entries.next() {
            // SAFETY: `copy` is a dict no other code holds, and no Python code runs in this
            // loop (see `released`), so its table is unchanged.
            match unsafe { table.next(&mut position) } {
                Some((k, v)) if k == key.as_ptr() => {
                    self.replace(
                        &copy,
                        table,
                        position,
                        (&key, v),
                        value,
                        tracked,
                        &mut released,
                    );
                    done += 1;
                }
                _ => {
                    // The copy disagrees with the walk: the entries done so far and the rest,
                    // in a new dict. Not reachable on CPython 3.11 to 3.13 (the walk refuses any
                    // change it sees, and `PyDict_Copy` clones the table before it allocates,
                    // see tests/contract/test_changed_input.py), nor on 3.14 and 3.15, where no
                    // collection starts inside native code to run Python code between the walk
                    // and the clone; kept in case an interpreter orders those steps otherwise.
                    let rest = std::iter::once((key, value)).chain(entries);
                    return self.rebuild(&copy, done, len, rest);
                }
            }
        }
        if done != len {
            return self.rebuild(&copy, done, len, std::iter::empty());
        }
        copy
    }

    fn boolean(&mut self, value: bool) -> Self::Out {
        PyBool::new(self.py, value).to_owned().into_any()
    }

    fn array(&mut self, items: Vec<Self::Out>) -> Self::Out {
        let made = PyList::new(self.py, items).map(Bound::into_any);
        self.settle(made)
    }

    type Items = Option<Items<'py>>;

    fn items(&mut self, len: usize) -> Option<Items<'py>> {
        let size = ffi::Py_ssize_t::try_from(len).unwrap_or(ffi::Py_ssize_t::MAX);
        // SAFETY: returns a new list of `len` null slots, or null with an error set. A list
        // being filled holds null slots, as CPython's own builders do: its deallocation and GC
        // traversal skip them, and it is handed out only once full (see `finish`).
        match unsafe { Bound::from_owned_ptr_or_err(self.py, ffi::PyList_New(size)) } {
            Ok(list) => Some(Items { list, filled: 0 }),
            Err(error) => {
                self.error.get_or_insert(error);
                None
            }
        }
    }

    fn push(&mut self, items: &mut Option<Items<'py>>, item: Self::Out) {
        let Some(items) = items else { return };
        let list = items.list.as_ptr();
        // SAFETY: a list this sink made and no other code holds; slot `filled` is in range
        // and still null, and takes over the item's reference.
        unsafe {
            if items.filled < ffi::PyList_GET_SIZE(list) {
                ffi::PyList_SET_ITEM(list, items.filled, item.into_ptr());
                items.filled += 1;
            }
        }
    }

    fn finish(&mut self, items: Option<Items<'py>>) -> Self::Out {
        let Some(items) = items else {
            return self.py.None().into_bound(self.py);
        };
        let list = items.list.as_ptr();
        // SAFETY: a list this sink made; when fewer items came than were planned, only the
        // filled prefix is copied out, and the list with null slots is dropped.
        unsafe {
            if items.filled == ffi::PyList_GET_SIZE(list) {
                return items.list;
            }
            let made =
                Bound::from_owned_ptr_or_err(self.py, ffi::PyList_GetSlice(list, 0, items.filled));
            self.settle(made)
        }
    }

    fn object(
        &mut self,
        len: usize,
        entries: impl Iterator<Item = (Bound<'py, PyAny>, Self::Out)>,
    ) -> Self::Out {
        self.filled(len, entries)
    }
}

/// A copy of an input dict being patched (see [`Sink::draft`]).
pub struct Draft<'py> {
    copy: Bound<'py, PyAny>,
    table: Table,
    /// Whether the finished copy must be tracked by the collector: its input was, or it took
    /// a value the collector may track.
    track: bool,
    /// Replaced values that only the copy held, released with the draft (see `object_like`).
    released: Vec<Bound<'py, PyAny>>,
}

/// Whether the collector never tracks `value`.
fn atomic(value: &Bound<'_, PyAny>) -> bool {
    matches!(
        exact_of(value),
        Base::Str | Base::Int | Base::Float | Base::Bool | Base::None
    )
}

/// The table of an exact dict whose combined table has only exact `str` keys and no deleted
/// entries, so that its n-th entry is the n-th a walk visits and the n-th of its copy.
fn clean_table(dict: *mut ffi::PyObject) -> Option<Table> {
    // SAFETY: a type check on a live object, then a read of a live exact dict's table while
    // no other code runs.
    if unsafe { ffi::PyDict_CheckExact(dict) } == 0 {
        return None;
    }
    unsafe { Table::of(dict) }.filter(|table| table.unicode() && dict_len(dict) == table.slots())
}

impl<'py> PySink<'py> {
    /// Puts `value` in the entry of `copy` that `table.next` just returned at `position`, with
    /// the walked `key` and the copy's value `old`, unless it is that value already.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn replace(
        &mut self,
        copy: &Bound<'py, PyAny>,
        table: Table,
        position: ffi::Py_ssize_t,
        (key, old): (&Bound<'py, PyAny>, *mut ffi::PyObject),
        value: Bound<'py, PyAny>,
        tracked: bool,
        released: &mut Vec<Bound<'py, PyAny>>,
    ) {
        if old == value.as_ptr() {
            return;
        }
        // SAFETY: `old` is a live value of the copy.
        if unsafe { ffi::Py_REFCNT(old) } == 1 {
            released.push(unsafe { Bound::from_borrowed_ptr(self.py, old) });
        }
        if tracked || atomic(&value) {
            // SAFETY: `copy` was made here and no other code has seen it, and `next` just
            // returned this entry. The old value is still held (by the input, or by
            // `released`), so dropping the copy's reference runs no code.
            unsafe {
                ffi::Py_DECREF(table.replace(position, value.into_ptr()));
            }
        } else {
            // SAFETY: a private dict and one of its own exact str keys: replacing the value
            // runs no user code (the old value stays referenced).
            let status =
                unsafe { ffi::PyDict_SetItem(copy.as_ptr(), key.as_ptr(), value.as_ptr()) };
            if status != 0 {
                self.error.get_or_insert(PyErr::fetch(self.py));
            }
        }
    }

    /// A new dict of `len` entries, filled from `entries`.
    fn filled(
        &mut self,
        len: usize,
        entries: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> Bound<'py, PyAny> {
        match presized(self.py, len) {
            Ok(dict) => {
                self.fill(&dict, entries);
                dict
            }
            Err(error) => {
                self.error.get_or_insert(error);
                self.py.None().into_bound(self.py)
            }
        }
    }

    /// Stores entries in a fresh dict.
    fn fill(
        &mut self,
        dict: &Bound<'py, PyAny>,
        entries: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) {
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
    }

    /// A copy of an exact dict of `len` entries whose keys are all exact `str`s, with its
    /// table; `None` where the dict is not such a dict or its layout is not known here.
    fn clone_dict(
        &mut self,
        input: &PyNode<'py>,
        len: usize,
    ) -> Option<(Bound<'py, PyAny>, Table)> {
        let dict = input.0.as_ptr();
        // SAFETY: a type check on a live object.
        if unsafe { ffi::PyDict_CheckExact(dict) } == 0 {
            return None;
        }
        let clean = |dict: *mut ffi::PyObject| {
            // SAFETY: `dict` is a live exact dict, read while no other code runs.
            unsafe { Table::of(dict) }.filter(|table| {
                table.unicode()
                    && dict_len(dict) == table.slots()
                    && usize::try_from(table.slots()).is_ok_and(|slots| slots == len)
            })
        };
        clean(dict)?;
        // SAFETY: an exact dict whose combined table has only exact str keys and no deleted
        // entries: `PyDict_Copy` clones the table (new references to its keys and values)
        // and runs no user code. It returns a new reference or null with an error set.
        let copy = match unsafe { Bound::from_owned_ptr_or_err(self.py, ffi::PyDict_Copy(dict)) } {
            Ok(copy) => copy,
            Err(error) => {
                drop(error);
                return None;
            }
        };
        // The copy is checked again: allocating it may have run a finalizer that changed the
        // input (on CPython 3.11, after the clone, so the copy still holds what was walked; from
        // 3.12 no collection starts inside native code).
        let table = clean(copy.as_ptr())?;
        Some((copy, table))
    }

    /// A new dict of the first `done` entries of `copy`, then `rest`.
    fn rebuild(
        &mut self,
        copy: &Bound<'py, PyAny>,
        done: usize,
        len: usize,
        rest: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> Bound<'py, PyAny> {
        let mut position: ffi::Py_ssize_t = 0;
        let py = self.py;
        // SAFETY: `copy` is a live dict that no other code holds.
        let table = unsafe { Table::of(copy.as_ptr()) };
        let first = (0..done).map_while(|_| {
            let table = table?;
            // SAFETY: `copy` is private and unchanged; its entries are live and taken as new
            // references.
            unsafe { table.next(&mut position) }.map(|(key, value)| unsafe {
                (
                    Bound::from_borrowed_ptr(py, key),
                    Bound::from_borrowed_ptr(py, value),
                )
            })
        });
        self.filled(len, first.chain(rest))
    }
}
