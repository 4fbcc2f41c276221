//! Binding of the workspace search engine: `SearchPattern` and `locate` (their errors,
//! `PatternError` and `ResultSizeError`, are in the error table, errors.rs).

use orkestrel_core::search::{self, Hit, Options, Pattern, SearchError, HIT_OVERHEAD};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple, PyType};

use crate::convert::text;
use crate::errors::{search_error, shield, PatternError};
use crate::unicode::str_bytes;

/// A replace as Python receives it: the new text, the count, its UTF-8 size and line breaks.
type Replaced<'py> = (Bound<'py, PyString>, usize, usize, usize);

/// A matched or replaced text as a Python `str` (lone surrogates restored).
fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    Ok(text(py, bytes)?.cast_into::<PyString>()?)
}

/// Runs engine work with the GIL released, turning a refusal, or a panic that must never
/// reach Python, into a `PatternError` (see [`search_error`]). The texts it reads are borrowed
/// from the caller's `str`s ([`str_bytes`]): immutable, and alive for the whole call, so they
/// may be read with the GIL released.
fn guarded<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, SearchError> + Send,
) -> PyResult<T> {
    search_error(py.detach(|| shield(work)))
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
        query: &Bound<'_, PyString>,
        regex: bool,
        sensitive: bool,
        lines: bool,
    ) -> PyResult<Self> {
        let options = Options {
            regex,
            sensitive,
            lines,
        };
        let Ok(query) = query.to_str().map(str::to_owned) else {
            return Err(PatternError::new_err(
                "the query is not valid Unicode text: it holds a lone surrogate",
            ));
        };
        let pattern = guarded(py, move || Pattern::new(&query, options))?;
        Ok(Self { pattern })
    }

    /// Finds up to `limit` matches in `text`, reported as `SearchMatch` values for `path`.
    #[pyo3(signature = (path, text, limit=None))]
    fn search(
        &self,
        py: Python<'_>,
        path: Bound<'_, PyString>,
        text: &Bound<'_, PyString>,
        limit: Option<usize>,
    ) -> PyResult<Py<PyList>> {
        let source = str_bytes(text.as_any());
        let hits = guarded(py, || self.pattern.search(&source[..], limit))?;
        matches(py, path, &source, hits)
    }

    /// Finds up to `limit` matches in `text` whose serialized size stays within `size` bytes
    /// (each match costing its line, its path and a fixed framing); returns the matches and the
    /// bytes they cost, or raises `ResultSizeError` once they would cost more.
    #[pyo3(signature = (path, text, limit, size))]
    fn search_within(
        &self,
        py: Python<'_>,
        path: Bound<'_, PyString>,
        text: &Bound<'_, PyString>,
        limit: Option<usize>,
        size: usize,
    ) -> PyResult<(Py<PyList>, usize)> {
        let source = str_bytes(text.as_any());
        let per_hit = str_bytes(path.as_any()).len().saturating_add(HIT_OVERHEAD);
        let (hits, spent) = guarded(py, || {
            self.pattern
                .search_within(&source[..], limit, size, per_hit)
        })?;
        Ok((matches(py, path, &source, hits)?, spent))
    }

    /// Replaces up to `limit` matches with `replacement`, taken literally. Returns the new text,
    /// the count, the new text's size in UTF-8 bytes and its line breaks; `None` when nothing
    /// matched.
    /// With `size`, the new text may hold at most that many bytes: a replace that would grow
    /// past it raises `ResultSizeError` before the text is built.
    #[pyo3(signature = (text, replacement, limit=None, size=None))]
    fn replace<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        replacement: &Bound<'py, PyString>,
        limit: Option<usize>,
        size: Option<usize>,
    ) -> PyResult<Option<Replaced<'py>>> {
        let text = str_bytes(text.as_any());
        let replacement = str_bytes(replacement.as_any());
        let size = size.unwrap_or(usize::MAX);
        let replaced = guarded(py, || {
            let replaced = self
                .pattern
                .replace_within(&text[..], &replacement[..], limit, size)?;
            Ok(replaced.map(|(out, count)| {
                let breaks = search::count_breaks(&out);
                (out, count, breaks)
            }))
        })?;
        match replaced {
            None => Ok(None),
            Some((out, count, breaks)) => Ok(Some((decode(py, &out)?, count, out.len(), breaks))),
        }
    }
}

/// Builds the `SearchMatch` values of `hits` in `source`, decoding each line once however many
/// hits it holds.
fn matches(
    py: Python<'_>,
    path: Bound<'_, PyString>,
    source: &[u8],
    hits: Vec<Hit>,
) -> PyResult<Py<PyList>> {
    let path = path.unbind();
    let mut matches = Vec::with_capacity(hits.len());
    let mut line: Option<(std::ops::Range<usize>, Py<PyString>)> = None;
    for hit in hits {
        let content = match &line {
            Some((bytes, content)) if *bytes == hit.bytes => content.clone_ref(py),
            _ => {
                let content = decode(py, &source[hit.bytes.clone()])?.unbind();
                line = Some((hit.bytes.clone(), content.clone_ref(py)));
                content
            }
        };
        let value = SearchMatch {
            path: path.clone_ref(py),
            line: hit.line,
            column: hit.column,
            length: hit.length,
            content,
        };
        matches.push(untracked(Bound::new(py, value)?));
    }
    Ok(PyList::new(py, matches)?.unbind())
}

/// Takes a `SearchMatch` out of the cycle collector's view. It holds only strings and integers,
/// so it can never be part of a cycle, and a search may create millions of them: tracked, they
/// would trigger full collections that walk all of them again and again.
fn untracked(value: Bound<'_, SearchMatch>) -> Bound<'_, SearchMatch> {
    // SAFETY: `value` is a live object of a GC type; untracking an object whose references
    // cannot form a cycle is always sound, and PyO3's dealloc untracks idempotently.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(value.as_ptr().cast()) };
    value
}

/// One search hit: the file's path, the 1-based line and column where the match starts (columns
/// count code points), the match length in code points, and the whole line holding it.
#[pyclass(frozen, module = "orkestrel._core")]
pub struct SearchMatch {
    #[pyo3(get)]
    path: Py<PyString>,
    #[pyo3(get)]
    line: usize,
    #[pyo3(get)]
    column: usize,
    #[pyo3(get)]
    length: usize,
    #[pyo3(get)]
    content: Py<PyString>,
}

impl SearchMatch {
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let fields = (
            self.path.clone_ref(py),
            self.line,
            self.column,
            self.length,
            self.content.clone_ref(py),
        );
        fields.into_pyobject(py)
    }
}

#[pymethods]
impl SearchMatch {
    #[new]
    fn new(
        path: Py<PyString>,
        line: usize,
        column: usize,
        length: usize,
        content: Py<PyString>,
    ) -> Self {
        Self {
            path,
            line,
            column,
            length,
            content,
        }
    }

    #[classattr]
    fn __match_args__() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        ("path", "line", "column", "length", "content")
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<SearchMatch>() {
            Ok(other) => {
                let equal = self.fields(py)?.eq(other.get().fields(py)?)?;
                Ok(PyBool::new(py, equal).to_owned().into_any().unbind())
            }
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.fields(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SearchMatch(path={}, line={}, column={}, length={}, content={})",
            self.path.bind(py).repr()?,
            self.line,
            self.column,
            self.length,
            self.content.bind(py).repr()?,
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
        Ok((slf.get_type(), slf.get().fields(slf.py())?))
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
    let text = str_bytes(text.as_any());
    let found = guarded(py, || Ok(search::locate(&text[..], line, column)))?;
    Ok((found.line, found.column, found.offset))
}
