"""IPF and the gravity model from Python: equal to AequilibraE 1.7.2's results on its Sioux Falls
matrices (fixtures made by scripts/fixtures/aequilibrae_distribution.py), equal to the `matrix`
`urbanflow` command bit for bit, and refusing bad input."""

import csv
import json
import subprocess

import numpy as np
import pytest

import urbanflow
from conftest import REPO, command, furness

FIX = REPO / "crates" / "algos-tap" / "tests" / "fixtures" / "distribution"


def totals(name):
    rows = list(csv.DictReader(open(FIX / name)))
    return [int(r["zone"]) for r in rows], np.array([float(r["total"]) for r in rows])


def dense(name, zones, missing=0.0):
    index = {z: k for k, z in enumerate(zones)}
    m = np.full((len(zones), len(zones)), missing)
    for r in csv.DictReader(open(FIX / name)):
        m[index[int(r["origin"])], index[int(r["destination"])]] = float(r["value"])
    return m


ZONES, ROWS = totals("rows.csv")
_, COLS = totals("cols.csv")


def close(ours, theirs, tol=1e-9):
    return np.max(np.abs(ours - theirs)) <= tol * np.max(np.abs(theirs))


def test_ipf_and_gravity_equal_aequilibrae():
    b = urbanflow.ipf(dense("seed.csv", ZONES), ROWS, COLS, tolerance=1e-13)
    assert b.converged and b.row_residual < 1e-12 and b.matrix.shape == (24, 24)
    assert close(b.matrix, dense("ipf.csv", ZONES))
    costs = dense("costs.csv", ZONES, np.inf)
    for name, deterrence in [("power", "power:2"), ("expo", "expo:0.1"), ("gamma", "gamma:-0.5,0.05")]:
        g = urbanflow.gravity(costs, ROWS, COLS, deterrence, tolerance=1e-13)
        assert close(g.matrix, dense(f"gravity_{name}.csv", ZONES)), name
    p = urbanflow.gravity(costs, ROWS, COLS, "expo:0.1", constraint="production")
    assert np.allclose(p.matrix.sum(axis=1), ROWS, rtol=1e-12)


def test_ipf_equals_the_command_bit_for_bit(tmp_path):
    out = tmp_path / "trips.csv"
    run = subprocess.run([*command("matrix"), "ipf", "--seed", str(FIX / "seed.csv"), "--rows", str(FIX / "rows.csv"),
                          "--cols", str(FIX / "cols.csv"), "--out", str(out), "--json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(run.stdout)
    b = urbanflow.ipf(dense("seed.csv", ZONES), ROWS, COLS)
    assert report["iterations"] == b.iterations and report["converged"]
    index = {z: k for k, z in enumerate(ZONES)}
    for r in csv.DictReader(open(out)):
        assert float(r["value"]) == b.matrix[index[int(r["origin"])], index[int(r["destination"])]]


def test_bad_input_is_refused():
    with pytest.raises(urbanflow.errors.InvalidInputError, match="row targets total"):
        urbanflow.ipf(np.ones((2, 2)), [10.0, 10.0], [5.0, 10.0])
    b = urbanflow.ipf(np.ones((2, 2)), [10.0, 10.0], [5.0, 10.0], scale_columns=True)
    assert b.matrix.sum() == pytest.approx(20.0)
    with pytest.raises(urbanflow.errors.InvalidInputError, match=r"shape \[3, 2\], expected \(2, 2\)"):
        urbanflow.ipf(np.ones((3, 2)), [1.0, 1.0], [1.0, 1.0])
    with pytest.raises(urbanflow.errors.InvalidInputError, match="deterrence `normal:1`"):
        urbanflow.gravity(np.ones((2, 2)), [1.0, 1.0], [1.0, 1.0], "normal:1")
    with pytest.warns(RuntimeWarning, match="ipf stopped after 1 iterations"):
        urbanflow.ipf(np.array([[1.0, 2.0], [3.0, 4.0]]), [10.0, 20.0], [12.0, 18.0], max_iterations=1)


def test_calibrate_and_the_model_loop():
    costs = dense("costs.csv", ZONES, np.inf)
    observed = urbanflow.gravity(costs, ROWS, COLS, "expo:0.15").matrix
    c = urbanflow.calibrate(costs, observed, "expo", tolerance=1e-12)
    assert c["converged"] and c["deterrence"].startswith("expo:") and c["coincidence_ratio"] > 0.999
    assert float(c["deterrence"].split(":")[1]) == pytest.approx(0.15, rel=1e-6)
    net = REPO / "examples" / "data" / "SiouxFalls_net.tntp"
    r = urbanflow.run_model(net, ROWS, COLS, "expo:0.12", as_frame=False)
    assert r.converged and r.matrix.shape == (24, 24)
    assert np.allclose(r.matrix.sum(axis=1), ROWS, rtol=1e-9)
    assert r.history["demand_change"][-1] < 1e-3 and r.history["relative_gap"][-1] <= 1e-4
    assert r.history["loop"].tolist() == list(range(1, len(r.history["loop"]) + 1))


def test_friction_table_and_k_factors_equal_furness_of_their_seed():
    costs = dense("costs.csv", ZONES, np.inf)
    bands = [(4.0, 1.0), (8.0, 0.6), (12.0, 0.3), (20.0, 0.1)]
    uppers = np.array([u for u, _ in bands])
    factors = np.array([f for _, f in bands])
    finite = np.isfinite(costs)
    band = np.minimum(np.searchsorted(uppers, np.where(finite, costs, 0.0), side="right"), len(bands) - 1)
    f = np.where(finite, factors[band], 0.0)
    k = np.where((np.add.outer(np.arange(24), np.arange(24)) % 5) == 0, 0.5, 1.2)
    seed = np.outer(ROWS, COLS) * f * k
    oracle = furness(seed, ROWS, COLS)
    g = urbanflow.gravity(costs, ROWS, COLS, bands, k_factors=k, tolerance=1e-13)
    assert close(g.matrix, oracle, 1e-10)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="upper bound 4"):
        urbanflow.gravity(costs, ROWS, COLS, [(5.0, 1.0), (4.0, 0.5)])


def test_least_squares_calibration_of_gamma_from_a_distribution(tmp_path):
    costs = dense("costs.csv", ZONES, np.inf)
    made = urbanflow.gravity(costs, ROWS, COLS, "gamma:-0.5,0.05", tolerance=1e-13).matrix
    # The survey: trips by 1-unit cost bands, numpy's histogram as the oracle of the banding.
    finite = np.isfinite(costs)
    upper = np.arange(1.0, 42.0)
    trips, _ = np.histogram(np.minimum(costs[finite], 40.5), bins=np.concatenate([[0.0], upper]),
                            weights=made[finite])
    c = urbanflow.calibrate(costs, None, "gamma", fit="least-squares", lengths=(upper, trips), rows=ROWS,
                            cols=COLS, tolerance=1e-10)
    assert c["converged"] and c["sum_of_squares"] < 1e-12, c
    alpha, beta = (float(x) for x in c["deterrence"].split(":")[1].split(","))
    assert alpha == pytest.approx(-0.5, rel=1e-4) and beta == pytest.approx(0.05, rel=1e-4)
    assert np.allclose(c["observed_shares"], trips / trips.sum(), atol=1e-15)
    # The command fits the same matrix the same way, bit for bit.
    write = lambda path, m: path.write_text("origin,destination,value\n" + "".join(  # noqa: E731
        f"{o},{d},{float(m[i, j])!r}\n" for i, o in enumerate(ZONES) for j, d in enumerate(ZONES)
        if np.isfinite(m[i, j])))
    write(tmp_path / "made.csv", made)
    run = subprocess.run([*command("matrix"), "calibrate", "--costs", str(FIX / "costs.csv"), "--observed",
                          str(tmp_path / "made.csv"), "--rows", str(FIX / "rows.csv"), "--form", "gamma", "--fit",
                          "least-squares", "--band-width", "2", "--tolerance", "1e-10", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    ours = urbanflow.calibrate(costs, made, "gamma", fit="least-squares", band_width=2.0, tolerance=1e-10)
    assert report["deterrence"] == ours["deterrence"] and report["converged"]
    with pytest.raises(urbanflow.errors.InvalidInputError, match="least squares"):
        urbanflow.calibrate(costs, made, "gamma")


def test_ipf_on_the_gpu_equals_the_cpu():
    import os
    seed = dense("seed.csv", ZONES)
    try:
        g = urbanflow.ipf(seed, ROWS, COLS, backend="gpu")
    except Exception as e:  # no adapter, or one without 64-bit floats
        if os.environ.get("URBANFLOW_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"no GPU for IPF: {e}")
    c = urbanflow.ipf(seed, ROWS, COLS)
    assert g.converged and abs(g.iterations - c.iterations) <= 1
    assert close(g.matrix, c.matrix, 1e-12)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="backend `tpu`"):
        urbanflow.ipf(seed, ROWS, COLS, backend="tpu")
