"""Assignment from Python equals the Rust example bit for bit (flows, costs, iterations), tables come
as DataFrames or dicts, and the documented dtypes hold."""

import json
import subprocess
import sys

import numpy as np
import pytest

import urbanflow
from conftest import DATA, example

NET, TRIPS = DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp"


@pytest.mark.parametrize("algorithm,gap", [("bfw", 1e-4), ("b", 1e-10), ("msa", 1e-2)])
def test_flows_equal_the_example_bit_for_bit(tmp_path, algorithm, gap):
    flows_csv = tmp_path / "flows.csv"
    out = subprocess.run(
        [str(example("assign")), "--net", str(NET), "--trips", str(TRIPS), "--algorithm", algorithm, "--gap",
         str(gap), "--max-iters", "1000", "--threads", "2", "--backend", "cpu", "--json", "--flows-out",
         str(flows_csv)],
        capture_output=True, text=True, check=True,
    )
    want = json.loads(out.stdout)
    r = urbanflow.assign(NET, TRIPS, algorithm=algorithm, gap=gap, max_iters=1000, threads=2, backend="cpu")
    assert r.iterations == want["iterations"]
    assert r.converged == want["converged"]
    assert r.relative_gap == want["relative_gap"]
    rows = [line.split(",") for line in flows_csv.read_text().splitlines()[1:]]
    assert [float(x[3]) for x in rows] == r.flows.tolist()
    assert [float(x[4]) for x in rows] == r.costs.tolist()


def test_tables_and_dtypes(monkeypatch):
    net = urbanflow.Network.from_tntp(NET)
    trips = urbanflow.Demand.from_tntp(TRIPS, net)
    assert (net.num_nodes, net.num_links, net.num_zones) == (24, 76, 24)
    assert trips.total == pytest.approx(360600.0)
    r = urbanflow.assign(net, trips, gap=1e-3, backend="cpu")
    assert r.flows.dtype == np.float64 and r.flows.shape == (76,)
    pandas = pytest.importorskip("pandas")
    assert isinstance(r.links, pandas.DataFrame) and list(r.links.columns)[:4] == ["from", "to", "flow", "cost"]
    assert len(r.history) == r.iterations
    # Without pandas: dicts of numpy columns.
    monkeypatch.setitem(sys.modules, "pandas", None)
    r = urbanflow.assign(net, trips, gap=1e-3, backend="cpu")
    assert isinstance(r.links, dict) and r.links["flow"] is r.flows
    assert r.history["relative_gap"].dtype == np.float64
    # Threads 1 and 2 give the same flows.
    one = urbanflow.assign(net, trips, gap=1e-4, backend="cpu", threads=1, as_frame=False)
    two = urbanflow.assign(net, trips, gap=1e-4, backend="cpu", threads=2, as_frame=False)
    assert one.flows.tolist() == two.flows.tolist()
