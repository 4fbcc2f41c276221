//! The `orkestrel._core` extension module: argument plumbing, conversions and
//! error mapping over `orkestrel-core`.

use pyo3::prelude::*;

mod infer;

#[pymodule(gil_used = false)]
mod _core {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::infer::{
        infer_json, infer_json_lines, is_valid_iso_instant, samples_to_format, samples_to_schema,
        string_to_format, value_to_schema, LinesReport, SchemaBuilder,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::infer::constants(m)?;
        m.add("__version__", orkestrel_core::VERSION)
    }
}
