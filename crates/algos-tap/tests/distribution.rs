//! Trip distribution against AequilibraE 1.7.2 (fixtures from scripts/fixtures/aequilibrae_distribution.py
//! on the Sioux Falls matrices it ships), plus properties on random matrices and file errors.

use std::path::{Path, PathBuf};

use algos_tap::TapError;
use algos_tap::matrix::{Constraint, Deterrence, IpfOptions, ZoneMatrix, ZoneTotals, gravity, ipf};
use graph_core::rng::SplitMix64;
use proptest::prelude::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/distribution").join(name)
}

/// The study's zones and totals, and a matrix of it.
fn totals() -> (Vec<u64>, Vec<f64>, Vec<f64>) {
    let rows = ZoneTotals::read_csv(fixture("rows.csv")).unwrap();
    let cols = ZoneTotals::read_csv(fixture("cols.csv")).unwrap();
    let c = cols.in_order_of(&rows.zones, "columns").unwrap();
    (rows.zones, rows.totals, c)
}

fn matrix(name: &str, zones: &[u64], missing: f64) -> ZoneMatrix {
    ZoneMatrix::read_csv(fixture(name), zones, missing).unwrap()
}

/// Every cell within `tol` of AequilibraE's, relative to the largest cell.
fn assert_close(ours: &[f64], theirs: &[f64], tol: f64, what: &str) {
    let top = theirs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert!((a - b).abs() <= tol * top, "{what}: cell {k}: ours {a}, AequilibraE {b}");
    }
}

const AEQ_TOLERANCE: f64 = 1e-13;

#[test]
fn ipf_equals_aequilibrae() {
    let (zones, rows, cols) = totals();
    let seed = matrix("seed.csv", &zones, 0.0);
    let opts = IpfOptions { tolerance: AEQ_TOLERANCE, ..Default::default() };
    let b = ipf(seed.values(), &rows, &cols, &opts).unwrap();
    assert!(b.converged && b.row_residual < 1e-12 && b.column_residual < 1e-12, "{b:?}");
    assert_close(&b.matrix, matrix("ipf.csv", &zones, 0.0).values(), 1e-9, "ipf");
}

#[test]
fn gravity_equals_aequilibrae() {
    let (zones, rows, cols) = totals();
    let costs = matrix("costs.csv", &zones, f64::INFINITY);
    let opts = IpfOptions { tolerance: AEQ_TOLERANCE, ..Default::default() };
    for (file, deterrence) in [
        ("gravity_power.csv", Deterrence::Power { alpha: 2.0 }),
        ("gravity_expo.csv", Deterrence::Exponential { beta: 0.1 }),
        ("gravity_gamma.csv", Deterrence::Gamma { alpha: -0.5, beta: 0.05 }),
    ] {
        let b = gravity(costs.values(), &rows, &cols, deterrence, Constraint::Doubly, &opts).unwrap();
        assert!(b.converged, "{file}: {b:?}");
        assert_close(&b.matrix, matrix(file, &zones, 0.0).values(), 1e-9, file);
    }
}

/// A random seed (some zero cells) and consistent random totals.
fn random_problem(seed: u64, n: usize, m: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let s: Vec<f64> =
        (0..n * m).map(|_| if rng.below(5) == 0 { 0.0 } else { 1.0 + 99.0 * rng.unit_f64() }).collect();
    let rows: Vec<f64> = (0..n).map(|_| 10.0 + 1000.0 * rng.unit_f64()).collect();
    let mut cols: Vec<f64> = (0..m).map(|_| 10.0 + 1000.0 * rng.unit_f64()).collect();
    let scale = rows.iter().sum::<f64>() / cols.iter().sum::<f64>();
    cols.iter_mut().for_each(|c| *c *= scale);
    (s, rows, cols)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Totals are met, zero cells stay zero, and the seed's cross-product ratios are kept (IPF only
    /// scales rows and columns); the same bits on 1 and 3 threads.
    #[test]
    fn ipf_meets_totals_and_keeps_ratios(seed in 0u64..10_000, n in 2usize..40, m in 2usize..40) {
        let (s, rows, cols) = random_problem(seed, n, m);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| ipf(&s, &rows, &cols, &IpfOptions::default()))
        };
        let b = match run(1) {
            Ok(b) => b,
            // A random zero pattern can leave a row or column with no cell: refused, named.
            Err(TapError::InvalidOption(why)) => {
                prop_assert!(why.contains("all zero") || why.contains("cannot both be met"), "{}", why);
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        prop_assert_eq!(&b, &run(3).unwrap());
        if !b.converged {
            // Zero patterns can make the totals unreachable: then IPF never settles.
            return Ok(());
        }
        prop_assert!(b.row_residual < 1e-9 && b.column_residual < 1e-9, "{:?}", (b.row_residual, b.column_residual));
        for (x, y) in s.iter().zip(&b.matrix) {
            prop_assert_eq!(*x == 0.0, *y == 0.0);
        }
        let (i, j) = (0, 1);
        let (p, q) = (1, 0);
        let cell = |x: &[f64], r: usize, c: usize| x[r * m + c];
        if [cell(&s, i, p), cell(&s, i, q), cell(&s, j, p), cell(&s, j, q)].iter().all(|&v| v > 0.0) {
            let before = cell(&s, i, p) * cell(&s, j, q) / (cell(&s, i, q) * cell(&s, j, p));
            let after = cell(&b.matrix, i, p) * cell(&b.matrix, j, q) / (cell(&b.matrix, i, q) * cell(&b.matrix, j, p));
            prop_assert!((before - after).abs() <= 1e-9 * before);
        }
    }

    /// Symmetric costs and equal productions and attractions give a symmetric doubly-constrained matrix.
    #[test]
    fn gravity_is_symmetric_on_symmetric_data(seed in 0u64..10_000, n in 2usize..30) {
        let mut rng = SplitMix64::new(seed);
        let mut costs = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..i {
                let c = 1.0 + 20.0 * rng.unit_f64();
                costs[i * n + j] = c;
                costs[j * n + i] = c;
            }
            costs[i * n + i] = 0.5;
        }
        let totals: Vec<f64> = (0..n).map(|_| 10.0 + 100.0 * rng.unit_f64()).collect();
        let b = gravity(&costs, &totals, &totals, Deterrence::Exponential { beta: 0.2 }, Constraint::Doubly, &IpfOptions::default()).unwrap();
        for i in 0..n {
            for j in 0..n {
                let (x, y) = (b.matrix[i * n + j], b.matrix[j * n + i]);
                prop_assert!((x - y).abs() <= 1e-9 * x.max(y), "{i},{j}: {x} vs {y}");
            }
        }
        // Production-constrained: rows exact.
        let p = gravity(&costs, &totals, &totals, Deterrence::Power { alpha: 1.5 }, Constraint::Production, &IpfOptions::default()).unwrap();
        prop_assert!(p.row_residual < 1e-12);
    }
}

#[test]
fn inconsistent_totals_are_refused_unless_scaled() {
    let seed = [1.0, 1.0, 1.0, 1.0];
    let err = ipf(&seed, &[10.0, 10.0], &[5.0, 10.0], &IpfOptions::default()).unwrap_err();
    assert!(err.to_string().contains("row targets total 20 but column targets 15"), "{err}");
    let b =
        ipf(&seed, &[10.0, 10.0], &[5.0, 10.0], &IpfOptions { scale_columns: true, ..Default::default() })
            .unwrap();
    assert!((b.matrix[0] + b.matrix[2] - 20.0 / 3.0).abs() < 1e-9, "{:?}", b.matrix);
    for (rows, cols, seed, want) in [
        (vec![1.0, 1.0], vec![1.0, 1.0], vec![1.0, 1.0, 1.0], "3 cells for 2 rows × 2 columns"),
        (vec![1.0, 1.0], vec![1.0, 1.0], vec![1.0, f64::NAN, 1.0, 1.0], "seed cell (0, 1) is NaN"),
        (vec![1.0, -1.0], vec![0.0, 0.0], vec![1.0; 4], "row target 1 is -1"),
        (
            vec![2.0, 0.0],
            vec![1.0, 1.0],
            vec![0.0, 0.0, 1.0, 1.0],
            "row 0 has target 2 but its seed row is all zero",
        ),
    ] {
        let err = ipf(&seed, &rows, &cols, &IpfOptions::default()).unwrap_err();
        assert!(err.to_string().contains(want), "{err}");
    }
}

/// A CSV in a temporary folder.
fn csv_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-distribution-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bad_matrix_and_totals_files_name_file_and_line() {
    let zones = [1, 2];
    let cases: [(&str, &str, u64, &str); 5] = [
        ("zone.csv", "origin,destination,value\n1,2,5\n1,3,5\n", 3, "destination 3 is not a zone"),
        ("twice.csv", "origin,destination,value\n1,2,5\n1,2,6\n", 3, "listed twice (first on line 2)"),
        ("nan.csv", "origin,destination,value\n1,2,NaN\n", 2, "expected a finite value ≥ 0"),
        ("text.csv", "origin,destination,value\n1,two,5\n", 2, "destination `two`: expected a zone id"),
        ("header.csv", "o,d\n1,2\n", 1, "no `value` column"),
    ];
    for (name, text, line, want) in cases {
        let path = csv_file(name, text);
        let err = ZoneMatrix::read_csv(&path, &zones, 0.0).unwrap_err();
        assert!(matches!(err, TapError::TableFile { .. }), "{err:?}");
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!("{}:{line}: ", path.display())) && shown.contains(want),
            "{shown}"
        );
    }
    let err = ZoneTotals::read_csv(csv_file("t.csv", "zone,total\n1,5\n1,6\n")).unwrap_err();
    assert!(err.to_string().contains(":3: zone 1 is listed twice"), "{err}");
    let err = ZoneTotals::read_csv(csv_file("neg.csv", "zone,total\n1,-5\n")).unwrap_err();
    assert!(err.to_string().contains(":2: total -5"), "{err}");
    let costs = ZoneMatrix::read_csv(
        csv_file("costs.csv", "origin,destination,value\n1,2,5\n"),
        &zones,
        f64::INFINITY,
    )
    .unwrap();
    assert_eq!(costs.values(), &[f64::INFINITY, 5.0, f64::INFINITY, f64::INFINITY]);
}

#[test]
fn deterrence_names_parse_and_print() {
    for s in ["power:2", "expo:0.1", "gamma:-0.5,0.05"] {
        let d: Deterrence = s.parse().unwrap();
        assert_eq!(d.to_string(), s);
    }
    for bad in ["power", "power:x", "gamma:1", "normal:1", "expo:inf"] {
        assert!(bad.parse::<Deterrence>().is_err(), "{bad}");
    }
}

fn sioux_falls() -> algos_tap::Network {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    algos_tap::Network::read_tntp(dir.join("SiouxFalls_net.tntp"), algos_tap::CostFactors::default()).unwrap()
}

#[test]
fn calibration_recovers_the_parameter_of_a_gravity_matrix() {
    let (zones, rows, cols) = totals();
    let costs = matrix("costs.csv", &zones, f64::INFINITY);
    let opts = IpfOptions::default();
    for (truth, form) in [
        (Deterrence::Exponential { beta: 0.15 }, Deterrence::Exponential { beta: 0.0 }),
        (Deterrence::Power { alpha: 1.7 }, Deterrence::Power { alpha: 0.0 }),
    ] {
        let observed =
            gravity(costs.values(), &rows, &cols, truth.clone(), Constraint::Doubly, &opts).unwrap().matrix;
        let c = algos_tap::matrix::calibrate(costs.values(), &observed, form, 1e-12, &opts).unwrap();
        assert!(c.converged && c.coincidence_ratio > 0.999, "{c:?}");
        let (got, want) = match (c.deterrence, truth) {
            (Deterrence::Exponential { beta: g }, Deterrence::Exponential { beta: w }) => (g, w),
            (Deterrence::Power { alpha: g }, Deterrence::Power { alpha: w }) => (g, w),
            other => panic!("{other:?}"),
        };
        assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
    }
}

/// Least squares on the trip-length distribution recovers every form's parameters (gamma's two
/// included) from a matrix the model made, given the matrix or only its distribution and totals.
#[test]
fn least_squares_recovers_one_and_two_parameters() {
    use algos_tap::matrix::{CalibrateOptions, Fit, Observed, TripLengths, calibrate_to};
    let (zones, rows, cols) = totals();
    let costs = matrix("costs.csv", &zones, f64::INFINITY);
    let ipf_opts = IpfOptions::default();
    let ls = CalibrateOptions { fit: Fit::LeastSquares, tolerance: 1e-10, ..CalibrateOptions::default() };
    let params = |d: &Deterrence| match *d {
        Deterrence::Exponential { beta } => vec![beta],
        Deterrence::Power { alpha } => vec![alpha],
        Deterrence::Gamma { alpha, beta } => vec![alpha, beta],
        _ => unreachable!(),
    };
    for (truth, form) in [
        (Deterrence::Exponential { beta: 0.15 }, Deterrence::Exponential { beta: 0.0 }),
        (Deterrence::Power { alpha: 1.7 }, Deterrence::Power { alpha: 0.0 }),
        (Deterrence::Gamma { alpha: -0.5, beta: 0.05 }, Deterrence::Gamma { alpha: 0.0, beta: 0.0 }),
    ] {
        let made = gravity(costs.values(), &rows, &cols, truth.clone(), Constraint::Doubly, &ipf_opts)
            .unwrap()
            .matrix;
        let from_matrix = calibrate_to(costs.values(), Observed::Matrix(&made), form.clone(), &ls).unwrap();
        let lengths =
            TripLengths::of(&made, costs.values(), &TripLengths::uniform_bounds(1.0, 40.0).unwrap()).unwrap();
        let target = Observed::Lengths { lengths: &lengths, productions: &rows, attractions: &cols };
        let from_lengths = calibrate_to(costs.values(), target, form.clone(), &ls).unwrap();
        for c in [&from_matrix, &from_lengths] {
            assert!(
                c.converged && c.sum_of_squares < 1e-12 && c.coincidence_ratio > 0.9999,
                "{truth}: {c:?}"
            );
            for (got, want) in params(&c.deterrence).iter().zip(params(&truth)) {
                assert!((got - want).abs() < 1e-4 * want.abs(), "{truth}: got {}", c.deterrence);
            }
        }
    }
    // Gamma has two parameters: the mean cost alone cannot fix them.
    let made = gravity(
        costs.values(),
        &rows,
        &cols,
        Deterrence::Exponential { beta: 0.1 },
        Constraint::Doubly,
        &ipf_opts,
    )
    .unwrap()
    .matrix;
    let err = calibrate_to(
        costs.values(),
        Observed::Matrix(&made),
        Deterrence::Gamma { alpha: 0.0, beta: 0.0 },
        &CalibrateOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("least squares"), "{err}");
}

/// A friction factor table and K-factors equal IPF of the seed built by hand from them.
#[test]
fn tables_and_k_factors_are_the_seed_ipf_balances() {
    use algos_tap::matrix::gravity_with_k_factors;
    let (zones, rows, cols) = totals();
    let costs = matrix("costs.csv", &zones, f64::INFINITY);
    let n = zones.len();
    let bands = vec![(4.0, 1.0), (8.0, 0.6), (12.0, 0.3), (20.0, 0.1)];
    let table = Deterrence::table(bands.clone()).unwrap();
    let k: Vec<f64> = (0..n * n).map(|c| if (c / n + c % n) % 5 == 0 { 0.5 } else { 1.2 }).collect();
    let factor = |c: f64| {
        if !c.is_finite() {
            return 0.0;
        }
        bands.iter().find(|&&(upper, _)| c < upper).unwrap_or(bands.last().unwrap()).1
    };
    let mut seed: Vec<f64> =
        (0..n * n).map(|c| rows[c / n] * cols[c % n] * factor(costs.values()[c]) * k[c]).collect();
    let sum: f64 = seed.iter().sum();
    let total: f64 = rows.iter().sum();
    seed.iter_mut().for_each(|t| *t *= total / sum);
    let opts = IpfOptions::default();
    let oracle = ipf(&seed, &rows, &cols, &opts).unwrap().matrix;
    let ours =
        gravity_with_k_factors(costs.values(), Some(&k), &rows, &cols, &table, Constraint::Doubly, &opts)
            .unwrap();
    assert_close(&ours.matrix, &oracle, 1e-12, "table with K-factors");
    // K-factors of one change nothing, bit for bit.
    let ones = vec![1.0; n * n];
    let plain =
        gravity(costs.values(), &rows, &cols, table.clone(), Constraint::Doubly, &opts).unwrap().matrix;
    let with_ones =
        gravity_with_k_factors(costs.values(), Some(&ones), &rows, &cols, &table, Constraint::Doubly, &opts)
            .unwrap()
            .matrix;
    assert_eq!(plain, with_ones);
    let bad = vec![-1.0; n * n];
    let err =
        gravity_with_k_factors(costs.values(), Some(&bad), &rows, &cols, &table, Constraint::Doubly, &opts)
            .unwrap_err();
    assert!(err.to_string().contains("K-factor (0, 0) is -1"), "{err}");
}

#[test]
fn table_and_distribution_files_name_their_errors() {
    use algos_tap::matrix::TripLengths;
    let t = Deterrence::read_table(csv_file("ff.csv", "upper,factor\n5,1\n10,0.5\n")).unwrap();
    assert_eq!(t.of(7.0), 0.5);
    for (text, expected) in [
        ("upper,factor\n5,1\n4,0.5\n", ":3: upper bound 4: expected a finite bound above 5"),
        ("upper,factor\n5,-1\n", ":2: factor -1"),
        ("upper,factor\n5,x\n", ":2: factor `x`: expected a finite number"),
        ("lower,factor\n5,1\n", ":1: no `upper` column"),
        ("upper,factor\n", ":1: no rows"),
    ] {
        let err = Deterrence::read_table(csv_file("bad_ff.csv", text)).unwrap_err().to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
    }
    let l = TripLengths::read_csv(csv_file("tld.csv", "upper,trips\n10,30\n20,10\n")).unwrap();
    for (width, max) in [(0.0, 10.0), (-1.0, 10.0), (1e-9, 10.0), (1.0, f64::NAN)] {
        assert!(TripLengths::uniform_bounds(width, max).is_err(), "width {width} up to {max}");
    }
    assert_eq!(l.shares(), &[0.75, 0.25]);
    for (text, expected) in [
        ("upper,trips\n10,30\n10,10\n", ":3: upper bound 10"),
        ("upper,trips\n10,0\n", "every band is empty"),
        ("upper,trips\n10,inf\n", ":2: trips `inf`"),
    ] {
        let err = TripLengths::read_csv(csv_file("bad_tld.csv", text)).unwrap_err().to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
    }
}

/// The loop settles on Sioux Falls: its matrix meets the totals, its last equilibrium meets the gap,
/// and distributing once more on its own skims moves the matrix little.
#[test]
fn the_model_loop_settles_on_a_consistent_matrix() {
    use algos_tap::model::{ModelOptions, run_model};
    let net = sioux_falls();
    let rows: Vec<f64> = (0..24).map(|z| 8_000.0 + 500.0 * f64::from(z % 7)).collect();
    let mut cols: Vec<f64> = (0..24).map(|z| 6_000.0 + 900.0 * f64::from(z % 5)).collect();
    let scale = rows.iter().sum::<f64>() / cols.iter().sum::<f64>();
    cols.iter_mut().for_each(|c| *c *= scale);
    let opts = ModelOptions::new(Deterrence::Exponential { beta: 0.12 });
    let r = run_model(&net, &rows, &cols, &opts, |_| {}).unwrap();
    assert!(r.converged, "{:?}", r.history);
    let last = r.history.last().unwrap();
    assert!(last.demand_change < 1e-3 && last.relative_gap <= 1e-4, "{last:?}");
    let b = algos_tap::matrix::ipf(&r.matrix, &rows, &cols, &IpfOptions::default()).unwrap();
    assert!(b.iterations <= 2, "the loop's matrix was not balanced: {b:?}");
    let again = gravity(&r.skims.cost, &rows, &cols, opts.deterrence.clone(), Constraint::Doubly, &opts.ipf)
        .unwrap()
        .matrix;
    let moved: f64 =
        again.iter().zip(&r.matrix).map(|(a, b)| (a - b).abs()).sum::<f64>() / r.matrix.iter().sum::<f64>();
    assert!(moved < 0.02, "one more distribution moves {moved} of the matrix");
}
