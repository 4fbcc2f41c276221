//! Binding of the workspace search engine: `SearchPattern`, `locate` and `PatternError`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use orkestrel_core::search::{self, Options, Pattern, SearchError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBytes, PyString};

pyo3::create_exception!(
    orkestrel._core,
    PatternError,
    PyValueError,
    "Raised when a search pattern cannot be compiled or run by the linear-time engine."
);

/// A match as Python receives it: `(line, column, length, start, end)`.
type HitTuple = (usize, usize, usize, usize, usize);

/// The UTF-8 bytes of a Python `str`, borrowed from it when it has no lone surrogates and
/// otherwise encoded with `surrogatepass`, which keeps one code point per surrogate.
enum Text {
    Borrowed(PyBackedStr),
    Encoded(PyBackedBytes),
}

impl Text {
    fn new(value: &Bound<'_, PyString>) -> PyResult<Self> {
        if let Ok(text) = PyBackedStr::try_from(value.clone()) {
            return Ok(Self::Borrowed(text));
        }
        let encoded = value.call_method1("encode", ("utf-8", "surrogatepass"))?;
        Ok(Self::Encoded(PyBackedBytes::from(
            encoded.cast_into::<PyBytes>()?,
        )))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Self::Borrowed(text) => text.as_bytes(),
            Self::Encoded(bytes) => bytes,
        }
    }
}

fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(PyString::new(py, text)),
        Err(_) => Ok(PyBytes::new(py, bytes)
            .call_method1("decode", ("utf-8", "surrogatepass"))?
            .cast_into::<PyString>()?),
    }
}

/// Runs engine work with the GIL released, turning a refusal, or a panic that must never
/// reach Python, into a `PatternError`.
fn guarded<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, SearchError> + Send,
) -> PyResult<T> {
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(refusal)) => Err(PatternError::new_err(refusal.to_string())),
        Err(_) => Err(PatternError::new_err(
            "the search engine failed on this input",
        )),
    }
}

/// A compiled search query: literal or regular expression, case-sensitive or folded, its
/// matches confined to single lines or free to span them.
#[pyclass(frozen, module = "orkestrel._core")]
pub struct SearchPattern {
    pattern: Pattern,
}

#[pymethods]
impl SearchPattern {
    #[new]
    #[pyo3(signature = (query, *, regex, sensitive, lines))]
    fn new(
        py: Python<'_>,
        query: &str,
        regex: bool,
        sensitive: bool,
        lines: bool,
    ) -> PyResult<Self> {
        let options = Options {
            regex,
            sensitive,
            lines,
        };
        let query = query.to_owned();
        let pattern = guarded(py, move || Pattern::new(&query, options))?;
        Ok(Self { pattern })
    }

    /// Finds up to `limit` matches as `(line, column, length, start, end)` tuples: 1-based line
    /// and column, length in code points, and the code-point span of the line holding the match.
    #[pyo3(signature = (text, limit=None))]
    fn search(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        limit: Option<usize>,
    ) -> PyResult<Vec<HitTuple>> {
        let text = Text::new(text)?;
        let hits = guarded(py, || self.pattern.search(text.bytes(), limit))?;
        Ok(hits
            .into_iter()
            .map(|hit| (hit.line, hit.column, hit.length, hit.start, hit.end))
            .collect())
    }

    /// Replaces up to `limit` matches with `replacement`, taken literally. Returns the new text
    /// and the count, or `None` when nothing matched.
    #[pyo3(signature = (text, replacement, limit=None))]
    fn replace<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        replacement: &Bound<'py, PyString>,
        limit: Option<usize>,
    ) -> PyResult<Option<(Bound<'py, PyString>, usize)>> {
        let text = Text::new(text)?;
        let replacement = Text::new(replacement)?;
        let replaced = guarded(py, || {
            self.pattern
                .replace(text.bytes(), replacement.bytes(), limit)
        })?;
        match replaced {
            None => Ok(None),
            Some((out, count)) => Ok(Some((decode(py, &out)?, count))),
        }
    }
}

/// Clamps a 1-based `line` and `column` (code points) into `text`; returns the clamped line,
/// column and code-point offset.
#[pyfunction]
pub fn locate(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    line: usize,
    column: usize,
) -> PyResult<(usize, usize, usize)> {
    let text = Text::new(text)?;
    let found = guarded(py, || Ok(search::locate(text.bytes(), line, column)))?;
    Ok((found.line, found.column, found.offset))
}
