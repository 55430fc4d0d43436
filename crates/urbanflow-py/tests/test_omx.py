"""OMX files both ways with openmatrix (PyPI), the format's reference implementation: files it writes
(float32 cores, several mappings, zone ids that are not 1..n) are read by the `urbanflow` command, and
files the command writes pass openmatrix's validator and hold the same numbers as the command's CSV
output. Needs the command built with the `omx` feature (CI's is; `URBANFLOW_REQUIRE_OMX=1` there)."""

import csv
import json
import os
import subprocess

import numpy as np
import pytest

import urbanflow
from conftest import DATA, command, furness

omx = pytest.importorskip("openmatrix")
from openmatrix import validator  # noqa: E402


def run(*args):
    done = subprocess.run([*command(args[0]), *args[1:]], capture_output=True, text=True)
    if "built without OMX support" in done.stderr:
        if os.environ.get("URBANFLOW_REQUIRE_OMX") == "1":
            pytest.fail("URBANFLOW_REQUIRE_OMX=1 but the urbanflow command was built without the omx feature")
        pytest.skip("the urbanflow command was built without the omx feature")
    return done


def totals_csv(path, zones, values):
    with open(path, "w") as f:
        f.write("zone,total\n")
        for z, t in zip(zones, values):
            f.write(f"{z},{float(t)!r}\n")


def validate(path):
    f = omx.open_file(str(path))
    try:
        for check in (validator.check1, validator.check2, validator.check3, validator.check4,
                      validator.check5, validator.check6, validator.check7, validator.check9,
                      validator.check10, validator.check11):
            result = check(f)
            assert result[0], f"{path}: openmatrix validator check {result[2]} failed: {result}"
    finally:
        f.close()


def test_openmatrix_file_in_our_file_out(tmp_path):
    rng = np.random.default_rng(7)
    zones = np.array([905, 12, 300, 7, 44, 1000], dtype=np.int32)
    n = len(zones)
    seed = rng.uniform(0.5, 10.0, (n, n)).astype(np.float32)
    rows = rng.uniform(50, 150, n)
    cols = rng.uniform(50, 150, n)
    cols *= rows.sum() / cols.sum()
    src = tmp_path / "seed.omx"
    with omx.open_file(str(src), "w") as f:
        f["seed"] = seed
        f["other"] = np.ones((n, n))
        f.create_mapping("taz", zones)
        f.create_mapping("row_number", np.arange(1, n + 1))
    # Totals in another zone order than the file's: the command aligns by id.
    order = np.argsort(zones)
    totals_csv(tmp_path / "rows.csv", zones[order], rows[order])
    totals_csv(tmp_path / "cols.csv", zones[order], cols[order])
    base = ["matrix", "ipf", "--seed", str(src), "--rows", str(tmp_path / "rows.csv"),
            "--cols", str(tmp_path / "cols.csv")]
    # Two cores, two mappings: the command asks which.
    done = run(*base, "--out", str(tmp_path / "x.omx"))
    assert done.returncode == 1 and "name the one to read" in done.stderr, done.stderr
    done = run(*base, "--core", "seed", "--out", str(tmp_path / "x.omx"))
    assert done.returncode == 1 and "name the one that holds the zone ids" in done.stderr, done.stderr
    out = tmp_path / "trips.omx"
    done = run(*base, "--core", "seed", "--mapping", "taz", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["converged"]
    validate(out)
    with omx.open_file(str(out)) as f:
        assert f.list_matrices() == ["trips"] and f.list_mappings() == ["zone"]
        ids = list(f.mapping("zone").keys())
        trips = np.array(f["trips"])
    # Written in the study's (the totals') zone order, ids kept.
    assert list(ids) == list(zones[order])
    oracle = furness(seed.astype(np.float64), rows, cols)[np.ix_(order, order)]
    assert np.max(np.abs(trips - oracle)) <= 1e-9 * oracle.max()
    # ... and equal to the Python API on the same arrays.
    b = urbanflow.ipf(seed.astype(np.float64)[np.ix_(order, order)], rows[order], cols[order])
    assert np.array_equal(trips, b.matrix)


def test_assign_reads_omx_trips_and_writes_omx_skims(tmp_path):
    net = DATA / "SiouxFalls_net.tntp"
    trips = {}
    for line in open(DATA / "SiouxFalls_trips.tntp"):
        line = line.strip()
        if line.startswith("Origin"):
            origin = int(line.split()[1])
        elif ":" in line and not line.startswith("<"):
            for cell in line.split(";"):
                if ":" in cell:
                    d, v = cell.split(":")
                    trips[(origin, int(d))] = float(v)
    zones = np.arange(1, 25)
    dense = np.zeros((24, 24))
    for (o, d), v in trips.items():
        dense[o - 1, d - 1] = v
    src = tmp_path / "demand.omx"
    with omx.open_file(str(src), "w") as f:
        f["car"] = dense
        f.create_mapping("taz", zones)
    csv_skims, omx_skims = tmp_path / "skims.csv", tmp_path / "skims.omx"
    a = run("assign", "--net", str(net), "--trips", str(src), "--skims", str(omx_skims), "--json")
    b = run("assign", "--net", str(net), "--skims", str(csv_skims), "--json")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ra, rb = json.loads(a.stdout), json.loads(b.stdout)
    # The same demand from OMX as from the TNTP file: the same equilibrium.
    assert ra["relative_gap"] == rb["relative_gap"] and ra["iterations"] == rb["iterations"]
    validate(omx_skims)
    with omx.open_file(str(omx_skims)) as f:
        assert sorted(f.list_matrices()) == ["cost", "distance", "time", "toll"]
        ids = list(f.mapping("zone").keys())
        cores = {name: np.array(f[name]) for name in f.list_matrices()}
    assert ids == list(range(1, 25))
    for r in csv.DictReader(open(csv_skims)):
        i, j = int(r["origin"]) - 1, int(r["destination"]) - 1
        for name in ("time", "distance", "toll", "cost"):
            assert cores[name][i, j] == float(r[name]), (name, i, j)


def test_bad_omx_files_are_named(tmp_path):
    text = tmp_path / "not.omx"
    text.write_text("origin,destination,value\n1,2,3\n")
    done = run("assign", "--trips", str(text))
    assert done.returncode == 1 and "not.omx" in done.stderr and "not an HDF5 file" in done.stderr, done.stderr
    bad = tmp_path / "nan.omx"
    m = np.zeros((24, 24))
    m[2, 5] = np.nan
    with omx.open_file(str(bad), "w") as f:
        f["m"] = m
    done = run("assign", "--trips", str(bad))
    assert done.returncode == 1 and "cell 3 → 6: NaN" in done.stderr, done.stderr
    other = tmp_path / "other.omx"
    with omx.open_file(str(other), "w") as f:
        f["m"] = np.ones((3, 3))
        f.create_mapping("taz", np.array([1, 2, 99]))
    done = run("assign", "--trips", str(other))
    assert done.returncode == 1 and "zone 99 is not one of the network's 24 zones" in done.stderr, done.stderr


def test_transit_skims_as_omx_equal_the_python_arrays(tmp_path):
    from conftest import REPO

    d = REPO / "crates" / "algos-transit" / "tests" / "fixtures" / "strategies" / "city6"
    files = [str(d / "edges.csv"), str(d / "demand.csv"), str(d / "zones.csv")]
    out = tmp_path / "skims.omx"
    done = run("transit-assign", "--edges", files[0], "--demand", files[1], "--zones", files[2],
               "--skims", str(out))
    assert done.returncode == 0, done.stderr
    validate(out)
    ours = urbanflow.transit_assign(*files, skims=True, as_frame=False)
    f = omx.open_file(str(out))
    try:
        assert sorted(f.list_matrices()) == ["boardings", "in_vehicle", "total", "waiting", "walking"]
        mapping = f.list_mappings()[0]
        assert list(f.mapping(mapping).keys()) == ours.zones.tolist()
        for name in ("total", "in_vehicle", "waiting", "walking", "boardings"):
            assert np.array_equal(np.array(f[name]), ours.skims[name]), name
    finally:
        f.close()
