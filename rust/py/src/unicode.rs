//! The bytes of a Python `str`, read from its storage: the one read of text that every walk
//! of Python values shares (the contract's nodes, the inference's, the parse sink and
//! `json_size`).
//!
//! A `str` never changes once made; its UTF-8 cache, once filled, lives as long as it. CPython
//! fills the cache inside the string's critical section where there is no GIL (3.13's
//! `unicode_ensure_utf8`), so two threads reading one string race on nothing.

use std::borrow::Cow;

use pyo3::ffi;
use pyo3::prelude::*;

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
    unsafe { ptr_bytes(object.as_ptr()) }
}

/// [`str_bytes`] of a raw pointer.
///
/// # Safety
/// `ptr` is a live `str` (or subclass) that outlives `'a`, and the caller holds the GIL.
#[inline]
pub unsafe fn ptr_bytes<'a>(ptr: *mut ffi::PyObject) -> Cow<'a, [u8]> {
    // SAFETY: as the caller promises.
    match unsafe { ascii_bytes(ptr) } {
        Some(bytes) => Cow::Borrowed(bytes),
        // SAFETY: as the caller promises.
        None => unsafe { str_bytes_slow(ptr) },
    }
}

/// Runs `body` with the cycle collector paused. The slow reads allocate (a UTF-8 cache, an
/// exception they then clear, a huge int's double), and an allocation may start a
/// collection, which runs finalizers and `gc.callbacks`: Python code that could change the
/// containers being read. With the collector paused no Python code runs during a read at
/// all, which is what lets a walk hold borrowed references.
#[inline]
pub fn without_collection<R>(body: impl FnOnce() -> R) -> R {
    // SAFETY: the caller is attached to the interpreter (it holds a `Python` token, a bound
    // object, or a pointer read while attached), as these calls require. On a free-threaded
    // build another thread may pause or resume the collector meanwhile; the walks there hold
    // strong references or critical sections, so they never rely on the pause for soundness.
    let was_enabled = unsafe { ffi::PyGC_Disable() } != 0;
    let out = body();
    if was_enabled {
        // SAFETY: as above; the collector is enabled again only if it was on before.
        unsafe { ffi::PyGC_Enable() };
    }
    out
}

/// The bytes of a `str` that is not compact ASCII, read with the collector paused; kept out
/// of line so that the walks' inlined fast path stays small.
///
/// # Safety
/// `ptr` is a live `str` (or subclass) that outlives `'a`, and the caller holds the GIL.
#[cold]
#[inline(never)]
unsafe fn str_bytes_slow<'a>(ptr: *mut ffi::PyObject) -> Cow<'a, [u8]> {
    // SAFETY: as the caller promises.
    without_collection(|| unsafe { utf8_of(ptr) })
}

/// # Safety
/// As [`str_bytes_slow`].
unsafe fn utf8_of<'a>(ptr: *mut ffi::PyObject) -> Cow<'a, [u8]> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `ptr` is a live str; the UTF-8 buffer is cached in it and lives as long as it.
    // A failure (lone surrogates) sets an error, cleared here by the attached caller (errors are per thread).
    unsafe {
        let data = ffi::PyUnicode_AsUTF8AndSize(ptr, &mut size);
        if !data.is_null() {
            let len = usize::try_from(size).unwrap_or(0);
            return Cow::Borrowed(std::slice::from_raw_parts(data.cast::<u8>(), len));
        }
        ffi::PyErr_Clear();
    }
    // SAFETY: `ptr` is a live str; the encoder returns a new bytes object (owned here and
    // released after its contents are copied) or null with an error set, cleared here.
    unsafe {
        let encoded =
            ffi::PyUnicode_AsEncodedString(ptr, c"utf-8".as_ptr(), c"surrogatepass".as_ptr());
        if encoded.is_null() {
            ffi::PyErr_Clear();
            return Cow::Owned(Vec::new());
        }
        let data = ffi::PyBytes_AsString(encoded);
        let len = usize::try_from(ffi::PyBytes_Size(encoded)).unwrap_or(0);
        let owned = std::slice::from_raw_parts(data.cast::<u8>(), len).to_vec();
        ffi::Py_DecRef(encoded);
        Cow::Owned(owned)
    }
}
