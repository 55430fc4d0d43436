"""Errors raise the documented classes, with the Rust message and the file and line."""

import numpy as np
import pytest

import urbanflow
from urbanflow import errors


def test_files(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        urbanflow.Graph.from_file(tmp_path / "missing.gr")
    assert e.value.filename.endswith("missing.gr")
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 3 2\na 1 2 5\na 1 9 1\n")
    with pytest.raises(errors.FormatError) as e:
        urbanflow.Graph.from_file(bad)
    assert isinstance(e.value, ValueError) and isinstance(e.value, errors.UrbanflowError)
    assert e.value.path.endswith("bad.gr") and e.value.line == 3
    assert "bad.gr:3" in str(e.value)
    net = tmp_path / "x_net.tntp"
    net.write_text("<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 2\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 1\n"
                   "<END OF METADATA>\n1 2 0 1 1 0.15 4 0 0 0 ;\n")
    with pytest.raises(errors.FormatError) as e:
        urbanflow.Network.from_tntp(net)
    assert e.value.line == 6 and "capacity 0" in str(e.value)


def test_inputs():
    g = urbanflow.Graph.from_edges([0, 1], [1, 2], [3, 4])
    with pytest.raises(errors.VertexError):
        g.distances(7)
    with pytest.raises(IndexError):
        g.distances(np.array([0, 9]))
    with pytest.raises(errors.InvalidInputError, match="expected cpu, gpu or auto"):
        g.distances(0, backend="tpu")
    with pytest.raises(ValueError, match="0..2\\*\\*32 - 1"):
        urbanflow.Graph.from_edges([0, -1], [1, 2], [3, 4])
    with pytest.raises(errors.InvalidInputError, match="expected integers"):
        urbanflow.Graph.from_edges([0, 1], [1, 2], [0.5, 4.0])
    with pytest.raises(errors.InvalidInputError, match="equal lengths"):
        urbanflow.Graph.from_edges([0, 1], [1], [3, 4])
    with pytest.raises(errors.InvalidInputError, match="an arc names vertex 2"):
        urbanflow.Graph.from_edges([0, 1], [1, 2], [3, 4], n=2)
    with pytest.raises(errors.InvalidInputError, match="dtype"):
        g.distances(0, dtype="int8")
    with pytest.raises(errors.InvalidInputError, match="unknown algorithm"):
        urbanflow.assign(urbanflow.Network.from_tntp(
            __import__("conftest").DATA / "SiouxFalls_net.tntp"),
            __import__("conftest").DATA / "SiouxFalls_trips.tntp", algorithm="magic")


def test_dtypes_and_sentinels():
    g = urbanflow.Graph.from_edges([0], [1], [5], n=3)
    d = g.distances(0)
    assert d.dtype == np.uint32 and d.tolist() == [0, 5, urbanflow.UNREACHABLE]
    assert g.distances(0, dtype="float64").tolist() == [0.0, 5.0, np.inf]
    for arr in (g.offsets, g.heads, g.tails, g.weights):
        assert arr.dtype == np.uint32
    assert g.ids.dtype == np.uint64
    # Any integer width goes in.
    h = urbanflow.Graph.from_edges(np.array([0], np.int8), np.array([1], np.uint64), np.array([5], np.int16))
    assert h.distances(0).tolist() == [0, 5]
