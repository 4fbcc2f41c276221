//! Schema output (`Json`) to Python objects.

use orkestrel_core::infer::{Json, SchemaTooLarge};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::errors::too_large;

/// A Python `str` from WTF-8 bytes (lone surrogates survive as surrogates).
pub fn text<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(PyString::new(py, s).into_any());
    }
    // SAFETY: the pointer and length describe `bytes`; the result is a new reference or NULL.
    unsafe {
        let obj = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast(),
            bytes.len() as ffi::Py_ssize_t,
            c"surrogatepass".as_ptr(),
        );
        if obj.is_null() {
            ffi::PyErr_Clear();
            return Ok(PyString::new(py, &String::from_utf8_lossy(bytes)).into_any());
        }
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

/// Converts a rendered schema, or raises `ContractError(code="expansion")` for `door`.
pub fn schema<'py>(
    py: Python<'py>,
    rendered: Result<Json, SchemaTooLarge>,
    door: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match rendered {
        Ok(json) => to_python(py, &json),
        Err(SchemaTooLarge) => Err(too_large(py, door)),
    }
}

/// Converts a schema tree into dicts, lists, strings, numbers and booleans.
pub fn to_python<'py>(py: Python<'py>, value: &Json) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Json::Int(i) => i.into_pyobject(py)?.into_any(),
        Json::Float(x) => x.into_pyobject(py)?.into_any(),
        Json::Str(s) => text(py, s)?,
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Json::Object(entries) => {
            let dict = PyDict::new(py);
            for (key, item) in entries {
                dict.set_item(text(py, key)?, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}
