//! Where JSON and JSON Lines text comes from: bytes, buffers, paths or binary file objects.

use std::io::{self, Read};
use std::path::PathBuf;

use orkestrel_core::infer::{
    read_bytes, read_file, read_stream, Accumulator, ErrorMode, LineError, Lines, Parsed, Report,
    Tape,
};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::{lines_error, raise_input, wrong_type};

/// A readable source of text.
pub enum Input<'py> {
    Bytes(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
    Path(PathBuf),
    Stream(Py<PyAny>),
}

impl<'py> Input<'py> {
    /// Classifies a JSON Lines source: bytes-like, a path (`str` or `os.PathLike`), or an
    /// object with a binary `read`.
    pub fn lines(source: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
        if let Ok(bytes) = source.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.clone()));
        }
        if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
            return Ok(Input::Path(source.extract()?));
        }
        if let Some(owned) = buffer(source)? {
            return Ok(Input::Owned(owned));
        }
        if source.hasattr("read")? {
            return Ok(Input::Stream(source.clone().unbind()));
        }
        Err(wrong_type(
            "expected bytes, a path or a binary file object",
            source,
        ))
    }

    /// Classifies a JSON document: bytes-like or `str` text.
    pub fn document(source: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
        if let Ok(bytes) = source.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.clone()));
        }
        if let Ok(text) = source.cast::<PyString>() {
            let utf8 = text.encode_utf8().or_else(|_| {
                text.call_method1("encode", ("utf-8", "surrogatepass"))?
                    .cast_into::<PyBytes>()
                    .map_err(PyErr::from)
            })?;
            return Ok(Input::Bytes(utf8));
        }
        match buffer(source)? {
            Some(owned) => Ok(Input::Owned(owned)),
            None => Err(wrong_type("expected str or bytes", source)),
        }
    }

    /// A name for error messages.
    pub fn name(&self) -> Option<String> {
        match self {
            Input::Path(path) => Some(path.display().to_string()),
            _ => None,
        }
    }
}

fn buffer(source: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(array) = source.cast::<PyByteArray>() {
        return Ok(Some(array.to_vec()));
    }
    match PyBuffer::<u8>::get(source) {
        Ok(view) => Ok(Some(view.to_vec(source.py())?)),
        Err(_) => Ok(None),
    }
}

/// Reads a binary Python file object, attaching to the interpreter for each call.
struct PyReader {
    file: Py<PyAny>,
    pending: Vec<u8>,
    used: usize,
    error: Option<PyErr>,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.used == self.pending.len() {
            let file = &self.file;
            let got = Python::attach(|py| -> PyResult<Vec<u8>> {
                let chunk = file.bind(py).call_method1("read", (buf.len().max(1),))?;
                if chunk.is_none() {
                    return Ok(Vec::new());
                }
                if chunk.is_instance_of::<PyString>() {
                    return Err(PyTypeError::new_err(
                        "the stream must be opened in binary mode",
                    ));
                }
                if let Ok(bytes) = chunk.cast::<PyBytes>() {
                    return Ok(bytes.as_bytes().to_vec());
                }
                buffer(&chunk)?.ok_or_else(|| PyTypeError::new_err("read() must return bytes"))
            });
            match got {
                Ok(bytes) => {
                    self.pending = bytes;
                    self.used = 0;
                }
                Err(e) => {
                    self.error = Some(e);
                    return Err(io::Error::other("the Python stream failed"));
                }
            }
        }
        let n = buf.len().min(self.pending.len() - self.used);
        buf[..n].copy_from_slice(&self.pending[self.used..self.used + n]);
        self.used += n;
        Ok(n)
    }
}

/// Parses `errors=`.
pub fn mode(errors: &str) -> PyResult<ErrorMode> {
    match errors {
        "raise" => Ok(ErrorMode::Raise),
        "skip" => Ok(ErrorMode::Skip),
        _ => Err(PyValueError::new_err(format!(
            "errors must be 'raise' or 'skip', not {errors:?}"
        ))),
    }
}

/// Reads JSON Lines into `acc` without holding the GIL; `progress(bytes_done)` is called about
/// ten times a second, and Ctrl-C cancels.
pub fn read_lines(
    py: Python<'_>,
    acc: &mut Accumulator,
    input: Input<'_>,
    mut lines: Lines,
    progress: Option<&Py<PyAny>>,
) -> PyResult<Report> {
    lines.options = acc.options();
    let name = input.name();
    let mut pending: Option<PyErr> = None;
    let mut reader = match &input {
        Input::Stream(file) => Some(PyReader {
            file: file.clone_ref(py),
            pending: Vec::new(),
            used: 0,
            error: None,
        }),
        _ => None,
    };
    let data: Option<&[u8]> = match &input {
        Input::Bytes(bytes) => Some(bytes.as_bytes()),
        Input::Owned(owned) => Some(owned),
        _ => None,
    };
    let path = match &input {
        Input::Path(path) => Some(path.clone()),
        _ => None,
    };
    let outcome = py.detach(|| {
        let mut tick = |done: u64| {
            Python::attach(|py| {
                let called = py
                    .check_signals()
                    .and_then(|()| progress.map_or(Ok(()), |f| f.call1(py, (done,)).map(drop)));
                called.map_err(|e| pending = Some(e)).is_ok()
            })
        };
        let result = match (data, &path, reader.as_mut()) {
            (Some(bytes), _, _) => read_bytes(lines, bytes, &mut tick),
            (_, Some(path), _) => match std::fs::File::open(path) {
                Ok(file) => read_file(lines, file, &mut tick),
                Err(e) => Err(orkestrel_core::infer::LinesError::Io(e)),
            },
            (_, _, Some(reader)) => read_stream(lines, reader, &mut tick),
            _ => Err(orkestrel_core::infer::LinesError::Cancelled),
        };
        result.and_then(|(part, report)| {
            acc.merge(&part)
                .map(|()| report)
                .map_err(|_| orkestrel_core::infer::LinesError::Cancelled)
        })
    });
    let pending = pending.or_else(|| reader.and_then(|r| r.error));
    outcome.map_err(|e| lines_error(py, name.as_deref(), e, pending))
}

/// Parses one JSON document into `acc` without holding the GIL.
pub fn read_document(py: Python<'_>, acc: &mut Accumulator, input: Input<'_>) -> PyResult<()> {
    let data: &[u8] = match &input {
        Input::Bytes(bytes) => bytes.as_bytes(),
        Input::Owned(owned) => owned,
        _ => return Err(PyTypeError::new_err("expected str or bytes")),
    };
    let outcome = py.detach(|| {
        let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
        let mut tape = Tape::default();
        match tape.parse(data) {
            Ok(()) => {
                acc.add(Parsed::root(&tape, data));
                Ok(())
            }
            Err(e) => Err(LineError::locate(data, e)),
        }
    });
    outcome.map_err(|e| raise_input(py, None, &e))
}
