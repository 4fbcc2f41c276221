//! Bindings for the database tool's query helpers: limit clamping, connector normalisation and
//! the `like` / `glob` matchers.

use orkestrel_core::query::{self, CellKind, RawCondition, Sample, Verdict};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{query_error, wrong_type};
use crate::value::{base_of, exact_of, float, small_int, Base};

/// Strings at least this long are matched with the GIL released.
const DETACH_BYTES: usize = 4096;

/// Reads an optional row count: an int (saturating past i64), or a whole finite float.
fn read_count(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<i64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    match base_of(value) {
        Base::Bool => Err(PyTypeError::new_err(format!(
            "{name} must be a number, not a bool"
        ))),
        Base::Int => Ok(Some(match value.extract::<i64>() {
            Ok(count) => count,
            Err(_) if value.gt(0)? => i64::MAX,
            Err(_) => i64::MIN,
        })),
        Base::Float => {
            // SAFETY: a live float (or subclass).
            let number = unsafe { float(value.as_ptr()) };
            if number.is_finite() && number.fract() == 0.0 {
                // `as` saturates at the i64 bounds, which is exactly the clamping wanted here.
                return Ok(Some(number as i64));
            }
            Err(PyValueError::new_err(format!(
                "{name} must be a whole number, not {number}"
            )))
        }
        _ => Err(wrong_type(&format!("{name} must be an int"), value)),
    }
}

fn read_cap(cap: &Bound<'_, PyAny>) -> PyResult<i64> {
    read_count(Some(cap), "cap")?.ok_or_else(|| PyTypeError::new_err("cap must be an int"))
}

fn as_dict<'a, 'py>(value: &'a Bound<'py, PyAny>, name: &str) -> PyResult<&'a Bound<'py, PyDict>> {
    value
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{name} must be a dict")))
}

/// Picks the effective row limit a tool reads with: the request when it sits inside the cap,
/// the cap when it exceeds it, and 0 when either falls below zero.
#[pyfunction]
#[pyo3(signature = (requested, cap))]
pub fn resolve_limit(
    requested: Option<&Bound<'_, PyAny>>,
    cap: &Bound<'_, PyAny>,
) -> PyResult<u64> {
    Ok(query::resolve_limit(
        read_count(requested, "requested")?,
        read_cap(cap)?,
    ))
}

/// Clamps a `records` query to a row cap and builds the probe query, one row past the limit,
/// that detects truncation without a separate count.
#[pyfunction]
#[pyo3(signature = (query, cap))]
pub fn clamp_query<'py>(
    py: Python<'py>,
    query: Option<&Bound<'py, PyAny>>,
    cap: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let probe = PyDict::new(py);
    let mut requested = None;
    if let Some(query) = query.filter(|q| !q.is_none()) {
        let source = as_dict(query, "query")?;
        probe.update(source.as_mapping())?;
        requested = read_count(source.get_item("limit")?.as_ref(), "limit")?;
    }
    let clamped = query::clamp_limit(requested, read_cap(cap)?);
    probe.set_item("limit", clamped.probe)?;
    let result = PyDict::new(py);
    result.set_item("query", probe)?;
    result.set_item("limit", clamped.limit)?;
    Ok(result)
}

fn read_text(condition: &Bound<'_, PyDict>, key: &str, index: usize) -> PyResult<Option<String>> {
    match condition.get_item(key)? {
        None => Ok(None),
        Some(value) if value.is_none() => Ok(None),
        Some(value) => match value.cast::<PyString>() {
            Ok(text) => Ok(Some(text.to_str()?.to_owned())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "condition {index}: {key} must be a string"
            ))),
        },
    }
}

fn read_condition<'py>(
    item: &Bound<'py, PyAny>,
    index: usize,
) -> PyResult<RawCondition<Bound<'py, PyAny>>> {
    let condition = item
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("condition {index} must be a dict")))?;
    let required = |key: &str| {
        read_text(condition, key, index)?
            .ok_or_else(|| PyTypeError::new_err(format!("condition {index}: {key} is required")))
    };
    let column = required("column")?;
    let operator = required("operator")?;
    let values = match condition.get_item("values")? {
        Some(values) if values.is_instance_of::<PyList>() || values.is_instance_of::<PyTuple>() => {
            values.try_iter()?.collect::<PyResult<Vec<_>>>()?
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "condition {index}: values must be a list"
            )))
        }
    };
    Ok(RawCondition {
        column,
        operator,
        values,
        connector: read_text(condition, "connector", index)?,
    })
}

/// Returns the canonical query for a parsed serialized query: the same conditions, order and
/// paging, with each condition's omitted connector set to `"and"`.
#[pyfunction]
#[pyo3(signature = (query))]
pub fn normalize_query<'py>(
    py: Python<'py>,
    query: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(query) = query.filter(|q| !q.is_none()) else {
        return Ok(None);
    };
    let source = as_dict(query, "query")?;
    let result = PyDict::new(py);
    if let Some(conditions) = source.get_item("conditions")? {
        if !(conditions.is_instance_of::<PyList>() || conditions.is_instance_of::<PyTuple>()) {
            return Err(PyTypeError::new_err("conditions must be a list"));
        }
        let raw = conditions
            .try_iter()?
            .enumerate()
            .map(|(index, item)| read_condition(&item?, index))
            .collect::<PyResult<Vec<_>>>()?;
        let normalized = query::normalize_conditions(raw).map_err(query_error)?;
        let list = PyList::empty(py);
        for condition in normalized {
            let entry = PyDict::new(py);
            entry.set_item("column", condition.column)?;
            entry.set_item("operator", condition.operator.name())?;
            entry.set_item("values", PyList::new(py, condition.values)?)?;
            entry.set_item("connector", condition.connector.name())?;
            list.append(entry)?;
        }
        result.set_item("conditions", list)?;
    }
    for key in ["order", "limit", "offset"] {
        if let Some(value) = source.get_item(key)? {
            result.set_item(key, value)?;
        }
    }
    Ok(Some(result))
}

fn match_with(
    py: Python<'_>,
    pattern: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    matcher: fn(&str, &str) -> bool,
) -> PyResult<bool> {
    let (Ok(pattern), Ok(value)) = (pattern.cast::<PyString>(), value.cast::<PyString>()) else {
        return Ok(false);
    };
    let (pattern, value) = (pattern.to_str()?, value.to_str()?);
    if pattern.len() + value.len() < DETACH_BYTES {
        return Ok(matcher(pattern, value));
    }
    Ok(py.detach(|| matcher(pattern, value)))
}

/// Matches a value against a `like` pattern: `%` any run, `_` one character, no escape
/// character, case-insensitive. Anything but two strings does not match.
#[pyfunction]
pub fn like_match(
    py: Python<'_>,
    pattern: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    match_with(py, pattern, value, query::like_match)
}

/// Matches a value against a `glob` pattern: `*` any run, `?` one character, no character
/// classes, case-sensitive. Anything but two strings does not match.
#[pyfunction]
pub fn glob_match(
    py: Python<'_>,
    pattern: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    match_with(py, pattern, value, query::glob_match)
}

fn sample<'a>(value: &'a Bound<'_, PyAny>) -> Sample<'a> {
    let ptr = value.as_ptr();
    // SAFETY: each read matches the live cell's exact type.
    unsafe {
        match exact_of(value) {
            Base::None => Sample::Absent,
            Base::Str => value
                .cast_unchecked::<PyString>()
                .to_str()
                .map_or(Sample::Other, Sample::Text),
            Base::Bool => Sample::Bool(ptr == pyo3::ffi::Py_True()),
            Base::Int => Sample::Int(small_int(ptr).ok()),
            Base::Float => Sample::Float(float(ptr)),
            _ => Sample::Other,
        }
    }
}

/// Whether every item of a list is exactly a `dict` (no subclass), read in one pass.
#[pyfunction]
pub fn all_exact_dicts(rows: &Bound<'_, PyList>) -> bool {
    rows.iter().all(|row| row.is_exact_instance_of::<PyDict>())
}

type Encoded<'py> = (Bound<'py, PyList>, Bound<'py, PyList>, Vec<usize>);

/// Encodes the rows whose cells are all of their columns' plain types into parameter tuples,
/// in column order, and lists the indexes of the other rows, which need the full coercing path
/// (their places hold `None`). `columns` holds `(name, code, nullable)` per column.
#[pyfunction]
pub fn encode_rows<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyList>,
    columns: Vec<(Bound<'py, PyString>, u8, bool)>,
    key: usize,
) -> PyResult<Encoded<'py>> {
    let kinds: Vec<CellKind> = columns.iter().map(|c| CellKind::from_code(c.1)).collect();
    let none = py.None().into_bound(py);
    let count = rows.len();
    let mut keys: Vec<Bound<'py, PyAny>> = Vec::with_capacity(count);
    let mut batch: Vec<Bound<'py, PyAny>> = Vec::with_capacity(count);
    let mut slow = Vec::new();
    let mut params: Vec<Bound<'py, PyAny>> = Vec::with_capacity(columns.len());
    for (index, row) in rows.iter().enumerate() {
        params.clear();
        let fast = match row.cast_exact::<PyDict>() {
            Ok(dict) => encode_row(dict, &columns, &kinds, &none, &mut params)?,
            Err(_) => false,
        };
        match params.get(key).filter(|_| fast) {
            Some(chosen) => {
                keys.push(chosen.clone());
                batch.push(PyTuple::new(py, params.drain(..))?.into_any());
            }
            None => {
                keys.push(none.clone());
                batch.push(none.clone());
                slow.push(index);
            }
        }
    }
    Ok((PyList::new(py, keys)?, PyList::new(py, batch)?, slow))
}

/// Fills `params` with one row's bound values, in column order; false when a cell needs the
/// coercing path or the row holds a key that is not a column.
fn encode_row<'py>(
    dict: &Bound<'py, PyDict>,
    columns: &[(Bound<'py, PyString>, u8, bool)],
    kinds: &[CellKind],
    none: &Bound<'py, PyAny>,
    params: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<bool> {
    let mut present = 0;
    for ((name, _, nullable), kind) in columns.iter().zip(kinds) {
        let value = dict.get_item(name)?;
        present += usize::from(value.is_some());
        let value = value.unwrap_or_else(|| none.clone());
        match query::judge(*kind, *nullable, sample(&value)) {
            Verdict::Keep => params.push(value),
            Verdict::Null => params.push(none.clone()),
            Verdict::Flag(flag) => params.push(flag.into_pyobject(dict.py())?.into_any()),
            Verdict::Slow => return Ok(false),
        }
    }
    Ok(present == dict.len() && params.len() == columns.len())
}

/// The largest magnitude below which every whole float is an exact integer.
const EXACT_WHOLE: f64 = 9_007_199_254_740_992.0;

fn decode_cell<'py>(
    py: Python<'py>,
    value: Bound<'py, PyAny>,
    code: u8,
    decoder: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    match code {
        0 => Ok(value),
        1 => match value.cast_exact::<PyFloat>() {
            Ok(float) => {
                let number = float.value();
                if number.fract() == 0.0 && number.abs() <= EXACT_WHOLE {
                    // The cast is exact: the float is whole and within 2**53.
                    Ok((number as i64).into_pyobject(py)?.into_any())
                } else {
                    Ok(value)
                }
            }
            Err(_) if value.is_exact_instance_of::<PyInt>() => Ok(value),
            Err(_) => decoder.call1((value,)),
        },
        2 if value.is_exact_instance_of::<PyInt>() => {
            let one = value.extract::<i64>().is_ok_and(|n| n == 1);
            Ok(PyBool::new(py, one).to_owned().into_any())
        }
        _ => decoder.call1((value,)),
    }
}

/// Builds one row dict per engine tuple, in column order, leaving NULL cells out. `columns`
/// holds `(name, code, decoder)` per column: code 0 keeps the value, 1 turns a whole float
/// within 2**53 into an int, 2 reads a SQLite 0/1 integer as a bool; anything else (and a
/// value those codes do not expect) goes through `decoder`, the Python decoder of the column.
#[pyfunction]
pub fn decode_rows<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyList>,
    columns: Vec<(Bound<'py, PyString>, u8, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyList>> {
    let decoded = PyList::empty(py);
    for values in rows.iter() {
        let values = values.cast_into::<PyTuple>()?;
        if values.len() != columns.len() {
            return Err(PyValueError::new_err(format!(
                "a row has {} values for {} columns",
                values.len(),
                columns.len()
            )));
        }
        let row = PyDict::new(py);
        for ((name, code, decoder), value) in columns.iter().zip(values.iter()) {
            if !value.is_none() {
                row.set_item(name, decode_cell(py, value, *code, decoder)?)?;
            }
        }
        decoded.append(row)?;
    }
    Ok(decoded)
}
