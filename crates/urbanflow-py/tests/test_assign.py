"""Assignment from Python equals the `urbanflow` command bit for bit (flows, costs, iterations), tables come
as DataFrames or dicts, and the documented dtypes hold."""

import json
import subprocess
import sys

import numpy as np
import pytest

import urbanflow
from conftest import DATA, command

NET, TRIPS = DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp"


@pytest.mark.parametrize("algorithm,gap", [("bfw", 1e-4), ("b", 1e-10), ("msa", 1e-2)])
def test_flows_equal_the_command_bit_for_bit(tmp_path, algorithm, gap):
    flows_csv = tmp_path / "flows.csv"
    out = subprocess.run(
        [*command("assign"), "--net", str(NET), "--trips", str(TRIPS), "--algorithm", algorithm, "--gap",
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
    assert r.loaded_by.startswith("cpu"), r.loaded_by


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


def test_cached_demand_equals_the_parsed_one(tmp_path, monkeypatch):
    monkeypatch.setenv("URBANFLOW_CACHE_DIR", str(tmp_path))
    net = urbanflow.Network.from_tntp(NET)
    parsed = urbanflow.Demand.from_tntp(TRIPS, net)
    assert not list(tmp_path.glob("demand-v*.bin"))
    first = urbanflow.Demand.from_tntp(TRIPS, net, cache=True)
    assert len(list(tmp_path.glob("demand-v*.bin"))) == 1
    again = urbanflow.Demand.from_tntp(TRIPS, net, cache=True, scale=2.0)
    assert first.total == parsed.total and again.total == 2.0 * parsed.total
    a = urbanflow.assign(net, parsed, gap=1e-4, backend="cpu", as_frame=False)
    b = urbanflow.assign(net, urbanflow.Demand.from_tntp(TRIPS, net, cache=True), gap=1e-4, backend="cpu", as_frame=False)
    assert a.flows.tolist() == b.flows.tolist()


def test_skims_equal_the_command(tmp_path):
    skims_csv = tmp_path / "skims.csv"
    subprocess.run(
        [*command("assign"), "--net", str(NET), "--trips", str(TRIPS), "--gap", "1e-4", "--threads", "2",
         "--backend", "cpu", "--skims", str(skims_csv), "--json"],
        capture_output=True, text=True, check=True,
    )
    r = urbanflow.assign(NET, TRIPS, gap=1e-4, threads=2, backend="cpu")
    s = urbanflow.skims(NET, r)
    assert s["time"].shape == (24, 24) and s["cost"].dtype == np.float64
    rows = [line.split(",") for line in skims_csv.read_text().splitlines()[1:]]
    for o, d, time, distance, toll, cost in rows:
        i, j = int(o) - 1, int(d) - 1
        assert (s["time"][i, j], s["distance"][i, j], s["toll"][i, j], s["cost"][i, j]) == (
            float(time), float(distance), float(toll), float(cost))


def test_progress_callback():
    seen = []
    r = urbanflow.assign(NET, TRIPS, gap=1e-4, backend="cpu", progress=lambda log: seen.append(log) or True)
    assert [x["iteration"] for x in seen] == list(r.history["iteration"] if isinstance(r.history, dict)
                                                  else r.history["iteration"].tolist())
    assert seen[-1]["relative_gap"] == r.relative_gap
    with pytest.raises(urbanflow.errors.UrbanflowError, match="cancelled by the progress callback"):
        urbanflow.assign(NET, TRIPS, gap=1e-12, max_iters=2000, backend="cpu", progress=lambda log: False)

    def boom(log):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        urbanflow.assign(NET, TRIPS, gap=1e-12, max_iters=2000, backend="cpu", progress=boom)


def test_classes_equal_the_command_bit_for_bit(tmp_path):
    """Two classes from the bundled class file: the PCE flows equal `assign --classes` bit for bit."""
    classes = DATA / "SiouxFalls_classes.txt"
    flows_csv = tmp_path / "flows.csv"
    subprocess.run(
        [*command("assign"), "--net", str(NET), "--trips", str(TRIPS), "--classes", str(classes), "--gap",
         "1e-4", "--threads", "2", "--json", "--flows-out", str(flows_csv)],
        capture_output=True, text=True, check=True,
    )
    r = urbanflow.assign(NET, TRIPS, classes=classes, gap=1e-4, threads=2, as_frame=False)
    rows = [line.split(",") for line in flows_csv.read_text().splitlines()[1:]]
    assert [float(x[3]) for x in rows] == r.flows.tolist()
    assert r.classes is not None and len(r.classes) >= 2
    for name, vehicles in r.classes.items():
        assert vehicles.dtype == np.float64 and vehicles.shape == (76,)
        assert np.array_equal(r.links[f"flow_{name}"], vehicles)


def test_classes_as_dicts():
    """Two equal halves give the single-class flows exactly; a banned link carries none of its class."""
    single = urbanflow.assign(NET, TRIPS, gap=1e-4, threads=2, backend="cpu")
    halves = [{"name": "a", "share": 0.5}, {"name": "b", "share": 0.5}]
    r = urbanflow.assign(NET, TRIPS, classes=halves, gap=1e-4, threads=2)
    assert r.flows.tolist() == single.flows.tolist()
    net = urbanflow.Network.from_tntp(NET)
    links = net.links()
    k = next(i for i in range(net.num_links) if (links["from"][i], links["to"][i]) == (10, 15))
    trucks = {"name": "trucks", "pce": 2.5, "share": 0.1, "banned": [(10, 15)]}
    r = urbanflow.assign(net, TRIPS, classes=[{"name": "cars", "share": 0.9}, trucks], gap=1e-4, threads=2)
    assert r.classes["trucks"][k] == 0.0 and r.classes["cars"][k] > 0.0
    with pytest.raises(urbanflow.errors.InvalidInputError, match="no link from node 10 to node 99"):
        urbanflow.assign(net, TRIPS, classes=[{"name": "x", "banned": [(10, 99)]}])
    with pytest.raises(urbanflow.errors.InvalidInputError, match="not both"):
        urbanflow.assign(net, TRIPS, classes=[{"name": "x", "share": 1.0, "demand": urbanflow.Demand.from_tntp(TRIPS, net)}])


TURNS = """<NUMBER OF TURNS> 3
<U-TURNS> allow
<END OF METADATA>
1,3 3,4 ban ;
2,6 6,8 1.0 ;
10,15 15,19 ban trucks ;
"""


def test_turns_equal_the_command_bit_for_bit(tmp_path):
    turns = tmp_path / "sf_turns.tntp"
    turns.write_text(TURNS.replace("10,15 15,19 ban trucks ;\n", "").replace("<NUMBER OF TURNS> 3", "<NUMBER OF TURNS> 2"))
    flows_csv, turn_csv = tmp_path / "flows.csv", tmp_path / "turns.csv"
    out = subprocess.run(
        [*command("assign"), "--net", str(NET), "--trips", str(TRIPS), "--turns", str(turns), "--gap", "1e-4",
         "--threads", "2", "--backend", "cpu", "--json", "--flows-out", str(flows_csv), "--turn-flows-out",
         str(turn_csv)],
        capture_output=True, text=True, check=True,
    )
    want = json.loads(out.stdout)
    r = urbanflow.assign(NET, TRIPS, turns=turns, gap=1e-4, threads=2, backend="cpu", as_frame=False)
    assert r.iterations == want["iterations"]
    rows = [line.split(",") for line in flows_csv.read_text().splitlines()[1:]]
    assert [float(x[3]) for x in rows] == r.flows.tolist()
    assert r.flows.shape == (76,)
    rows = [line.split(",") for line in turn_csv.read_text().splitlines()[1:]]
    t = r.turns
    assert [int(x[0]) for x in rows] == t["node"].tolist()
    assert [x[1] for x in rows] == [f"{a}-{b}" for a, b in zip(t["from_node"].tolist(), t["node"].tolist())]
    assert [x[2] for x in rows] == [f"{a}-{b}" for a, b in zip(t["node"].tolist(), t["to_node"].tolist())]
    assert [float(x[3]) for x in rows] == t["volume"].tolist()
    # The banned turn 1 → 3 → 4 has no row; the penalised one costs its penalty.
    movements = set(zip(t["from_node"].tolist(), t["node"].tolist(), t["to_node"].tolist()))
    assert (1, 3, 4) not in movements and (1, 3, 12) in movements
    k = list(zip(t["from_node"].tolist(), t["node"].tolist(), t["to_node"].tolist())).index((2, 6, 8))
    assert t["penalty"][k] == 1.0


def test_turns_with_classes_and_select_link(tmp_path):
    turns = tmp_path / "sf_turns.tntp"
    turns.write_text(TURNS)
    classes = [{"name": "cars", "share": 0.9}, {"name": "trucks", "pce": 2.5, "share": 0.1}]
    seen = []
    r = urbanflow.assign(NET, TRIPS, turns=turns, classes=classes, gap=1e-3, threads=2, as_frame=False,
                         progress=lambda log: seen.append(log["iteration"]))
    assert seen == list(range(1, r.iterations + 1)), "progress is called for several classes too"
    t = r.turns
    k = [i for i, m in enumerate(zip(t["from_node"].tolist(), t["node"].tolist(), t["to_node"].tolist()))
         if m == (10, 15, 19)]
    assert len(k) == 1 and t["volume"][k[0]] > 0  # cars may turn there
    with pytest.raises(urbanflow.errors.InvalidInputError, match="class `trucks` is not among"):
        urbanflow.assign(NET, TRIPS, turns=turns, classes=[{"name": "cars"}], gap=1e-2)

    sel = tmp_path / "select.csv"
    subprocess.run(
        [*command("assign"), "--net", str(NET), "--trips", str(TRIPS), "--select-link", "1-3,10-15", "--gap",
         "1e-4", "--threads", "2", "--backend", "cpu", "--json", "--select-out", str(sel)],
        capture_output=True, text=True, check=True,
    )
    r = urbanflow.assign(NET, TRIPS, select_link=[(1, 3), (10, 15)], gap=1e-4, threads=2, backend="cpu",
                         as_frame=False)
    s = r.select_link
    rows = [line.split(",") for line in sel.read_text().splitlines()[1:]]
    got = list(zip(s["link_from"].tolist(), s["link_to"].tolist(), s["origin"].tolist(), s["destination"].tolist(),
                   s["flow"].tolist()))
    assert got == [(int(a), int(b), int(o), int(d), float(f)) for a, b, o, d, f in rows]
    # Summed over OD pairs, a selected link's flows are its link flow.
    links = urbanflow.Network.from_tntp(NET).links()
    k = next(i for i in range(76) if (links["from"][i], links["to"][i]) == (10, 15))
    on = s["link_from"] == 10
    assert s["flow"][on].sum() == pytest.approx(r.flows[k], rel=1e-9)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="one class"):
        urbanflow.assign(NET, TRIPS, select_link=[(1, 3)], classes=classes)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="node id pairs"):
        urbanflow.assign(NET, TRIPS, select_link="1-3")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="node id pairs"):
        urbanflow.assign(NET, TRIPS, classes=[{"name": "x", "banned": 7}])


def test_auto_says_where_it_loaded():
    # Sioux Falls' loadings never repay a GPU's start: the CPU, with the numbers that said so.
    r = urbanflow.assign(NET, TRIPS, backend="auto")
    assert r.loaded_by.startswith("cpu"), r.loaded_by
    if "without the `gpu` feature" not in r.loaded_by:
        assert "expected loadings" in r.loaded_by, r.loaded_by
