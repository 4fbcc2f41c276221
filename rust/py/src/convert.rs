//! Conversions from core values to Python objects: text, JSON trees (contract documents and
//! inferred schemas) and faults.

use std::collections::HashMap;
use std::sync::Arc;

use orkestrel_core::contract::{Fault, FaultLimit, Reason, Segment};
use orkestrel_core::infer::Json as Schema;
use orkestrel_core::json::{Json, JsonRef, Num};
use pyo3::exceptions::PyMemoryError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3::{intern, IntoPyObjectExt};

/// A Python `str` from WTF-8 bytes (lone surrogates restored).
pub fn text<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(valid) = std::str::from_utf8(bytes) {
        return Ok(PyString::new(py, valid).into_any());
    }
    let len = ffi::Py_ssize_t::try_from(bytes.len()).map_err(|_| PyMemoryError::new_err(()))?;
    // SAFETY: the decoder copies `bytes`; the result is a new reference or null with an error.
    unsafe {
        let ptr = ffi::PyUnicode_DecodeUTF8(bytes.as_ptr().cast(), len, c"surrogatepass".as_ptr());
        Bound::from_owned_ptr_or_err(py, ptr)
    }
}

/// A number: an int for integers, a float otherwise.
pub fn number<'py>(py: Python<'py>, value: Num) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Num::Int(i) => i.into_bound_py_any(py),
        Num::Float(f) => Ok(PyFloat::new(py, f).into_any()),
    }
}

/// An int with the exact value of an integral double.
pub fn integral<'py>(py: Python<'py>, value: f64) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: PyLong_FromDouble accepts any finite double.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromDouble(value)) }
}

/// A Python `str` from bytes that may not be WTF-8: invalid sequences become U+FFFD.
pub fn text_lossy<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    text(py, bytes).or_else(|_| Ok(PyString::new(py, &String::from_utf8_lossy(bytes)).into_any()))
}

/// One level of a JSON tree, as the conversion to Python reads it.
pub enum Level<'a, T> {
    Null,
    Bool(bool),
    Number(Num),
    String(&'a [u8]),
    Array(&'a [T]),
    Object(&'a [(Box<[u8]>, T)]),
}

/// A JSON tree the binding hands to Python: the contract's shared documents and the
/// inferred schemas both go through [`json`].
pub trait Tree: Sized {
    /// Whether text that is not WTF-8 is replaced (U+FFFD) instead of raising.
    const LOSSY: bool;

    /// Whether the nesting is bounded (an inferred schema, by the depth limit), so that the
    /// conversion needs no stack growth.
    const BOUNDED: bool;

    /// This node, one level deep.
    fn level(&self) -> Level<'_, Self>;

    /// The address a container shared within the tree is known by, so that it converts
    /// once and stays shared; `None` where nodes are never shared.
    fn shared(&self) -> Option<*const ()>;
}

impl Tree for JsonRef {
    const LOSSY: bool = false;
    const BOUNDED: bool = false;

    fn level(&self) -> Level<'_, Self> {
        match &**self {
            Json::Null => Level::Null,
            Json::Bool(b) => Level::Bool(*b),
            Json::Number(n) => Level::Number(*n),
            Json::String(s) => Level::String(s),
            Json::Array(items) => Level::Array(items),
            Json::Object(entries) => Level::Object(entries),
        }
    }

    fn shared(&self) -> Option<*const ()> {
        matches!(**self, Json::Array(_) | Json::Object(_)).then(|| Arc::as_ptr(self).cast())
    }
}

impl Tree for Schema {
    const LOSSY: bool = true;
    const BOUNDED: bool = true;

    fn level(&self) -> Level<'_, Self> {
        match self {
            Schema::Null => Level::Null,
            Schema::Bool(b) => Level::Bool(*b),
            Schema::Int(i) => Level::Number(Num::Int(*i)),
            Schema::Float(x) => Level::Number(Num::Float(*x)),
            Schema::Str(s) => Level::String(s),
            Schema::Array(items) => Level::Array(items),
            Schema::Object(entries) => Level::Object(entries),
        }
    }

    fn shared(&self) -> Option<*const ()> {
        None
    }
}

/// Converts a JSON tree into dicts, lists, strings, numbers and booleans; a node shared in
/// the tree stays shared.
pub fn json<'py, T: Tree>(py: Python<'py>, document: &T) -> PyResult<Bound<'py, PyAny>> {
    let mut memo = None;
    json_node(py, document, &mut memo)
}

/// The containers converted so far, by address; made at the first shared container.
type Memo<'py> = Option<HashMap<*const (), Bound<'py, PyAny>>>;

fn json_node<'py, T: Tree>(
    py: Python<'py>,
    node: &T,
    memo: &mut Memo<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    if T::BOUNDED {
        json_body(py, node, memo)
    } else {
        orkestrel_core::stack::grow(|| json_body(py, node, memo))
    }
}

fn json_string<'py, T: Tree>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    if T::LOSSY {
        text_lossy(py, bytes)
    } else {
        text(py, bytes)
    }
}

fn json_body<'py, T: Tree>(
    py: Python<'py>,
    node: &T,
    memo: &mut Memo<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let key = node.shared();
    if let Some(done) = key.and_then(|key| memo.as_ref()?.get(&key)) {
        return Ok(done.clone());
    }
    let out = match node.level() {
        Level::Null => py.None().into_bound(py),
        Level::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Level::Number(n) => number(py, n)?,
        Level::String(s) => json_string::<T>(py, s)?,
        Level::Array(items) => list(py, items, |item| json_node(py, item, memo))?.into_any(),
        Level::Object(entries) => {
            let dict = PyDict::new(py);
            for (name, value) in entries {
                dict.set_item(json_string::<T>(py, name)?, json_node(py, value, memo)?)?;
            }
            dict.into_any()
        }
    };
    if let Some(key) = key {
        memo.get_or_insert_with(HashMap::new)
            .insert(key, out.clone());
    }
    Ok(out)
}

/// A list of one Python object for each item.
pub fn list<'py, T>(
    py: Python<'py>,
    items: impl IntoIterator<Item = T>,
    mut each: impl FnMut(T) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for item in items {
        out.append(each(item)?)?;
    }
    Ok(out)
}

/// A fault path as a list of `str`.
pub fn path<'py>(py: Python<'py>, segments: &[Segment]) -> PyResult<Bound<'py, PyList>> {
    list(py, segments, |segment| match segment {
        Segment::Key(key) => text(py, key),
        Segment::Index(index) => Ok(PyString::new(py, &index.to_string()).into_any()),
    })
}

/// A fault as a dict with the reference key order.
pub fn fault<'py>(py: Python<'py>, fault: &Fault) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item(intern!(py, "reason"), fault.reason.name())?;
    out.set_item(intern!(py, "path"), path(py, &fault.path)?)?;
    if let Some(expected) = fault.expected {
        out.set_item(intern!(py, "expected"), expected)?;
    }
    if let Some(constraint) = fault.constraint {
        out.set_item(intern!(py, "constraint"), constraint)?;
    }
    match &fault.limit {
        Some(FaultLimit::Number(n)) => out.set_item(intern!(py, "limit"), number(py, *n)?)?,
        Some(FaultLimit::Text(t)) => out.set_item(intern!(py, "limit"), text(py, t)?)?,
        None => {}
    }
    if let Some(received) = &fault.received {
        out.set_item(intern!(py, "received"), &*received.text())?;
    }
    if let Some(count) = fault.count {
        let key = if fault.reason == Reason::Variant {
            intern!(py, "variants")
        } else {
            intern!(py, "matched")
        };
        out.set_item(key, PyInt::new(py, count))?;
    }
    Ok(out)
}

/// A fault list.
pub fn faults<'py>(py: Python<'py>, faults: &[Fault]) -> PyResult<Bound<'py, PyList>> {
    list(py, faults, |item| fault(py, item).map(Bound::into_any))
}
