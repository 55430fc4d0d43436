//! The extension module `urbanflow._urbanflow` behind the Python package `urbanflow`
//! (`python/urbanflow/__init__.py` is the API users import; it converts inputs and builds tables).
//! No logic of its own: each function calls the Rust library once, outside the GIL
//! (the `run` module), and returns numpy arrays that own the library's vectors (no copy).

mod access;
mod distribution;
mod errors;
mod graph;
mod hierarchy;
mod odme;
mod osm;
mod paths;
mod run;
mod tap;
mod transit;
mod transit_assign;

use pyo3::prelude::*;

/// The compiled half of the `urbanflow` package.
#[pymodule]
fn _urbanflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<graph::Graph>()?;
    m.add_class::<hierarchy::Hierarchy>()?;
    m.add_class::<tap::Network>()?;
    m.add_class::<tap::Demand>()?;
    m.add_function(wrap_pyfunction!(tap::assign, m)?)?;
    m.add_function(wrap_pyfunction!(tap::skims, m)?)?;
    m.add_function(wrap_pyfunction!(odme::estimate_od, m)?)?;
    m.add_function(wrap_pyfunction!(transit_assign::transit_assign, m)?)?;
    m.add_function(wrap_pyfunction!(access::accessibility, m)?)?;
    m.add_function(wrap_pyfunction!(access::betweenness, m)?)?;
    m.add_function(wrap_pyfunction!(access::nearest, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::ipf, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::gravity, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::run_model, m)?)?;
    m.add_class::<osm::OsmGraph>()?;
    m.add_class::<transit::Transit>()?;
    m.add("UNREACHABLE", urbanflow::sssp::UNREACHABLE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
