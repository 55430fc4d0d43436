"""IPF and the gravity model from Python: equal to AequilibraE 1.7.2's results on its Sioux Falls
matrices (fixtures made by scripts/fixtures/aequilibrae_distribution.py), equal to the `matrix`
`urbanflow` command bit for bit, and refusing bad input."""

import csv
import json
import subprocess

import numpy as np
import pytest

import urbanflow
from conftest import REPO, command

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
