//! The `orkestrel._core` extension module: argument plumbing, conversions and
//! error mapping over `orkestrel-core`.

mod contract;
mod convert;
mod dict;
mod errors;
mod functions;
mod hold;
mod infer;
mod jsonsize;
mod node;
mod query;
mod search;
mod sink;
mod unicode;
mod value;

use pyo3::prelude::*;

// Every walk of Python values is sound without the GIL: on a free-threaded build each reads
// lists and dicts inside their critical sections and holds what it reads (value.rs, hold.rs,
// node.rs).
#[pymodule(gil_used = false)]
mod _core {
    use orkestrel_core::constants as limits;
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::contract::{PyContract, PyFaultReport};
    #[pymodule_export]
    use crate::errors::{PatternError, ResultSizeError};
    #[pymodule_export]
    use crate::functions::{
        check_shape, clone_json_record, clone_json_value, coerce_number, is_json_value,
        number_to_string, preview, schema_to_shape, validate_shape,
    };
    #[pymodule_export]
    use crate::infer::{
        infer_json, infer_json_lines, is_valid_iso_instant, samples_to_format, samples_to_schema,
        string_to_format, value_to_schema, LinesReport, SchemaBuilder,
    };
    #[pymodule_export]
    use crate::jsonsize::json_size;
    #[pymodule_export]
    use crate::query::{
        all_exact_dicts, clamp_query, decode_rows, encode_rows, glob_match, like_match,
        normalize_query, resolve_limit,
    };
    #[pymodule_export]
    use crate::search::{locate, SearchMatch, SearchPattern};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        #[cfg(debug_assertions)]
        m.add_function(wrap_pyfunction!(crate::contract::_debug_parses, m)?)?;
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
        crate::infer::constants(m)?;
        m.add(
            "JSON_SCHEMA_TYPES",
            pyo3::types::PyTuple::new(m.py(), limits::JSON_SCHEMA_TYPES)?,
        )?;
        Ok(())
    }
}
