//! What keeps the values a walk reads alive and still, on every interpreter.
//!
//! With a GIL, a walk that runs no Python code sees no other thread run either: it reads
//! lists, tuples and dicts in place through borrowed references, and nothing here costs
//! anything ([`Scope`] is empty, the snapshots are never made).
//!
//! On a free-threaded build (`Py_GIL_DISABLED`) other threads run during a walk and may change
//! any list or dict it reads, freeing what was in it. There a walk opens a [`Scope`], and reads
//! each list and dict once, inside that object's critical section, into a snapshot of strong
//! references ([`list_items`], [`dict_entries`]). The container itself and everything in its
//! snapshot stay alive until the scope ends, so every pointer the walk holds is to a live
//! object, no address is reused while it lasts (key identities and memoised snapshots stay
//! true), and a container read twice gives the same state both times. Tuples, strings and
//! numbers never change: their contents live as long as they do.

#[cfg(Py_GIL_DISABLED)]
pub use free::{dict_entries, held_count, list_items, Scope};

/// The scope of one walk: nothing to keep where the GIL keeps the values still.
#[cfg(not(Py_GIL_DISABLED))]
pub struct Scope;

#[cfg(not(Py_GIL_DISABLED))]
impl Scope {
    /// Opens a walk's scope (nothing to do with a GIL).
    #[inline(always)]
    pub fn open(_py: pyo3::Python<'_>) -> Scope {
        Scope
    }
}

#[cfg(Py_GIL_DISABLED)]
mod free {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::marker::PhantomData;

    use pyo3::ffi;
    use pyo3::prelude::*;
    use pyo3::sync::critical_section::with_critical_section;

    type Entry = (*mut ffi::PyObject, *mut ffi::PyObject);

    /// The strong references and snapshots of the walks open on this thread.
    #[derive(Default)]
    struct Held {
        open: usize,
        refs: Vec<*mut ffi::PyObject>,
        /// How many of `refs` are to each object, by address.
        counts: HashMap<usize, ffi::Py_ssize_t>,
        lists: HashMap<usize, Box<[*mut ffi::PyObject]>>,
        dicts: HashMap<usize, Box<[Entry]>>,
    }

    thread_local! {
        static HELD: RefCell<Held> = RefCell::new(Held::default());
    }

    /// The scope of one walk on this thread; the references it took are released when the
    /// outermost scope ends.
    pub struct Scope {
        /// Tied to the thread whose `HELD` it counts in.
        _thread: PhantomData<*mut ()>,
    }

    impl Scope {
        /// Opens a walk's scope; the caller is attached to the interpreter.
        pub fn open(_py: Python<'_>) -> Scope {
            HELD.with_borrow_mut(|held| held.open += 1);
            Scope {
                _thread: PhantomData,
            }
        }
    }

    impl Drop for Scope {
        fn drop(&mut self) {
            let refs = HELD.with_borrow_mut(|held| {
                held.open -= 1;
                if held.open > 0 {
                    return Vec::new();
                }
                held.lists.clear();
                held.dicts.clear();
                held.counts.clear();
                std::mem::take(&mut held.refs)
            });
            // Released outside the borrow: a release may run a finalizer, which may walk.
            for obj in refs {
                // SAFETY: each is a strong reference this scope took (see `keep`), released
                // once, by a thread attached to the interpreter (the scope's opener).
                unsafe { ffi::Py_DecRef(obj) };
            }
        }
    }

    /// Takes a strong reference to `obj` for the open walk.
    ///
    /// # Safety
    /// `obj` is live now (a borrowed pointer read inside its holder's critical section, or an
    /// object the caller holds).
    unsafe fn keep(held: &mut Held, obj: *mut ffi::PyObject) {
        // SAFETY: as the caller promises.
        unsafe { ffi::Py_IncRef(obj) };
        held.refs.push(obj);
        *held.counts.entry(obj as usize).or_default() += 1;
    }

    /// How many references to `obj` the walks open on this thread hold: a reference count less
    /// these is the count the object would have without the walk (the inference's identities).
    pub fn held_count(obj: *mut ffi::PyObject) -> ffi::Py_ssize_t {
        HELD.with_borrow(|held| held.counts.get(&(obj as usize)).copied().unwrap_or(0))
    }

    /// The items of a list as this walk sees them: read once, inside the list's critical
    /// section, as strong references that last until the walk's [`Scope`] ends. The pointer
    /// and length stay valid until then.
    ///
    /// # Safety
    /// `list` is a live list (or subclass), kept alive by the caller or an open scope, and a
    /// [`Scope`] is open on this thread.
    pub unsafe fn list_items(
        py: Python<'_>,
        list: *mut ffi::PyObject,
    ) -> (*const *mut ffi::PyObject, usize) {
        if let Some(items) = HELD.with_borrow(|held| {
            held.lists
                .get(&(list as usize))
                .map(|s| (s.as_ptr(), s.len()))
        }) {
            return items;
        }
        // SAFETY: `list` is live (as the caller promises); the new reference is dropped below.
        let bound = unsafe { Bound::from_borrowed_ptr(py, list) };
        let items: Box<[*mut ffi::PyObject]> = with_critical_section(&bound, || {
            HELD.with_borrow_mut(|held| {
                // SAFETY: inside the list's critical section no thread changes it, so its size
                // and items are read whole, each taken as a strong reference before the
                // section ends; the list itself is kept so its address stays its own.
                unsafe {
                    keep(held, list);
                    let len = ffi::PyList_GET_SIZE(list).max(0);
                    (0..len)
                        .map(|at| {
                            let item = ffi::PyList_GET_ITEM(list, at);
                            keep(held, item);
                            item
                        })
                        .collect()
                }
            })
        });
        HELD.with_borrow_mut(|held| {
            let items = held.lists.entry(list as usize).or_insert(items);
            (items.as_ptr(), items.len())
        })
    }

    /// The entries of a dict as this walk sees them, in order: read once with `PyDict_Next`
    /// inside the dict's critical section, as strong references that last until the walk's
    /// [`Scope`] ends. The pointer and length stay valid until then.
    ///
    /// # Safety
    /// As [`list_items`], for a live dict (or subclass).
    pub unsafe fn dict_entries(py: Python<'_>, dict: *mut ffi::PyObject) -> (*const Entry, usize) {
        if let Some(entries) = HELD.with_borrow(|held| {
            held.dicts
                .get(&(dict as usize))
                .map(|s| (s.as_ptr(), s.len()))
        }) {
            return entries;
        }
        // SAFETY: `dict` is live (as the caller promises); the new reference is dropped below.
        let bound = unsafe { Bound::from_borrowed_ptr(py, dict) };
        let entries: Box<[Entry]> = with_critical_section(&bound, || {
            HELD.with_borrow_mut(|held| {
                let mut entries = Vec::new();
                let mut pos: ffi::Py_ssize_t = 0;
                let mut key = std::ptr::null_mut();
                let mut value = std::ptr::null_mut();
                // SAFETY: `PyDict_Next` inside the dict's critical section, as the C API asks on
                // a free-threaded build; it runs no Python code, and each borrowed key and value
                // is taken as a strong reference before the section ends.
                unsafe {
                    keep(held, dict);
                    while ffi::PyDict_Next(dict, &mut pos, &mut key, &mut value) != 0 {
                        keep(held, key);
                        keep(held, value);
                        entries.push((key, value));
                    }
                }
                entries.into_boxed_slice()
            })
        });
        HELD.with_borrow_mut(|held| {
            let entries = held.dicts.entry(dict as usize).or_insert(entries);
            (entries.as_ptr(), entries.len())
        })
    }
}
