//! The `orkestrel._core` extension module: argument plumbing, conversions and
//! error mapping over `orkestrel-core`.

mod contract;
mod convert;
mod errors;
mod functions;
mod node;
mod sink;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
mod _core {
    use orkestrel_core::constants as limits;
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::contract::PyContract;
    #[pymodule_export]
    use crate::functions::{
        check_shape, clone_json_record, clone_json_value, is_json_value, number_to_string, preview,
        schema_to_shape, validate_shape,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", orkestrel_core::VERSION)?;
        m.add("FAULT_LIMIT", limits::FAULT_LIMIT)?;
        m.add("PREVIEW_LIMIT", limits::PREVIEW_LIMIT)?;
        m.add("GUARD_DEPTH_LIMIT", limits::GUARD_DEPTH_LIMIT)?;
        m.add("COMPILE_DEPTH_LIMIT", limits::COMPILE_DEPTH_LIMIT)?;
        m.add("COMPILE_NODE_LIMIT", limits::COMPILE_NODE_LIMIT)?;
        m.add("CLONE_NODE_LIMIT", limits::CLONE_NODE_LIMIT)?;
        m.add("GENERATION_ATTEMPT_LIMIT", limits::GENERATION_ATTEMPT_LIMIT)?;
        m.add("INFER_DEPTH_LIMIT", limits::INFER_DEPTH_LIMIT)?;
        m.add("INFER_BREADTH_LIMIT", limits::INFER_BREADTH_LIMIT)?;
        m.add(
            "JSON_SCHEMA_TYPES",
            pyo3::types::PyTuple::new(m.py(), limits::JSON_SCHEMA_TYPES)?,
        )?;
        Ok(())
    }
}
