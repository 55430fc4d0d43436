//! Trip distribution on dense matrices: `ipf` and `gravity`, numpy in and out.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::tap::matrix::{Balanced, Constraint, Deterrence, IpfOptions};

use crate::errors::Error;
use crate::run::{Run, run};

fn vector(a: &PyReadonlyArray1<'_, f64>, what: &str) -> Result<Vec<f64>, Error> {
    Ok(a.as_array().iter().copied().collect::<Vec<f64>>()).and_then(|v| {
        if v.is_empty() { Err(Error::Input(format!("{what}: expected at least one zone"))) } else { Ok(v) }
    })
}

fn square(a: &PyReadonlyArray2<'_, f64>, rows: usize, cols: usize, what: &str) -> Result<Vec<f64>, Error> {
    let shape = a.as_array().shape().to_vec();
    if shape != [rows, cols] {
        return Err(Error::Input(format!(
            "{what}: shape {shape:?}, expected ({rows}, {cols}) from the totals"
        )));
    }
    Ok(a.as_array().iter().copied().collect())
}

fn result<'py>(py: Python<'py>, b: Balanced, rows: usize, cols: usize) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let m = numpy::ndarray::Array2::from_shape_vec((rows, cols), b.matrix)
        .map_err(|e| Error::Input(e.to_string()))?;
    d.set_item("matrix", m.into_pyarray(py))?;
    d.set_item("iterations", b.iterations)?;
    d.set_item("gap", b.gap)?;
    d.set_item("converged", b.converged)?;
    d.set_item("row_residual", b.row_residual)?;
    d.set_item("column_residual", b.column_residual)?;
    Ok(d)
}

/// Iterative proportional fitting (see the Python `ipf`).
#[pyfunction]
#[pyo3(signature = (seed, rows, cols, *, tolerance = 1e-12, max_iterations = 10_000, scale_columns = false, threads = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn ipf<'py>(
    py: Python<'py>,
    seed: PyReadonlyArray2<'py, f64>,
    rows: PyReadonlyArray1<'py, f64>,
    cols: PyReadonlyArray1<'py, f64>,
    tolerance: f64,
    max_iterations: u32,
    scale_columns: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let (rows, cols) = (vector(&rows, "rows")?, vector(&cols, "cols")?);
    let (n, m) = (rows.len(), cols.len());
    let seed = square(&seed, n, m, "seed")?;
    let opts = IpfOptions { tolerance, max_iterations, scale_columns };
    let b = run(py, Run { threads }, move |_| Ok(urbanflow::tap::matrix::ipf(&seed, &rows, &cols, &opts)?))?;
    result(py, b, n, m)
}

/// The gravity model (see the Python `gravity`).
#[pyfunction]
#[pyo3(signature = (costs, rows, cols, deterrence, *, constraint = "doubly", tolerance = 1e-12, max_iterations = 10_000, scale_columns = false, threads = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn gravity<'py>(
    py: Python<'py>,
    costs: PyReadonlyArray2<'py, f64>,
    rows: PyReadonlyArray1<'py, f64>,
    cols: PyReadonlyArray1<'py, f64>,
    deterrence: &str,
    constraint: &str,
    tolerance: f64,
    max_iterations: u32,
    scale_columns: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let (rows, cols) = (vector(&rows, "rows")?, vector(&cols, "cols")?);
    let (n, m) = (rows.len(), cols.len());
    let costs = square(&costs, n, m, "costs")?;
    let deterrence: Deterrence = deterrence.parse().map_err(Error::Input)?;
    let constraint = match constraint {
        "doubly" => Constraint::Doubly,
        "production" => Constraint::Production,
        other => {
            return Err(
                Error::Input(format!("constraint `{other}`: expected \"doubly\" or \"production\"")).into()
            );
        }
    };
    let opts = IpfOptions { tolerance, max_iterations, scale_columns };
    let b = run(py, Run { threads }, move |_| {
        Ok(urbanflow::tap::matrix::gravity(&costs, &rows, &cols, deterrence, constraint, &opts)?)
    })?;
    result(py, b, n, m)
}
