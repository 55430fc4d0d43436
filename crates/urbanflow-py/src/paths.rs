//! Input file names as the command line reads them: a path that exists is taken as given; otherwise
//! a relative one is looked up under the data root (`$URBANFLOW_DATA`, or the `shared/data` beside a
//! checkout), the documentation's `../shared/data/…` prefixes included
//! ([`urbanflow::graph::datasets::resolve_input`]). A name found nowhere is a `FileNotFoundError`
//! with errno 2, "No such file or directory" and the name as typed.

use std::path::PathBuf;

use pyo3::PyErr;
use pyo3::exceptions::PyFileNotFoundError;

use urbanflow::graph::datasets::{data_root, resolve_input};

/// The file `path` names, or `FileNotFoundError` when there is none.
pub(crate) fn input_path(path: PathBuf) -> Result<PathBuf, PyErr> {
    let found = resolve_input(&path, data_root().as_deref());
    if found.exists() {
        Ok(found)
    } else {
        Err(PyFileNotFoundError::new_err((2, "No such file or directory", path.display().to_string())))
    }
}
