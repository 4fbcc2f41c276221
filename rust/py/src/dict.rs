//! A dict read from its storage, for every walk of Python values: its size and version, and
//! its entries straight from the table on CPython 3.11 to 3.15 with a GIL, where `PyDict_Next`
//! is a fifth of an object walk. Other interpreters (free-threaded builds, the limited API, and
//! any CPython after 3.15 until its layout is checked) and split tables (instance `__dict__`s,
//! 3.13's inline values on) go through `PyDict_Next`.
//!
//! The table is only read on those GIL builds: no other thread changes the dict while a walk
//! that runs no Python code reads it. Its layout is the same on the five
//! (`Include/internal/pycore_dict.h`, `Include/cpython/dictobject.h`; 3.14.10 and 3.15.2
//! checked against 3.13): the keys head (3.13 on adds `dk_mutex` only where the GIL is
//! disabled), the two entry structs, `_DK_ENTRIES`, the keys kinds (general 0, unicode 1,
//! split 2) and `PyDictObject`, whose third word 3.14 renames `_ma_watcher_tag`.
//!
//! The version tag moves on every change only up to 3.13 (3.14's `_ma_watcher_tag` holds
//! watcher bits and is not read): a walk that checks the dict after visits that may run Python
//! code reads the table only where the tag shows every change ([`TAGGED`]). A free-threaded
//! build reads sizes atomically, and entries inside the dict's critical section (`crate::hold`,
//! node.rs).

use pyo3::ffi;

/// The number of entries of a dict, read inline where the layout is known. `dict` is a live
/// dict, read as the module note says.
#[inline(always)]
pub fn dict_len(dict: *mut ffi::PyObject) -> ffi::Py_ssize_t {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_GIL_DISABLED)))]
    // SAFETY: `dict` is a live dict (or subclass), whose layout starts with PyDictObject,
    // read under the GIL (module note).
    unsafe {
        (*dict.cast::<ffi::PyDictObject>()).ma_used
    }
    #[cfg(all(Py_GIL_DISABLED, not(any(Py_LIMITED_API, PyPy, GraalPy))))]
    // SAFETY: `dict` is a live dict (or subclass), whose layout starts with PyDictObject. Other
    // threads may change it: CPython writes `ma_used` atomically there, and it is read so here.
    unsafe {
        let used = std::ptr::addr_of_mut!((*dict.cast::<ffi::PyDictObject>()).ma_used);
        std::sync::atomic::AtomicIsize::from_ptr(used).load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy))]
    // SAFETY: `dict` is a live dict.
    unsafe {
        ffi::PyDict_Size(dict)
    }
}

/// Whether [`dict_version`] moves on every change to a dict: CPython up to 3.13 with a GIL.
/// Elsewhere it is always 0, and a walk that must see changes sees only size changes.
pub const TAGGED: bool = cfg!(not(any(
    Py_LIMITED_API,
    PyPy,
    GraalPy,
    Py_3_14,
    Py_GIL_DISABLED
)));

/// A dict's version tag, which every change to it moves (3.12 and 3.13 keep moving it, the
/// field only deprecated; 3.14 drops it); 0 where the layout is not known or there is no tag
/// ([`TAGGED`]). `dict` is a live dict, read as the module note says.
#[inline]
pub fn dict_version(dict: *mut ffi::PyObject) -> u64 {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_14, Py_GIL_DISABLED)))]
    // SAFETY: `dict` is a live dict (or subclass), whose layout starts with PyDictObject,
    // read under the GIL (module note).
    #[allow(deprecated)]
    unsafe {
        (*dict.cast::<ffi::PyDictObject>()).ma_version_tag
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_14, Py_GIL_DISABLED))]
    {
        let _ = dict;
        0
    }
}

/// Hints the CPU to load an object's header before it is read (touching each object is the
/// main cost of a walk).
#[inline(always)]
pub fn prefetch(obj: *mut ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(obj.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = obj;
}

/// The entry table of a combined dict, as `_PyDict_Next` walks it.
#[derive(Clone, Copy)]
pub struct Table {
    entries: *const u8,
    stride: usize,
    end: isize,
}

/// The head of `struct _dictkeysobject` on CPython 3.11 to 3.15 with a GIL
/// (`Include/internal/pycore_dict.h`, the same fields in the same order on the five).
#[cfg(all(
    Py_3_11,
    not(any(Py_3_16, Py_GIL_DISABLED, Py_LIMITED_API, PyPy, GraalPy))
))]
#[repr(C)]
struct KeysHead {
    _dk_refcnt: ffi::Py_ssize_t,
    _dk_log2_size: u8,
    dk_log2_index_bytes: u8,
    dk_kind: u8,
    _dk_version: u32,
    _dk_usable: ffi::Py_ssize_t,
    dk_nentries: ffi::Py_ssize_t,
}

/// `DICT_KEYS_SPLIT`, the keys kind of split tables (the same value on 3.11 to 3.15).
#[cfg(all(
    Py_3_11,
    not(any(Py_3_16, Py_GIL_DISABLED, Py_LIMITED_API, PyPy, GraalPy))
))]
const DICT_KEYS_SPLIT: u8 = 2;

impl Table {
    /// The table of `dict` (a dict or subclass), or `None` to use `PyDict_Next`.
    ///
    /// # Safety
    /// `dict` is a live dict that no code changes while the table is used (the GIL is held
    /// and no Python code runs during a walk).
    #[cfg(all(
        Py_3_11,
        not(any(Py_3_16, Py_GIL_DISABLED, Py_LIMITED_API, PyPy, GraalPy))
    ))]
    #[inline]
    pub unsafe fn of(dict: *mut ffi::PyObject) -> Option<Table> {
        // SAFETY: every dict (subclasses included) starts with `PyDictObject`, whose `ma_keys`
        // points to a keys object laid out as `KeysHead` followed by `dk_indices` (2^log2
        // index bytes) and then the entries: `PyDictUnicodeEntry {key, value}` for unicode and
        // split kinds, `PyDictKeyEntry {hash, key, value}` for the general kind. That is what
        // `DK_ENTRIES`/`DK_UNICODE_ENTRIES` (`_DK_ENTRIES` from 3.12) compute in 3.11 to 3.15
        // built with a GIL, the interpreters this cfg admits (3.14 and 3.15 change none of
        // it: `dk_mutex` is only where the GIL is disabled, and `_ma_watcher_tag` takes the
        // tag's word in `PyDictObject`, so `ma_keys` and `ma_values` stay where they were). No
        // other thread runs while the walk reads. A split table (`ma_values` set: instance
        // `__dict__`s, and from 3.13 dicts over an object's inline values) keeps its values
        // elsewhere, in insertion order, and so may a split-kind keys object: both are left
        // to `PyDict_Next`.
        unsafe {
            let object = dict.cast::<ffi::PyDictObject>();
            if !(*object).ma_values.is_null() {
                return None;
            }
            let keys = (*object).ma_keys.cast::<KeysHead>();
            let head = &*keys;
            if head.dk_kind == DICT_KEYS_SPLIT {
                return None;
            }
            let indices = keys.cast::<u8>().add(std::mem::size_of::<KeysHead>());
            let entries = indices.add(1usize << head.dk_log2_index_bytes);
            let stride = if head.dk_kind == 0 { 24 } else { 16 };
            Some(Table {
                entries,
                stride,
                end: head.dk_nentries,
            })
        }
    }

    /// Always `None` here: this interpreter's dict layout is not one this module knows.
    ///
    /// # Safety
    /// None needed; kept `unsafe` to match the version that reads the table.
    #[cfg(not(all(
        Py_3_11,
        not(any(Py_3_16, Py_GIL_DISABLED, Py_LIMITED_API, PyPy, GraalPy))
    )))]
    #[inline]
    pub unsafe fn of(_dict: *mut ffi::PyObject) -> Option<Table> {
        None
    }

    /// The number of entry slots, deleted ones included (`dk_nentries`).
    #[inline]
    pub fn slots(self) -> isize {
        self.end
    }

    /// Whether every key is an exact `str` (a unicode-kind table, not the general kind).
    #[inline]
    pub fn unicode(self) -> bool {
        self.stride == 16
    }

    /// The next stored entry at or after `*pos`, moving `*pos` past it.
    ///
    /// # Safety
    /// The table's dict is alive and unchanged since [`Table::of`].
    #[inline(always)]
    pub unsafe fn next(
        self,
        pos: &mut ffi::Py_ssize_t,
    ) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        while *pos < self.end {
            // SAFETY: `*pos` is below `dk_nentries`, so the entry is inside the table; the key
            // and value pointers are the entry's last two words in both layouts. A deleted
            // entry has a null value and is skipped, as `_PyDict_Next` does.
            unsafe {
                let entry = self.entries.add(*pos as usize * self.stride);
                let words = entry.add(self.stride - 16).cast::<*mut ffi::PyObject>();
                *pos += 1;
                let value = *words.add(1);
                if !value.is_null() {
                    if *pos < self.end {
                        // The next entry is inside the table: start loading its value.
                        prefetch(*words.add(self.stride / 8 + 1));
                    }
                    prefetch(value);
                    return Some((*words, value));
                }
            }
        }
        None
    }
}

impl Table {
    /// The entry at `pos` (as [`Table::next`] gives it from `pos`, without skipping a deleted
    /// entry), or `None` where `pos` is past the table or the entry was deleted.
    ///
    /// # Safety
    /// The table's dict is alive and unchanged since [`Table::of`].
    #[inline(always)]
    pub unsafe fn at(
        self,
        pos: ffi::Py_ssize_t,
    ) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        if pos < 0 || pos >= self.end {
            return None;
        }
        // SAFETY: `pos` is below `dk_nentries`, so the entry is inside the table; the key and
        // value pointers are the entry's last two words in both layouts.
        unsafe {
            let words = self
                .entries
                .add(pos as usize * self.stride + self.stride - 16)
                .cast::<*mut ffi::PyObject>();
            let value = *words.add(1);
            (!value.is_null()).then(|| (*words, value))
        }
    }

    /// Puts `value` in place of the value of the entry [`Table::next`] returned last (`pos` is
    /// what it left), taking over that reference, and gives back the reference to the old one.
    /// Unlike `PyDict_SetItem` it neither hashes nor looks the key up, nor moves the version
    /// tag (up to 3.13) or tells the dict's watchers (from 3.12): only a dict that no other code
    /// has seen, so that none watches it, may be changed so.
    ///
    /// # Safety
    /// The table's dict was made by the caller and has not been seen by other code (no version
    /// was read from it, no watcher added), is alive and unchanged since [`Table::of`] but for
    /// such replacements, and is tracked by the collector if `value` may hold references; `pos`
    /// is what `next` left after it returned an entry.
    #[inline(always)]
    pub unsafe fn replace(
        self,
        pos: ffi::Py_ssize_t,
        value: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject {
        // SAFETY: the entry `next` returned is at `pos - 1`, inside the table; its value is its
        // last word in both layouts.
        unsafe {
            let entry = self.entries.add((pos - 1) as usize * self.stride);
            let slot = entry
                .add(self.stride - 8)
                .cast_mut()
                .cast::<*mut ffi::PyObject>();
            std::ptr::replace(slot, value)
        }
    }
}

/// A table's entries as a pointer range, for a walk that reads each entry once: the same
/// entries as [`Table::next`] without an index to keep (the inference walk holds no position).
#[derive(Clone, Copy)]
pub struct Cursor {
    at: *const u8,
    end: *const u8,
    stride: usize,
}

impl Cursor {
    /// A cursor with no entries.
    pub fn empty() -> Cursor {
        Cursor {
            at: std::ptr::null(),
            end: std::ptr::null(),
            stride: 16,
        }
    }

    /// The entries of `table`, from the first.
    pub fn of(table: Table) -> Cursor {
        let slots = usize::try_from(table.end).unwrap_or(0);
        Cursor {
            at: table.entries,
            end: table.entries.wrapping_add(slots * table.stride),
            stride: table.stride,
        }
    }

    /// The next stored entry, as [`Table::next`] gives it.
    ///
    /// # Safety
    /// The table's dict is alive and unchanged since [`Table::of`].
    #[inline(always)]
    pub unsafe fn next(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        // SAFETY: as the caller promises; `stride` is the table's.
        unsafe { self.step(self.stride) }
    }

    /// [`Cursor::next`] with the table's stride given: a constant where the kind is known.
    ///
    /// # Safety
    /// As [`Cursor::next`], and `stride` is this cursor's.
    #[inline(always)]
    unsafe fn step(&mut self, stride: usize) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        while self.at < self.end {
            // SAFETY: `at` is an entry of the table (below `end`, on an entry boundary); its
            // key and value are its last two words, a deleted entry's value is null (as in
            // `Table::next`). The next entry, when below `end`, is in the table too.
            unsafe {
                let words = self.at.add(stride - 16).cast::<*mut ffi::PyObject>();
                self.at = self.at.add(stride);
                let value = *words.add(1);
                if !value.is_null() {
                    if self.at < self.end {
                        prefetch(*self.at.add(stride - 8).cast::<*mut ffi::PyObject>());
                    }
                    return Some((*words, value));
                }
            }
        }
        None
    }
}

/// A [`Cursor`] over a unicode-kind table, whose entries are `{key, value}` pairs of exact
/// `str` keys: read with the stride a constant and no check of the keys' type.
#[derive(Clone, Copy)]
pub struct UnicodeCursor(Cursor);

impl UnicodeCursor {
    /// The entries of `table` when it is a unicode-kind one.
    #[inline]
    pub fn of(table: Table) -> Option<UnicodeCursor> {
        table.unicode().then(|| UnicodeCursor(Cursor::of(table)))
    }

    /// The next stored entry, as [`Cursor::next`] gives it.
    ///
    /// # Safety
    /// As [`Cursor::next`].
    #[inline(always)]
    pub unsafe fn next(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        // SAFETY: as the caller promises; a unicode-kind table's entries are 16 bytes.
        unsafe { self.0.step(16) }
    }
}
