"""urbanflow from Python: shortest paths and traffic assignment on a Rust core, on the CPU (all cores)
or a GPU, with numpy arrays in and out and pandas tables when pandas is installed.

>>> import numpy as np, urbanflow
>>> g = urbanflow.Graph.from_edges([0, 0, 1], [1, 2, 2], [4, 1, 2])
>>> g.distances(0)
array([0, 4, 1], dtype=uint32)
>>> g.path(0, 2)
(1, array([0, 2], dtype=uint32))

Vertices are 0-based indices (``Graph.ids`` holds the file's ids). Integer distances are uint32 with
``UNREACHABLE`` (2**32 - 1) where no path exists; ``dtype="float64"`` gives ``inf`` there instead. Every
computing call releases the GIL, answers Ctrl-C within 50 ms, and takes ``backend`` ("cpu", "gpu" or
"auto"; default ``$URBANFLOW_BACKEND``, else "auto": a GPU only where one was measured faster) and
``threads`` (default: every core, or ``RAYON_NUM_THREADS``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import errors
from ._tables import table
from ._urbanflow import UNREACHABLE, __version__
from ._urbanflow import Demand as _Demand
from ._urbanflow import Graph as _Graph
from ._urbanflow import Network as _Network
from ._urbanflow import OsmGraph as _OsmGraph
from ._urbanflow import assign as _assign
from ._urbanflow import skims as _skims
from .errors import InvalidInputError

__all__ = [
    "UNREACHABLE",
    "Graph",
    "Network",
    "Demand",
    "AssignResult",
    "assign",
    "skims",
    "OsmGraph",
    "errors",
    "__version__",
]

Network = _Network
Demand = _Demand


def _u32(values, what: str) -> np.ndarray:
    """``values`` as a contiguous uint32 array: integers only, each in 0..2**32 - 1."""
    a = np.asarray(values)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidInputError(f"{what}: expected a one-dimensional array, got shape {a.shape}")
    if a.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if a.dtype.kind == "b" or a.dtype.kind not in "iu":
        raise InvalidInputError(
            f"{what}: expected integers, got {a.dtype} (round real weights first, e.g. "
            f"np.rint(w * 1000).astype(np.uint32) for milliseconds)"
        )
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= 2**32:
        raise InvalidInputError(f"{what}: values must lie in 0..2**32 - 1, found {lo if lo < 0 else hi}")
    return np.ascontiguousarray(a, dtype=np.uint32)


def _as_float(d: np.ndarray) -> np.ndarray:
    out = d.astype(np.float64)
    out[d == UNREACHABLE] = np.inf
    return out


def _finish(d: np.ndarray, dtype) -> np.ndarray:
    if dtype is None or np.dtype(dtype) == np.uint32:
        return d
    if np.dtype(dtype) == np.float64:
        return _as_float(d)
    raise InvalidInputError(f"dtype={dtype!r}: expected None, 'uint32' or 'float64'")


class Graph:
    """A directed graph with non-negative integer weights (uint32)."""

    __slots__ = ("_g",)

    def __init__(self, inner: _Graph):
        self._g = inner

    @classmethod
    def from_file(cls, path, format: str = "auto", *, tntp_units: float = 1000.0, threads=None) -> "Graph":
        """Reads DIMACS (``.gr``), PACE, an edge list or a TNTP network (plain, ``.gz``, ``.xz``).

        Raises ``FileNotFoundError`` for a missing file and ``errors.FormatError`` (with ``path`` and
        ``line``) for content the format does not allow."""
        return cls(_Graph.from_file(os.fspath(path), format, tntp_units=tntp_units, threads=threads))

    @classmethod
    def from_edges(cls, tails, heads, weights, *, n: int | None = None) -> "Graph":
        """A graph from arc arrays of equal length (0-based vertex indices, integer weights); ``n``
        vertices (default: one more than the largest index). Parallel arcs and self-loops are kept."""
        return cls(_Graph.from_edges(_u32(tails, "tails"), _u32(heads, "heads"), _u32(weights, "weights"), n=n))

    @classmethod
    def from_scipy(cls, matrix) -> "Graph":
        """A graph from a scipy sparse matrix (entry (i, j) = the weight of arc i → j; stored zeros are
        arcs of weight 0)."""
        coo = matrix.tocoo()
        data = np.asarray(coo.data)
        if data.dtype.kind == "f":
            if not np.all(np.isfinite(data) & (data == np.rint(data))):
                raise InvalidInputError("from_scipy: weights must be whole numbers (integer weights only)")
            data = data.astype(np.int64)
        return cls.from_edges(coo.row, coo.col, data, n=matrix.shape[0])

    @classmethod
    def from_networkx(cls, graph, weight: str = "weight") -> "Graph":
        """A graph from a networkx (Multi)DiGraph whose nodes are 0..n-1, weights in ``weight``."""
        n = graph.number_of_nodes()
        edges = list(graph.edges(data=weight, default=1))
        tails = np.fromiter((u for u, _, _ in edges), dtype=np.int64, count=len(edges))
        heads = np.fromiter((v for _, v, _ in edges), dtype=np.int64, count=len(edges))
        weights = np.fromiter((w for _, _, w in edges), dtype=np.int64, count=len(edges))
        return cls.from_edges(tails, heads, weights, n=n)

    @property
    def n(self) -> int:
        """Number of vertices."""
        return self._g.n

    @property
    def m(self) -> int:
        """Number of arcs."""
        return self._g.m

    @property
    def ids(self) -> np.ndarray:
        """The file's id of each vertex (uint64)."""
        return self._g.ids

    @property
    def offsets(self) -> np.ndarray:
        """CSR offsets (uint32, n + 1)."""
        return self._g.offsets

    @property
    def heads(self) -> np.ndarray:
        """Head of each arc (uint32, CSR order)."""
        return self._g.heads

    @property
    def tails(self) -> np.ndarray:
        """Tail of each arc (uint32, CSR order)."""
        return self._g.tails

    @property
    def weights(self) -> np.ndarray:
        """Weight of each arc (uint32, CSR order)."""
        return self._g.weights

    def index(self, ids) -> np.ndarray:
        """Vertex indices of file ids; ``KeyError`` names the first id the graph does not have."""
        own = self._g.ids
        order = np.argsort(own, kind="stable")
        wanted = np.atleast_1d(np.asarray(ids, dtype=np.uint64))
        pos = np.searchsorted(own, wanted, sorter=order)
        pos = np.minimum(pos, len(own) - 1)
        found = order[pos]
        bad = own[found] != wanted
        if bad.any():
            raise KeyError(f"vertex id {int(wanted[bad][0])} is not in the graph")
        return found.astype(np.uint32)

    def distances(self, sources, *, algorithm: str = "auto", method: str = "auto", backend=None, threads=None,
                  dtype=None) -> np.ndarray:
        """Distances from one source (shape (n,)) or many (shape (len(sources), n)).

        ``algorithm`` names the one-source engine ("auto", "dijkstra", "delta-stepping", ...);
        ``method`` the many-source one ("trees": a search per source; "phast": a hierarchy, then
        sweeps; "auto", the default: the library's choice by source count). ``dtype="float64"`` gives ``inf`` for unreachable vertices."""
        if np.ndim(sources) == 0:
            s = int(sources)
            if s < 0:
                raise errors.VertexError(f"source {s}: expected an index in 0..{self.n}")
            d = self._g.distances_from(s, algorithm=algorithm, backend=backend, threads=threads)
        else:
            d = self._g.distances_many(_u32(sources, "sources"), method=method, backend=backend, threads=threads)
        return _finish(d, dtype)

    def path(self, source: int, target: int, *, threads=None):
        """A shortest path: ``(distance, vertices)`` with vertices a uint32 array from source to target,
        or ``None`` when the target cannot be reached."""
        return self._g.path(int(source), int(target), threads=threads)

    def distance_matrix(self, sources, targets, *, backend=None, threads=None, dtype=None) -> np.ndarray:
        """Distances from every source to every target: shape (len(sources), len(targets))."""
        d = self._g.distance_matrix(_u32(sources, "sources"), _u32(targets, "targets"), backend=backend,
                                    threads=threads)
        return _finish(d, dtype)

    @classmethod
    def from_osm(cls, path, profile: str = "car", *, largest_component: bool = True) -> OsmGraph:
        """Imports an OpenStreetMap extract (PBF or OSM XML) for "car", "bike" or "walk": an
        ``OsmGraph`` (``.graph`` to route on, milliseconds of travel time; ``.coords``, ``.osm_ids``,
        ``.snap(lat, lon)``, ``.turn_graph()``, ``.report()``)."""
        return OsmGraph(_OsmGraph.from_file(os.fspath(path), profile, largest_component=largest_component))

    def k_shortest_paths(self, source: int, target: int, k: int, *, algorithm: str = "mps", threads=None):
        """The ``k`` shortest loopless paths, shortest first: a list of ``(cost, vertices)``
        (``algorithm``: "mps" or "yen")."""
        return self._g.k_shortest_paths(int(source), int(target), int(k), algorithm=algorithm, threads=threads)

    def to_scipy(self):
        """The graph as a scipy CSR matrix (parallel arcs reduced to their minimum: scipy would add them)."""
        from scipy import sparse

        tails, heads, w = self.tails.astype(np.int64), self.heads.astype(np.int64), self.weights
        order = np.lexsort((w, heads, tails))
        tails, heads, w = tails[order], heads[order], w[order]
        first = np.ones(len(tails), dtype=bool)
        first[1:] = (tails[1:] != tails[:-1]) | (heads[1:] != heads[:-1])
        return sparse.csr_matrix((w[first].astype(np.float64), (tails[first], heads[first])), shape=(self.n, self.n))

    def to_networkx(self):
        """The graph as a networkx MultiDiGraph (nodes 0..n-1, arc weights in ``weight``)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(range(self.n))
        g.add_weighted_edges_from(zip(self.tails.tolist(), self.heads.tolist(), self.weights.tolist()))
        return g

    def __repr__(self) -> str:
        return f"Graph(n={self.n}, m={self.m})"


class OsmGraph:
    """A road graph imported from OpenStreetMap (``Graph.from_osm``); arc weights are travel times in
    milliseconds."""

    __slots__ = ("_o",)

    def __init__(self, inner: _OsmGraph):
        self._o = inner

    @property
    def graph(self) -> Graph:
        """The graph to route on (ids: OSM node ids)."""
        return Graph(self._o.graph)

    @property
    def osm_ids(self) -> np.ndarray:
        """OSM node id of each vertex (int64)."""
        return self._o.osm_ids

    @property
    def way_ids(self) -> np.ndarray:
        """OSM way id of each arc (int64, CSR order)."""
        return self._o.way_ids

    @property
    def coords(self) -> np.ndarray:
        """(n, 2) float64: latitude, longitude of each vertex."""
        return self._o.coords

    @property
    def travel_time_s(self) -> np.ndarray:
        """Travel time of each arc, seconds."""
        return self._o.travel_time_s

    @property
    def length_m(self) -> np.ndarray:
        """Length of each arc, metres."""
        return self._o.length_m

    def snap(self, lat: float, lon: float, *, limit_m: float = 1000.0):
        """``(vertex, metres)``: the nearest vertex, refused (``InvalidInputError``) beyond ``limit_m``."""
        return self._o.snap(lat, lon, limit_m=limit_m)

    def report(self) -> dict:
        """What the import saw, the turn restrictions applied and skipped by reason included."""
        return self._o.report()

    def turn_graph(self):
        """``(graph, sources, targets, road_arcs)``: the turn-aware graph (restrictions obeyed, U-turns
        at dead ends only for cars and bicycles, turn costs in milliseconds); route from
        ``sources[s]`` to ``targets[t]``; other vertices ``v`` stand for road arc ``road_arcs[v]``."""
        g, sources, targets, road_arcs = self._o.turn_graph()
        return Graph(g), sources, targets, road_arcs

    def __repr__(self) -> str:
        return repr(self._o)


@dataclass(frozen=True)
class AssignResult:
    """An assignment's results: link ``flows`` and ``costs`` (float64, the network's link order),
    whether the gap target was reached, the last iteration's measures, the convergence ``history``
    (a table: iteration, seconds, relative_gap, average_excess_cost, objective, tstt, sptt) and the
    ``links`` table (from, to, flow, cost, capacity, volume_capacity). With user classes, ``flows`` are
    passenger-car equivalents, ``classes`` maps each class's name to its vehicle flows (float64) and
    the links table has a ``flow_<name>`` column per class."""

    flows: np.ndarray
    costs: np.ndarray
    converged: bool
    iterations: int
    relative_gap: float
    tstt: float
    sptt: float
    objective: float
    history: Any
    links: Any
    classes: dict | None = None


def _progress_bar(gap: float):
    """A progress callback drawing the gap's way down to ``gap`` (tqdm if installed, else lines on
    stderr every few seconds)."""
    import math
    import sys
    import time

    target = math.log10(max(gap, 1e-16))
    try:
        from tqdm.auto import tqdm
    except ImportError:
        last = [0.0]

        def line(log):
            now = time.monotonic()
            if now - last[0] >= 2.0:
                last[0] = now
                print(f"iteration {log['iteration']} gap {log['relative_gap']:.3e}", file=sys.stderr)

        return line
    bar = tqdm(total=1000, desc="assignment", unit="‰")

    def update(log):
        done = min(max(math.log10(max(log["relative_gap"], 1e-16)) / target, 0.0), 1.0)
        bar.update(int(done * 1000) - bar.n)
        bar.set_postfix_str(f"iteration {log['iteration']} gap {log['relative_gap']:.3e}")

    return update


def assign(net, trips, *, algorithm: str = "bfw", gap: float = 1e-4, max_iters: int | None = None,
           system_optimum: bool = False, backend=None, trees: str = "auto", threads=None,
           progress=None, as_frame: bool | None = None, classes=None) -> AssignResult:
    """Static traffic assignment: user equilibrium (or the system optimum) of ``trips`` on ``net``.

    ``net`` is a ``Network`` or the path of a TNTP ``_net`` file; ``trips`` a ``Demand`` or the path of
    a ``_trips`` file. ``algorithm``: "msa", "fw", "cfw", "bfw" (default) or "b" (Algorithm B);
    ``gap``: the relative gap to reach; ``max_iters``: the library's cap by default; ``trees``: how
    all-or-nothing trees grow ("dijkstra", "phast", "auto"). ``progress``: a function called on this
    thread with each iteration's measures (a dict: iteration, seconds, relative_gap, objective, tstt,
    sptt); returning False, or raising, ends the call; ``True`` draws a tqdm bar. Tables are pandas
    DataFrames when pandas is installed (``as_frame=False``: dicts of numpy arrays).

    ``classes``: several user classes sharing the roads (Frank–Wolfe family, user equilibrium, on the
    CPU): the path of a class file (the ``assign --classes`` format) or a list of dicts such as
    ``{"name": "trucks", "pce": 2.5, "share": 0.1, "toll_factor": 0.02, "banned": [(10, 15)]}`` (``share``
    of ``trips``, or ``"demand": Demand``; banned links as (from, to) node ids). ``progress`` is not called
    for several classes."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    if not isinstance(trips, _Demand):
        trips = _Demand.from_tntp(os.fspath(trips), net)
    if progress is True:
        progress = _progress_bar(gap)
    if classes is not None and not isinstance(classes, (str, os.PathLike)):
        classes = [dict(c) for c in classes]
    r = _assign(net, trips, algorithm=algorithm, gap=gap, max_iters=max_iters, system_optimum=system_optimum,
                backend=backend, trees=trees, threads=threads, progress=progress or None, classes=classes)
    cols = net.links()
    flows, costs = r["flows"], r["costs"]
    links = {
        "from": cols["from"],
        "to": cols["to"],
        "flow": flows,
        "cost": costs,
        "capacity": cols["capacity"],
        "volume_capacity": np.divide(flows, cols["capacity"], out=np.full_like(flows, np.nan),
                                     where=cols["capacity"] > 0),
    }
    per_class = None
    if "classes" in r:
        per_class = {c["name"]: c["vehicles"] for c in r["classes"]}
        for name, vehicles in per_class.items():
            links[f"flow_{name}"] = vehicles
    return AssignResult(
        flows=flows,
        costs=costs,
        converged=r["converged"],
        iterations=r["iterations"],
        relative_gap=r["relative_gap"],
        tstt=r["tstt"],
        sptt=r["sptt"],
        objective=r["objective"],
        history=table(r["history"], as_frame),
        links=table(links, as_frame),
        classes=per_class,
    )


def skims(net, result: AssignResult, *, threads=None) -> dict:
    """Zone-to-zone skims of an assignment along its final shortest paths: a dict of (zones, zones)
    float64 arrays ``time``, ``distance``, ``toll`` and ``cost`` (``inf`` where unreachable)."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    return _skims(net, np.ascontiguousarray(result.flows), np.ascontiguousarray(result.costs), threads=threads)
