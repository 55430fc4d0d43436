//! Input files: paths under the data folder, the bundled files, readers' warnings, coordinates.

use std::path::{Path, PathBuf};

use crate::outcome::Error;

/// An input file argument: as given when it exists, else under `$URBANFLOW_DATA` (or the `shared/data`
/// beside the checkout), where the documentation's `../shared/data/…` names are looked up too.
pub fn input_file(s: &str) -> Result<PathBuf, Error> {
    let root = urbanflow::graph::datasets::data_root();
    Ok(urbanflow::graph::datasets::resolve_input(Path::new(s), root.as_deref()))
}

/// The small road graph bundled in `examples/data`: the default input of the graph examples.
pub fn bundled_road_graph() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-road.gr.gz");
    p.canonicalize().unwrap_or(p)
}

/// A file bundled in `examples/data`.
pub fn bundled(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name);
    p.canonicalize().unwrap_or(p)
}

/// Adds how to read a file anyway to an error that `--lenient` would turn into a warning.
pub fn lenient_hint(message: String) -> String {
    let disagreement = ["declares", "the header announces", "is the file cut", "is it cut short"];
    if disagreement.iter().any(|d| message.contains(d)) {
        format!("{message} (--lenient reads the file anyway, printing this as a warning)")
    } else {
        message
    }
}

/// Prints a reader's warnings (disagreements `--lenient` let through) on stderr.
pub fn print_warnings(warnings: &[urbanflow::graph::io::ReadWarning]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// A `LAT,LON` point in degrees (WGS 84); `what` names where it came from in the error (`--from`, or a
/// file and line).
pub fn lat_lon(s: &str, what: &str) -> Result<(f64, f64), Error> {
    let parsed = s
        .split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?)));
    match parsed {
        Some((lat, lon)) if (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon) => {
            Ok((lat, lon))
        }
        _ => Err(format!(
            "{what} `{s}`: expected LAT,LON in degrees (latitude in [-90, 90], longitude in [-180, 180]), \
             e.g. 41.1579,-8.6291"
        )
        .into()),
    }
}
