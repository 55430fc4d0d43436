"""Matrix estimation from Python equals the `urbanflow` command bit for bit, takes counts as a file or as
columns, returns the documented tables, and refuses bad counts with file:line."""

import json
import subprocess

import numpy as np
import pytest

import urbanflow
from conftest import DATA, command

NET, TRIPS = DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp"


@pytest.fixture(scope="module")
def counts_csv(tmp_path_factory):
    """Counts on every third link of Sioux Falls, made by assigning the trips file to 1e-10."""
    truth = urbanflow.assign(NET, TRIPS, algorithm="b", gap=1e-10, backend="cpu", as_frame=False)
    links = truth.links
    path = tmp_path_factory.mktemp("odme") / "counts.csv"
    rows = [f"{links['from'][a]},{links['to'][a]},{float(truth.flows[a])!r}" for a in range(0, len(truth.flows), 3)]
    path.write_text("from,to,count\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.filterwarnings("ignore:.*GEH < 5")
def test_estimate_equals_the_command_bit_for_bit(tmp_path, counts_csv):
    out_csv = tmp_path / "estimated.csv"
    run = subprocess.run(
        [*command("odme"), "--net", str(NET), "--trips", str(TRIPS), "--counts", str(counts_csv), "--perturb",
         "0.5", "--outer", "6", "--json", "--out", str(out_csv), "--threads", "2"],
        capture_output=True, text=True,
    )
    assert run.returncode in (0, 2), run.stderr
    want = json.loads(run.stdout)
    # The example's --perturb seed, written out, is the same seed for Python.
    seed_run = subprocess.run(
        [*command("odme"), "--net", str(NET), "--trips", str(TRIPS), "--counts", str(counts_csv), "--perturb",
         "0.5", "--outer", "0", "--out", str(tmp_path / "seed.tntp")],
        capture_output=True, text=True,
    )
    assert seed_run.returncode in (0, 2), seed_run.stderr
    net = urbanflow.Network.from_tntp(NET)
    seed = urbanflow.Demand.from_tntp(tmp_path / "seed.tntp", net)
    r = urbanflow.estimate_od(net, seed, counts_csv, outer=6, threads=2, as_frame=False)
    rows = [line.split(",") for line in out_csv.read_text().splitlines()[1:]]
    assert [float(x[2]) for x in rows] == r.pairs["demand"].tolist()
    assert [int(x[0]) for x in rows] == r.pairs["origin"].tolist()
    assert r.history["objective"].tolist() == [h["objective"] for h in want["history"]]
    assert r.reached_target == want["reached_target"]


def test_tables_matrix_and_columns(counts_csv):
    net = urbanflow.Network.from_tntp(NET)
    seed = urbanflow.Demand.from_tntp(TRIPS, net, scale=1.3)
    seen = []
    r = urbanflow.estimate_od(net, seed, counts_csv, outer=8, as_frame=False, progress=seen.append)
    assert r.matrix.shape == (24, 24) and r.matrix.dtype == np.float64
    assert r.matrix[0, 1] == r.pairs["demand"][0]  # zone 1 → zone 2, the first pair
    assert r.matrix.sum() == pytest.approx(r.demand.total)
    assert [s["iteration"] for s in seen] == r.history["iteration"].tolist() == list(range(9))
    rmse = r.history["rmse"]
    assert rmse[-1] < 0.2 * rmse[0]
    assert set(r.counted) == {"link", "from", "to", "count", "weight", "flow", "geh"}
    assert len(r.counted["count"]) == 26
    # Counts as columns give the same estimate as the file.
    text = counts_csv.read_text().splitlines()[1:]
    cols = {name: np.array([float(line.split(",")[k]) for line in text]) for k, name in enumerate(("from", "to", "count"))}
    again = urbanflow.estimate_od(net, seed, cols, outer=8, as_frame=False)
    assert again.pairs["demand"].tolist() == r.pairs["demand"].tolist()
    # The estimate assigns like any demand.
    assert urbanflow.assign(net, r.demand, gap=1e-3, backend="cpu").converged


def test_a_missed_target_warns(counts_csv):
    net = urbanflow.Network.from_tntp(NET)
    seed = urbanflow.Demand.from_tntp(TRIPS, net, scale=3.0)
    with pytest.warns(RuntimeWarning, match="GEH < 5"):
        r = urbanflow.estimate_od(net, seed, counts_csv, outer=1, target=1.0)
    assert not r.reached_target


def test_bad_counts_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("from,to,count\n1,2,10\n1,24,5\n")
    with pytest.raises(urbanflow.errors.FormatError, match=r"bad.csv:3: no link from node 1 to node 24") as e:
        urbanflow.estimate_od(NET, TRIPS, bad)
    assert e.value.line == 3
    with pytest.raises(urbanflow.errors.InvalidInputError, match="count row 0: no link from node 1 to node 24"):
        urbanflow.estimate_od(NET, TRIPS, {"from": [1], "to": [24], "count": [5.0]})


CLASSES = DATA / "SiouxFalls_classes.txt"  # cars 0.9 of the trips, trucks 0.1 at PCE 2.5, banned 10-15


@pytest.fixture(scope="module")
def class_counts_csv(tmp_path_factory):
    """Counts of all vehicles in PCE units on every third link and of trucks on every fourth, made by
    assigning the class file's classes to 1e-10 (Algorithm B)."""
    truth = urbanflow.assign(NET, TRIPS, algorithm="b", gap=1e-10, backend="cpu", classes=CLASSES, as_frame=False)
    links, trucks = truth.links, truth.classes["trucks"]
    rows = [f"{links['from'][a]},{links['to'][a]},{float(truth.flows[a])!r}," for a in range(0, len(truth.flows), 3)]
    rows += [f"{links['from'][a]},{links['to'][a]},{float(trucks[a])!r},trucks" for a in range(0, len(trucks), 4)]
    path = tmp_path_factory.mktemp("odme-classes") / "counts.csv"
    path.write_text("from,to,count,class\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.filterwarnings("ignore:.*GEH < 5")
def test_classes_equal_the_command_bit_for_bit(tmp_path, class_counts_csv):
    out = tmp_path / "estimated.tntp"
    run = subprocess.run(
        [*command("odme"), "--net", str(NET), "--trips", str(TRIPS), "--counts", str(class_counts_csv), "--classes",
         str(CLASSES), "--all-counts", "pce", "--outer", "5", "--json", "--out", str(out), "--threads", "2"],
        capture_output=True, text=True,
    )
    assert run.returncode in (0, 2), run.stderr
    want = json.loads(run.stdout)
    assert [c["name"] for c in want["classes"]] == ["cars", "trucks"]
    assert (tmp_path / "estimated_cars.tntp").exists() and (tmp_path / "estimated_trucks.tntp").exists()
    r = urbanflow.estimate_od(NET, TRIPS, class_counts_csv, classes=CLASSES, all_counts="pce", outer=5, threads=2,
                              as_frame=False)
    assert r.history["objective"].tolist() == [h["objective"] for h in want["history"]]
    assert r.history["rmse"][-1] < 0.5 * r.history["rmse"][0]
    assert set(r.classes) == {"cars", "trucks"}
    assert r.classes["trucks"]["demand"].total == pytest.approx(want["classes"][1]["demand"], rel=1e-12)
    # Trucks never use their banned links; the counted flows follow each count's class.
    assert list(r.counted["class"][:2]) == ["", ""] and "trucks" in list(r.counted["class"])
    net = urbanflow.Network.from_tntp(NET)
    assert r.classes["trucks"]["matrix"].shape == (24, 24)
    assert r.classes["trucks"]["vehicles"].shape == (net.num_links,)
    # The same counts as columns, a class column among them: the same estimate.
    rows = [line.split(",") for line in class_counts_csv.read_text().splitlines()[1:]]
    cols = {"from": [float(x[0]) for x in rows], "to": [float(x[1]) for x in rows],
            "count": [float(x[2]) for x in rows], "class": [x[3] for x in rows]}
    again = urbanflow.estimate_od(NET, TRIPS, cols, classes=CLASSES, all_counts="pce", outer=5, threads=2,
                                  as_frame=False)
    assert again.history["objective"].tolist() == r.history["objective"].tolist()


def test_class_counts_need_their_units(class_counts_csv):
    with pytest.raises(urbanflow.errors.InvalidInputError, match="say whether they count vehicles or PCE"):
        urbanflow.estimate_od(NET, TRIPS, class_counts_csv, classes=CLASSES)
    with pytest.raises(urbanflow.errors.InvalidInputError, match="counts of class trucks"):
        urbanflow.estimate_od(NET, TRIPS, class_counts_csv)


@pytest.mark.filterwarnings("ignore:.*GEH < 5")
def test_passes_on_the_gpu_equal_the_cpu(tmp_path, counts_csv):
    import os
    net = urbanflow.Network.from_tntp(NET)
    seed = urbanflow.Demand.from_tntp(TRIPS, net, scale=1.3)
    try:
        g = urbanflow.estimate_od(net, seed, counts_csv, outer=4, as_frame=False, backend="gpu")
    except Exception as e:  # no adapter, or one without 64-bit floats
        if os.environ.get("URBANFLOW_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"no GPU for ODME's passes: {e}")
    c = urbanflow.estimate_od(net, seed, counts_csv, outer=4, as_frame=False, backend="cpu")
    assert g.passes_on.startswith("gpu (") and c.passes_on == "cpu"
    np.testing.assert_allclose(g.history["objective"], c.history["objective"], rtol=1e-9)
    np.testing.assert_allclose(g.pairs["demand"], c.pairs["demand"], rtol=1e-9)
    a = urbanflow.estimate_od(net, seed, counts_csv, outer=4, as_frame=False, backend="auto")
    assert a.passes_on.startswith("cpu (auto: the passes took"), a.passes_on
    assert a.history["objective"].tolist() == c.history["objective"].tolist()
    # The command says where they ran, and on the GPU gives the library's estimate.
    run = subprocess.run(
        [*command("odme"), "--net", str(NET), "--trips", str(TRIPS), "--counts", str(counts_csv), "--outer", "4",
         "--json", "--backend", "gpu", "--threads", "2", "--out", str(tmp_path / "gpu.csv")],
        capture_output=True, text=True,
    )
    assert run.returncode in (0, 2), run.stderr
    assert json.loads(run.stdout)["passes_on"].startswith("gpu (")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="tpu"):
        urbanflow.estimate_od(net, seed, counts_csv, outer=1, backend="tpu")
