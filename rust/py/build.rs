//! Exposes PyO3's interpreter cfgs (`Py_3_14`, `Py_LIMITED_API`, …) to this crate.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
