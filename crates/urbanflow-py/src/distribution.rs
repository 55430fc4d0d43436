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
    // A C-contiguous array (what the Python layer passes) is one copy of memory.
    Ok(match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    })
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
#[pyo3(signature = (seed, rows, cols, *, tolerance = 1e-12, max_iterations = 10_000, scale_columns = false, threads = None, backend = "cpu"))]
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
    backend: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (rows, cols) = (vector(&rows, "rows")?, vector(&cols, "cols")?);
    let (n, m) = (rows.len(), cols.len());
    let seed = square(&seed, n, m, "seed")?;
    let opts = IpfOptions { tolerance, max_iterations, scale_columns };
    let gpu = match backend {
        "cpu" => false,
        "gpu" => true,
        other => return Err(Error::Input(format!("backend `{other}`: expected \"cpu\" or \"gpu\"")).into()),
    };
    let b = run(py, Run { threads }, move |_| {
        if gpu {
            let ctx = urbanflow::gpu::GpuContext::shared()
                .ok_or_else(|| Error::Input("backend \"gpu\": no GPU adapter found".into()))?;
            Ok(urbanflow::tap::matrix::ipf_gpu(ctx, seed, &rows, &cols, &opts, None)?)
        } else {
            Ok(urbanflow::tap::matrix::ipf_owned(seed, &rows, &cols, &opts)?)
        }
    })?;
    result(py, b, n, m)
}

/// The gravity model (see the Python `gravity`).
#[pyfunction]
#[pyo3(signature = (costs, rows, cols, deterrence, *, constraint = "doubly", tolerance = 1e-12, max_iterations = 10_000, scale_columns = false, threads = None, table = None, k_factors = None))]
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
    table: Option<PyReadonlyArray2<'py, f64>>,
    k_factors: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (rows, cols) = (vector(&rows, "rows")?, vector(&cols, "cols")?);
    let (n, m) = (rows.len(), cols.len());
    let costs = square(&costs, n, m, "costs")?;
    let deterrence: Deterrence = match &table {
        Some(t) => {
            let bands = t.as_array();
            if bands.shape()[1] != 2 {
                return Err(Error::Input("table: expected rows of (upper, factor)".into()).into());
            }
            let pairs = bands.rows().into_iter().map(|r| (r[0], r[1])).collect();
            Deterrence::table(pairs).map_err(|e| Error::Input(e.to_string()))?
        }
        None => deterrence.parse().map_err(Error::Input)?,
    };
    let k_factors = match &k_factors {
        Some(k) => Some(square(k, n, m, "k_factors")?),
        None => None,
    };
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
        Ok(urbanflow::tap::matrix::gravity_with_k_factors(
            &costs,
            k_factors.as_deref(),
            &rows,
            &cols,
            &deterrence,
            constraint,
            &opts,
        )?)
    })?;
    result(py, b, n, m)
}

/// Calibrates the gravity model's parameters to an observed matrix or trip-length distribution (see
/// the Python `calibrate`).
#[pyfunction]
#[pyo3(signature = (costs, observed = None, form = "expo", *, fit = "mean", lengths = None, rows = None, cols = None, band_width = None, tolerance = 1e-9, threads = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn calibrate<'py>(
    py: Python<'py>,
    costs: PyReadonlyArray2<'py, f64>,
    observed: Option<PyReadonlyArray2<'py, f64>>,
    form: &str,
    fit: &str,
    lengths: Option<(PyReadonlyArray1<'py, f64>, PyReadonlyArray1<'py, f64>)>,
    rows: Option<PyReadonlyArray1<'py, f64>>,
    cols: Option<PyReadonlyArray1<'py, f64>>,
    band_width: Option<f64>,
    tolerance: f64,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    use urbanflow::tap::matrix::{CalibrateOptions, Fit, Observed, TripLengths, calibrate_to};
    let form = Deterrence::form(form).map_err(|e| Error::Input(e.to_string()))?;
    let fit: Fit = fit.parse().map_err(|e: urbanflow::tap::TapError| Error::Input(e.to_string()))?;
    let opts = CalibrateOptions { fit, tolerance, band_width, ..CalibrateOptions::default() };
    enum Target {
        Matrix(Vec<f64>),
        Lengths(TripLengths, Vec<f64>, Vec<f64>),
    }
    let (target, n) = match (observed, lengths) {
        (Some(o), None) => {
            let n = o.as_array().shape()[0];
            (Target::Matrix(square(&o, n, n, "observed")?), n)
        }
        (None, Some((upper, trips))) => {
            let (Some(r), Some(c)) = (rows, cols) else {
                return Err(Error::Input("lengths need rows and cols (the zones' totals)".into()).into());
            };
            let l = TripLengths::new(vector(&upper, "lengths[0]")?, vector(&trips, "lengths[1]")?)
                .map_err(|e| Error::Input(e.to_string()))?;
            let (r, c) = (vector(&r, "rows")?, vector(&c, "cols")?);
            let n = r.len();
            (Target::Lengths(l, r, c), n)
        }
        _ => {
            return Err(
                Error::Input("give observed (a matrix) or lengths=(upper, trips), not both".into()).into()
            );
        }
    };
    let costs = square(&costs, n, n, "costs")?;
    let c = run(py, Run { threads }, move |_| {
        let observed = match &target {
            Target::Matrix(m) => Observed::Matrix(m),
            Target::Lengths(l, r, c) => Observed::Lengths { lengths: l, productions: r, attractions: c },
        };
        Ok(calibrate_to(&costs, observed, form, &opts)?)
    })?;
    let d = PyDict::new(py);
    d.set_item("deterrence", c.deterrence.to_string())?;
    d.set_item("observed_mean_cost", c.observed_mean_cost)?;
    d.set_item("model_mean_cost", c.model_mean_cost)?;
    d.set_item("applications", c.applications)?;
    d.set_item("coincidence_ratio", c.coincidence_ratio)?;
    d.set_item("sum_of_squares", c.sum_of_squares)?;
    d.set_item("bands", c.observed_lengths.upper().to_vec())?;
    d.set_item("observed_shares", c.observed_lengths.shares().to_vec())?;
    d.set_item("model_shares", c.model_lengths.shares().to_vec())?;
    d.set_item("converged", c.converged)?;
    Ok(d)
}

/// The skims ↔ demand loop (see the Python `run_model`).
#[pyfunction]
#[pyo3(signature = (net, rows, cols, deterrence, *, gap = 1e-4, demand_change = 1e-3, max_loops = 50, averaging = None, threads = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn run_model<'py>(
    py: Python<'py>,
    net: &crate::tap::Network,
    rows: PyReadonlyArray1<'py, f64>,
    cols: PyReadonlyArray1<'py, f64>,
    deterrence: &str,
    gap: f64,
    demand_change: f64,
    max_loops: u32,
    averaging: Option<f64>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    use urbanflow::tap::model::{Averaging, ModelOptions};
    let (rows, cols) = (vector(&rows, "rows")?, vector(&cols, "cols")?);
    let deterrence: Deterrence = deterrence.parse().map_err(Error::Input)?;
    let n = std::sync::Arc::clone(&net.net);
    let zones = n.num_zones() as usize;
    let r = crate::run::run(py, Run { threads }, move |cancel| {
        let opts = ModelOptions {
            assignment: urbanflow::tap::Stop { relative_gap: gap, ..Default::default() },
            demand_change,
            max_loops,
            averaging: averaging.map_or(Averaging::Msa, Averaging::Fixed),
            cancel: Some(cancel.flag()),
            ..ModelOptions::new(deterrence)
        };
        Ok(urbanflow::tap::model::run_model(&n, &rows, &cols, &opts, |_| {})?)
    })?;
    let d = PyDict::new(py);
    let m = numpy::ndarray::Array2::from_shape_vec((zones, zones), r.matrix)
        .map_err(|e| Error::Input(e.to_string()))?;
    d.set_item("matrix", m.into_pyarray(py))?;
    d.set_item("converged", r.converged)?;
    d.set_item("flows", r.flows.into_pyarray(py))?;
    d.set_item("costs", r.costs.into_pyarray(py))?;
    let h = PyDict::new(py);
    let col = |f: fn(&urbanflow::tap::model::ModelLoop) -> f64| r.history.iter().map(f).collect::<Vec<f64>>();
    h.set_item("loop", r.history.iter().map(|l| l.iteration).collect::<Vec<u32>>().into_pyarray(py))?;
    h.set_item("seconds", col(|l| l.seconds).into_pyarray(py))?;
    h.set_item("demand_change", col(|l| l.demand_change).into_pyarray(py))?;
    h.set_item("relative_gap", col(|l| l.relative_gap).into_pyarray(py))?;
    h.set_item("mean_cost", col(|l| l.mean_cost).into_pyarray(py))?;
    h.set_item("total_demand", col(|l| l.total_demand).into_pyarray(py))?;
    h.set_item(
        "assignment_iterations",
        r.history.iter().map(|l| l.assignment_iterations).collect::<Vec<u32>>().into_pyarray(py),
    )?;
    d.set_item("history", h)?;
    Ok(d)
}
