//! The `orkestrel._core` extension module: argument plumbing, conversions and
//! error mapping over `orkestrel-core`.

use pyo3::prelude::*;

mod search;

#[pymodule(gil_used = false)]
mod _core {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::search::{locate, PatternError, SearchMatch, SearchPattern};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", orkestrel_core::VERSION)
    }
}
