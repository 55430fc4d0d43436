"""Transit assignment by optimal strategies from Python: volumes equal `urbanflow transit-assign` bit for
bit and AequilibraE 1.7.2's (the library's fixtures) to 1e-9, skims come as zone × zone arrays, and bad
input is refused with file:line."""

import csv
import math
import subprocess
import warnings

import numpy as np
import pytest

import urbanflow
from conftest import REPO, command, shared_data

FIXTURES = REPO / "crates" / "algos-transit" / "tests" / "fixtures" / "strategies"


def volumes_of(path):
    with open(path) as f:
        return {int(r["link_id"]): float(r["volume"]) for r in csv.DictReader(f)}


def test_coquimbo_equals_the_command_and_aequilibrae(tmp_path):
    d = shared_data("transit/coquimbo")
    files = (d / "edges.csv", d / "demand.csv", d / "zones.csv")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="103 zones with demand have no connector"):
        urbanflow.transit_assign(*files)
    with pytest.warns(RuntimeWarning, match="16686.0 trips in 16686 OD pairs"):
        r = urbanflow.transit_assign(*files, allow_unconnected=True, as_frame=False)
    assert (r.assigned, r.intrazonal, r.unassigned) == (870.0, 133.0, 16686.0)
    out = tmp_path / "volumes.csv"
    run = subprocess.run([*command("transit-assign"), "--edges", str(files[0]), "--demand", str(files[1]), "--zones",
                          str(files[2]), "--allow-unconnected", "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cli = volumes_of(out)
    ours = dict(zip(r.links["link_id"].tolist(), r.links["volume"].tolist()))
    assert ours == cli, "Python and the command give the same bits"
    for link, want in volumes_of(FIXTURES / "coquimbo_volumes.csv").items():
        assert abs(ours[link] - want) <= 1e-9 * max(1.0, abs(want))


def test_grid_city_volumes_and_skims():
    d = FIXTURES / "city6"
    r = urbanflow.transit_assign(d / "edges.csv", d / "demand.csv", d / "zones.csv", skims=True, threads=2,
                                 as_frame=False)
    want = volumes_of(d / "aequilibrae_volumes.csv")
    for link, v in zip(r.links["link_id"].tolist(), r.links["volume"].tolist()):
        assert abs(v - want[link]) <= 1e-9 * max(1.0, abs(want[link]))
    n = len(r.zones)
    assert r.zones.tolist() == list(range(1, 37))
    for name in ("total", "in_vehicle", "waiting", "walking", "boardings"):
        assert r.skims[name].shape == (n, n)
        assert np.all(np.diag(r.skims[name]) == 0.0)
    # Every stop reaches every other on this grid (walking at least); the parts never exceed the total.
    total = r.skims["total"]
    assert np.all(np.isfinite(total))
    parts = r.skims["in_vehicle"] + r.skims["waiting"] + r.skims["walking"]
    assert np.all(parts <= total + 1e-6)


def test_bad_edges_name_file_and_line(tmp_path):
    edges = tmp_path / "edges.csv"
    edges.write_text("tail,head,trav_time,freq\n0,1,5,inf\n1,0,-2,inf\n")
    demand = tmp_path / "demand.csv"
    demand.write_text("origin,destination,demand\n0,1,1\n")
    with pytest.raises(urbanflow.errors.FormatError, match="edges.csv:3: travel time -2"):
        urbanflow.transit_assign(edges, demand)
    with pytest.raises(FileNotFoundError):
        urbanflow.transit_assign(tmp_path / "missing.csv", demand)
    ok = tmp_path / "ok.csv"
    ok.write_text("tail,head,trav_time,freq\n0,1,5,inf\n1,0,5,inf\n")
    r = urbanflow.transit_assign(ok, demand, as_frame=False)
    assert r.links["volume"].tolist() == [1.0, 0.0] and math.isclose(r.assigned, 1.0)


def test_from_a_gtfs_feed(tmp_path):
    demand = tmp_path / "demand.csv"
    demand.write_text("origin,destination,demand\n1,3,5\n1,4,2\n")
    feed = REPO / "crates" / "algos-transit" / "tests" / "data" / "mini_gtfs"
    r = urbanflow.transit_assign(demand=demand, gtfs=feed, date="2025-04-08", skims=True, as_frame=False)
    assert r.assigned == 7.0 and r.zones.tolist() == [1, 2, 3, 4]
    # S1 → S3: a full combined headway of waiting (two trips in two hours), then the ride.
    assert r.skims["waiting"][0, 2] == pytest.approx(3600.0, rel=1e-12)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="window '9-8'"):
        urbanflow.transit_assign(demand=demand, gtfs=feed, date="2025-04-08", window="9-8")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="not both"):
        urbanflow.transit_assign(feed / "stops.txt", demand, gtfs=feed, date="2025-04-08")


def test_congested_assignment_reaches_its_gap_or_warns(tmp_path):
    d = FIXTURES / "city6"
    files = (d / "edges.csv", d / "demand.csv", d / "zones.csv")
    plain = urbanflow.transit_assign(*files, as_frame=False)
    roomy = urbanflow.transit_assign(*files, vehicle_capacity=1e9, period=3600.0, as_frame=False)
    assert roomy.congestion["converged"] and roomy.congestion["iterations"] == 2
    assert roomy.links["volume"].tolist() == plain.links["volume"].tolist()
    # A billion places a vehicle: frequencies within 0.1 % of nominal (β = 0.5 lets even a few boarders count).
    assert np.allclose(roomy.links["effective_frequency"], roomy.links["frequency"], rtol=1e-3)
    with pytest.warns(RuntimeWarning, match="stopped after 5 iterations"):
        tight = urbanflow.transit_assign(*files, vehicle_capacity=2.0, period=3600.0, max_iterations=5,
                                         as_frame=False)
    slowed = tight.links["effective_frequency"] < tight.links["frequency"]
    assert slowed.any() and len(tight.congestion["gaps"]) == 4
    assert math.isclose(tight.assigned, plain.assigned)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="needs period"):
        urbanflow.transit_assign(*files, vehicle_capacity=2.0)
    vehicles = tmp_path / "vehicles.csv"
    vehicles.write_text("line_id,vehicle_capacity\nL1a,1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lined = urbanflow.transit_assign(*files, line_capacities=vehicles, period=3600.0, max_iterations=3,
                                         as_frame=False)
    finite = np.isfinite(lined.links["capacity"])
    assert finite.any() and (np.isinf(lined.links["capacity"]) & np.isfinite(lined.links["frequency"])).any()
    vehicles.write_text("line_id,vehicle_capacity\nL1a,0\n")
    with pytest.raises(urbanflow.errors.FormatError, match="vehicles.csv:2: vehicle capacity `0`"):
        urbanflow.transit_assign(*files, line_capacities=vehicles, period=3600.0)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="vehicle_capacity -1"):
        urbanflow.transit_assign(*files, vehicle_capacity=-1.0, period=3600.0)


def test_gpu_volumes_equal_the_cpu():
    import os
    d = FIXTURES / "city6"
    files = (d / "edges.csv", d / "demand.csv", d / "zones.csv")
    try:
        g = urbanflow.transit_assign(*files, backend="gpu", as_frame=False)
    except Exception as e:  # no adapter, or one without 64-bit floats
        if os.environ.get("URBANFLOW_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"no GPU for optimal strategies: {e}")
    c = urbanflow.transit_assign(*files, backend="cpu", as_frame=False)
    assert g.backend.startswith("gpu (") and c.backend.startswith("cpu (") and "sweeps" in g.why
    np.testing.assert_allclose(g.links["volume"], c.links["volume"], rtol=1e-12, atol=1e-9)
    assert g.assigned == pytest.approx(c.assigned, rel=1e-12)
    # Auto on this small city keeps to the CPU and says why; skims never go to the GPU.
    a = urbanflow.transit_assign(*files, as_frame=False)
    assert a.backend.startswith("cpu (") and "CPU predicted" in a.why, a.why
    with pytest.raises(urbanflow.errors.InvalidInputError, match="skims run on the CPU"):
        urbanflow.transit_assign(*files, backend="gpu", skims=True)
    # A congested assignment runs its iterations on the GPU: the same iterations and volumes.
    kw = dict(vehicle_capacity=2.0, period=3600.0, max_iterations=8, gap=0.0, as_frame=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cg = urbanflow.transit_assign(*files, backend="gpu", **kw)
        cc = urbanflow.transit_assign(*files, backend="cpu", **kw)
    assert cg.backend.startswith("gpu (") and cg.congestion["iterations"] == cc.congestion["iterations"] == 8
    np.testing.assert_allclose(cg.links["volume"], cc.links["volume"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(cg.congestion["gaps"], cc.congestion["gaps"], rtol=1e-9)
