//! The `orkestrel._core` extension module: argument plumbing, conversions and
//! error mapping over `orkestrel-core`.

use pyo3::prelude::*;

mod query;

#[pymodule(gil_used = false)]
mod _core {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::query::{
        clamp_query, encode_rows, glob_match, like_match, normalize_query, resolve_limit,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", orkestrel_core::VERSION)
    }
}
