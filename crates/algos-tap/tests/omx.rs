//! OMX files: AequilibraE's Sioux Falls matrices (written by openmatrix) read as the CSV fixtures made
//! from them, round trips in the user's zone ids, and every malformed file refused with its reason.
//! (Files written here are read back by openmatrix and its validator in the Python tests.)

use std::path::{Path, PathBuf};

use algos_tap::TapError;
use algos_tap::matrix::ZoneMatrix;
use algos_tap::matrix::omx::{OmxFile, write_omx};

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir).join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-omx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn message(e: TapError) -> String {
    e.to_string()
}

#[test]
fn aequilibrae_demand_reads_as_its_csv_fixture() {
    let f = OmxFile::open(fixture("omx", "demand.omx")).unwrap();
    assert_eq!(
        (f.num_zones(), f.cores(), f.mappings()),
        (24, &["matrix".to_string()][..], &["taz".to_string()][..])
    );
    let m = f.matrix(None, None, 0.0).unwrap();
    assert_eq!(m.zones(), (1..=24).collect::<Vec<u64>>());
    let csv = ZoneMatrix::read_csv(fixture("distribution", "seed.csv"), m.zones(), 0.0).unwrap();
    assert_eq!(m.values(), csv.values());
    assert_eq!(m.values().iter().sum::<f64>(), 360_600.0);
}

#[test]
fn skims_need_a_core_named_and_equal_the_cost_fixture() {
    let f = OmxFile::open(fixture("omx", "skims.omx")).unwrap();
    assert_eq!(f.mappings(), ["main_index"]);
    let err = message(f.matrix(None, None, f64::INFINITY).unwrap_err());
    assert!(
        err.contains("distance_blended") && err.contains("time_final") && err.contains("name the one"),
        "{err}"
    );
    let time = f.matrix(Some("time_final"), None, f64::INFINITY).unwrap();
    let csv =
        ZoneMatrix::read_csv(fixture("distribution", "costs.csv"), time.zones(), f64::INFINITY).unwrap();
    assert_eq!(time.values(), csv.values());
    let err = message(f.matrix(Some("speed"), None, 0.0).unwrap_err());
    assert!(err.contains("no core speed"), "{err}");
    let mc = OmxFile::open(fixture("omx", "demand_mc.omx")).unwrap();
    assert_eq!(mc.cores(), ["car", "motorcycle", "trucks"]);
}

#[test]
fn round_trip_keeps_zone_ids_cores_and_bits() {
    let zones = vec![101, 7, 3_000_000_000, 42];
    let n = zones.len();
    let trips: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.1).powf(1.7)).collect();
    let mut costs: Vec<f64> = (0..n * n).map(|k| 1.0 / (k as f64 + 3.0)).collect();
    costs[5] = f64::INFINITY;
    let path = scratch("round.omx");
    write_omx(&path, &zones, "zone", &[("trips", &trips), ("cost", &costs)]).unwrap();
    let f = OmxFile::open(&path).unwrap();
    assert_eq!(
        (f.cores(), f.mappings()),
        (&["cost".to_string(), "trips".to_string()][..], &["zone".to_string()][..])
    );
    let t = f.matrix(Some("trips"), Some("zone"), 0.0).unwrap();
    assert_eq!((t.zones(), t.values()), (&zones[..], &trips[..]));
    let c = f.matrix(Some("cost"), None, f64::INFINITY).unwrap();
    assert_eq!(
        c.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        costs.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // An infinite trip count is refused (infinity means "unreachable" only for costs).
    let err = message(f.matrix(Some("cost"), None, 0.0).unwrap_err());
    assert!(err.contains("cell 7 → 7: inf") && err.contains("expected a finite value ≥ 0"), "{err}");
    // The study's order.
    let r = t.in_order_of(&[42, 3_000_000_000, 7, 101], "trips").unwrap();
    assert_eq!(r.get(101, 7), t.get(101, 7));
    // An empty matrix is a file too.
    write_omx(scratch("empty.omx"), &[], "zone", &[("trips", &[])]).unwrap();
    assert_eq!(OmxFile::open(scratch("empty.omx")).unwrap().num_zones(), 0);
}

/// An HDF5 file laid out by hand, to break one rule at a time.
fn hand_made(name: &str, build: impl FnOnce(&hdf5::File)) -> PathBuf {
    let path = scratch(name);
    let f = hdf5::File::create(&path).unwrap();
    build(&f);
    f.close().unwrap();
    path
}

fn shape(f: &hdf5::File, s: &[i32]) {
    f.new_attr::<i32>().shape(s.len()).create("SHAPE").unwrap().write_raw(s).unwrap();
}

fn core(f: &hdf5::File, name: &str, n: usize, values: &[f64]) {
    let g = if f.link_exists("data") { f.group("data").unwrap() } else { f.create_group("data").unwrap() };
    let view = ndarray::ArrayView2::from_shape((n, values.len() / n), values).unwrap();
    g.new_dataset_builder().with_data(view).create(name).unwrap();
}

#[test]
fn malformed_files_are_refused_with_their_reason() {
    let cases: Vec<(PathBuf, &str)> = vec![
        (scratch("missing.omx"), "no such file"),
        (
            {
                let p = scratch("text.omx");
                std::fs::write(&p, "origin,destination,value\n1,2,3\n").unwrap();
                p
            },
            "not an HDF5 file",
        ),
        (hand_made("noshape.omx", |f| core(f, "m", 2, &[0.0; 4])), "no SHAPE attribute"),
        (hand_made("rect.omx", |f| shape(f, &[2, 3])), "expected a square zone matrix"),
        (
            hand_made("wrongcore.omx", |f| {
                shape(f, &[2, 2]);
                core(f, "m", 3, &[0.0; 9]);
            }),
            "core m has shape [3, 3]: expected the file's SHAPE [2, 2]",
        ),
        (
            hand_made("wrongmap.omx", |f| {
                shape(f, &[2, 2]);
                core(f, "m", 2, &[0.0; 4]);
                let g = f.create_group("lookup").unwrap();
                g.new_dataset_builder().with_data(&[1i64, 2, 3][..]).create("taz").unwrap();
            }),
            "mapping taz has shape [3]",
        ),
    ];
    for (path, expected) in cases {
        let err = message(OmxFile::open(&path).unwrap_err());
        assert!(
            err.contains(expected) && err.contains(&*path.to_string_lossy()),
            "{}: {err}",
            path.display()
        );
    }
    // Files that open, and fail on the values they hold.
    let nan = hand_made("nan.omx", |f| {
        shape(f, &[2, 2]);
        core(f, "m", 2, &[0.0, 1.0, f64::NAN, 0.0]);
    });
    let err = message(OmxFile::open(&nan).unwrap().matrix(None, None, 0.0).unwrap_err());
    assert!(err.contains("core m, cell 2 → 1: NaN"), "{err}");
    let negative = hand_made("negative.omx", |f| {
        shape(f, &[2, 2]);
        core(f, "m", 2, &[0.0, -1.0, 0.0, 0.0]);
    });
    let err = message(OmxFile::open(&negative).unwrap().matrix(None, None, 0.0).unwrap_err());
    assert!(err.contains("cell 1 → 2: -1"), "{err}");
    let maps = hand_made("maps.omx", |f| {
        shape(f, &[2, 2]);
        core(f, "m", 2, &[0.0; 4]);
        let g = f.create_group("lookup").unwrap();
        g.new_dataset_builder().with_data(&[5i64, 5][..]).create("a").unwrap();
        let names: [hdf5::types::VarLenUnicode; 2] = ["x".parse().unwrap(), "y".parse().unwrap()];
        g.new_dataset_builder().with_data(&names[..]).create("b").unwrap();
    });
    let f = OmxFile::open(&maps).unwrap();
    for (mapping, expected) in [
        (None, "name the one that holds the zone ids"),
        (Some("a"), "names zone 5 twice"),
        (Some("b"), "does not hold integers"),
        (Some("c"), "no mapping c"),
    ] {
        let err = message(f.zones(mapping).unwrap_err());
        assert!(err.contains(expected), "{mapping:?}: {err}");
    }
}

#[test]
fn na_cells_hold_the_missing_value() {
    let path = hand_made("na.omx", |f| {
        shape(f, &[2, 2]);
        core(f, "cost", 2, &[0.0, -1.0, 4.0, 0.0]);
        let ds = f.dataset("data/cost").unwrap();
        ds.new_attr::<f64>().create("NA").unwrap().write_scalar(&-1.0).unwrap();
    });
    let m = OmxFile::open(&path).unwrap().matrix(None, None, f64::INFINITY).unwrap();
    assert_eq!(m.values(), &[0.0, f64::INFINITY, 4.0, 0.0]);
    assert_eq!(m.zones(), &[1, 2]);
}
