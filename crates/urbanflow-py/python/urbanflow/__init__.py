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
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

# Without a desktop session (no XDG_RUNTIME_DIR: servers, containers, CI), Mesa's device-select Vulkan
# layer asks for a Wayland display whenever the GPU adapters are listed and libwayland prints a false
# "error: XDG_RUNTIME_DIR is invalid or not set" on stderr. The layer only orders GPUs for a display and
# urbanflow orders adapters itself, so it is switched off here, before the extension loads, unless the
# user chose otherwise (the `urbanflow` command does the same: crates/urbanflow-cli/src/startup.rs).
if not os.path.isdir(os.environ.get("XDG_RUNTIME_DIR", "") or "/nonexistent"):
    os.environ.setdefault("NODEVICE_SELECT", "1")

from . import errors
from ._tables import table
from ._urbanflow import UNREACHABLE, __version__
from ._urbanflow import Demand as _Demand
from ._urbanflow import accessibility as _accessibility
from ._urbanflow import betweenness as _betweenness
from ._urbanflow import nearest as _nearest
from ._urbanflow import Graph as _Graph
from ._urbanflow import Hierarchy as _Hierarchy
from ._urbanflow import Network as _Network
from ._urbanflow import OsmGraph as _OsmGraph
from ._urbanflow import Transit as _Transit
from ._urbanflow import assign as _assign
from ._urbanflow import estimate_od as _estimate_od
from ._urbanflow import calibrate as _calibrate
from ._urbanflow import gravity as _gravity
from ._urbanflow import run_model as _run_model
from ._urbanflow import ipf as _ipf
from ._urbanflow import skims as _skims
from ._urbanflow import transit_assign as _transit_assign
from .errors import InvalidInputError

__all__ = [
    "UNREACHABLE",
    "Graph",
    "Hierarchy",
    "Network",
    "Demand",
    "AssignResult",
    "assign",
    "skims",
    "OdmeResult",
    "estimate_od",
    "Balanced",
    "ipf",
    "gravity",
    "calibrate",
    "ModelResult",
    "run_model",
    "TransitAssignment",
    "transit_assign",
    "Accessibility",
    "accessibility",
    "closeness",
    "betweenness",
    "nearest",
    "OsmGraph",
    "Transit",
    "Journey",
    "errors",
    "__version__",
]

Network = _Network
Demand = _Demand


def __dir__():
    # What a user may call: the imports and helpers of this file stay out of dir(urbanflow).
    return sorted(__all__)


def _integer(value, what: str) -> int:
    """``value`` as an index or count: an integer (Python or numpy), never a float, bool or string that
    ``int()`` would quietly truncate or parse."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{what} {value!r}: expected an integer, got {type(value).__name__}")
    return int(value)


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

    __slots__ = ("_g", "_h", "_no_h")

    def __init__(self, inner: _Graph):
        self._g = inner
        self._h = None
        # Why "auto" found no usable hierarchy for this graph (then it is not tried again).
        self._no_h = None

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
                  dtype=None, predecessors: bool = False, progress=None):
        """Distances from one source (shape (n,)) or many (shape (len(sources), n)).

        ``algorithm`` names the one-source engine ("auto", "dijkstra", "delta-stepping", ...);
        ``method`` the many-source one ("trees": a search per source; "phast": a hierarchy, then
        sweeps; "auto", the default: the library's choice by source count). ``dtype="float64"`` gives ``inf`` for unreachable vertices.

        ``predecessors=True`` returns ``(distances, predecessors)``: each vertex's parent in its
        source's shortest-path tree (uint32, same shape; ``UNREACHABLE`` at the source and where no
        path exists), as scipy's ``return_predecessors``. The parent is the tail of the smallest-index
        tight arc, the same on every backend; ``paths`` walks such a tree.

        ``progress`` (many sources): a function called on this thread with ``(done, total)`` trees as
        blocks of 256 finish (returning False ends the call), or ``True`` for a tqdm bar."""
        if predecessors:
            many = np.ndim(sources) != 0
            src = _u32(sources, "sources")
            d, p = self._g.trees(src, method=method, backend=backend, threads=threads)
            if not many:
                d, p = d[0], p[0]
            return _finish(d, dtype), p
        if np.ndim(sources) == 0:
            s = _integer(sources.item() if isinstance(sources, np.ndarray) else sources, "source")
            if s < 0:
                raise errors.VertexError(f"source {s}: expected an index in 0..{self.n}")
            d = self._g.distances_from(s, algorithm=algorithm, backend=backend, threads=threads)
        else:
            src = _u32(sources, "sources")
            if progress is True:
                progress = _tree_bar(len(src))
            d = self._g.distances_many(src, method=method, backend=backend, threads=threads,
                                       progress=progress or None)
        return _finish(d, dtype)

    def hierarchy(self, *, cache: bool = True, threads=None) -> "Hierarchy":
        """The graph's customisable contraction hierarchy, customised with its weights, for many
        routes and matrices: its order is built once per graph shape (seconds on a city, then kept in
        urbanflow's cache folder with ``cache=True``, a fraction of a second to load), and then each
        ``distance``/``path`` takes microseconds and ``matrix`` needs no search per pair. The graph keeps
        it: ``path`` and ``distance_matrix`` use it from then on.

        >>> h = g.hierarchy()
        >>> h.path(0, 2)
        (1, array([0, 2], dtype=uint32))"""
        if self._h is None:
            self._h = Hierarchy(self._g.hierarchy(cache=cache, threads=threads))
        return self._h

    def path(self, source: int, target: int, *, threads=None):
        """A shortest path: ``(distance, vertices)`` with vertices a uint32 array from source to target,
        or ``None`` when the target cannot be reached (on the graph's ``hierarchy()`` once it has one, else
        by bidirectional Dijkstra)."""
        if self._h is not None:
            return self._h.path(source, target)
        return self._g.path(_integer(source, "source"), _integer(target, "target"), threads=threads)

    def paths(self, source: int, targets, *, threads=None) -> list:
        """Shortest paths from ``source`` to each of ``targets``, along one tree: a list with, per
        target, ``(distance, vertices)`` (uint32 from source to target) or ``None`` when unreachable."""
        return self._g.paths(_integer(source, "source"), _u32(targets, "targets"), threads=threads)

    def distance_matrix(self, sources, targets, *, method: str = "auto", backend=None, threads=None,
                        dtype=None) -> np.ndarray:
        """Distances from every source to every target: shape (len(sources), len(targets)).

        ``method``: "hierarchy" (the graph's ``hierarchy()``, built or loaded once, then buckets: no
        search per pair), "trees" (a shortest-path tree per source, on ``backend``), or "auto" (the
        default): the hierarchy when the graph has one, else the library's own choice for this many
        sources on this graph (``matrix_engine``: a hierarchy from 16 sources when its order is in the
        cache folder, from 128 when it must be built, never on graphs without small separators; trees
        otherwise). The hierarchy prepared is kept for the next call."""
        src, dst = _u32(sources, "sources"), _u32(targets, "targets")
        if method not in ("auto", "hierarchy", "trees"):
            raise InvalidInputError(f"method={method!r}: expected 'auto', 'hierarchy' or 'trees'")
        chosen = "trees"
        if method == "auto" and self._no_h is None:
            kept = self._h is not None and backend != "gpu"
            chosen = "buckets" if kept else self.matrix_engine(len(src), backend=backend)[0]
        if method == "hierarchy" or chosen == "buckets":
            try:
                h = self.hierarchy(threads=threads)
            except InvalidInputError as e:
                if method == "hierarchy":
                    raise
                self._no_h = str(e)
            else:
                return h.matrix(src, dst, threads=threads, dtype=dtype)
        engine = "min-plus" if chosen == "min-plus" else "trees"
        d = self._g.distance_matrix(src, dst, backend=backend, engine=engine, threads=threads)
        return _finish(d, dtype)

    def matrix_engine(self, sources: int, *, backend=None) -> tuple[str, str]:
        """The engine ``distance_matrix`` would run for ``sources`` origins without a hierarchy at hand
        ("trees", "buckets" or "min-plus"), and why: the library's choice, decided without computing."""
        return self._g.matrix_engine(_integer(sources, "sources"), backend=backend)

    @classmethod
    def from_osm(cls, path, profile: str = "car", *, largest_component: bool = True) -> OsmGraph:
        """Imports an OpenStreetMap extract (PBF or OSM XML) for "car", "bike" or "walk": an
        ``OsmGraph`` (``.graph`` to route on, milliseconds of travel time; ``.coords``, ``.osm_ids``,
        ``.snap(lat, lon)``, ``.turn_graph()``, ``.report()``)."""
        return OsmGraph(_OsmGraph.from_file(os.fspath(path), profile, largest_component=largest_component))

    def k_shortest_paths(self, source: int, target: int, k: int, *, algorithm: str = "mps", threads=None):
        """The ``k`` shortest loopless paths, shortest first: a list of ``(cost, vertices)``
        (``algorithm``: "mps" or "yen")."""
        return self._g.k_shortest_paths(_integer(source, "source"), _integer(target, "target"), _integer(k, "k"),
                                        algorithm=algorithm, threads=threads)

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


class Hierarchy:
    """A customisable contraction hierarchy of a ``Graph`` (``Graph.hierarchy()``), customised with a
    metric: microsecond routes and matrices without a search per pair. Vertices are the graph's
    0-based indices."""

    __slots__ = ("_h",)

    def __init__(self, inner: _Hierarchy):
        self._h = inner

    def customise(self, weights=None, *, threads=None, perfect=False) -> None:
        """Puts new arc weights on the hierarchy (integers, one per arc in ``Graph.weights`` order),
        or the graph's own with ``None``: the order is kept, only the metric changes (a fraction of the
        build).

        ``perfect=True`` also runs the perfect customisation and keeps only the arcs some shortest
        path may need (about half on road graphs): ``distance`` and ``path`` then answer about twice
        as fast, for the time of a few customisations — worth it before many queries. Answers are the
        same."""
        self._h.customise(None if weights is None else _u32(weights, "weights"), threads=threads,
                          perfect=bool(perfect))

    def distance(self, source: int, target: int) -> int | None:
        """The shortest distance from ``source`` to ``target``, ``None`` when unreachable."""
        return self._h.distance(_integer(source, "source"), _integer(target, "target"))

    def path(self, source: int, target: int):
        """``(distance, vertices)`` (uint32 from source to target), ``None`` when unreachable."""
        return self._h.path(_integer(source, "source"), _integer(target, "target"))

    def matrix(self, sources, targets, *, threads=None, dtype=None) -> np.ndarray:
        """Distances from every source to every target: shape (len(sources), len(targets)), uint32 with
        ``UNREACHABLE`` (or float64 with ``inf`` for ``dtype="float64"``)."""
        d = self._h.matrix(_u32(sources, "sources"), _u32(targets, "targets"), threads=threads)
        return _finish(d, dtype)

    @property
    def cache(self) -> str:
        """How the order was obtained: loaded from the cache folder, or built (and where it was saved)."""
        return self._h.cache

    @property
    def build_s(self) -> float:
        """Seconds to build (or load) the order."""
        return self._h.build_s

    @property
    def customise_s(self) -> float:
        """Seconds of the last customisation."""
        return self._h.customise_s

    def __repr__(self) -> str:
        return repr(self._h)


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
    (a table: iteration, seconds, relative_gap, average_excess_cost, objective, tstt, sptt,
    all_or_nothing_s) and the ``links`` table (from, to, flow, cost, capacity, volume_capacity). With
    user classes, ``flows`` are passenger-car equivalents, ``classes`` maps each class's name to its
    vehicle flows (float64) and the links table has a ``flow_<name>`` column per class. With turns,
    ``turns`` is the table of turning movements (node, from_node, to_node, from_link, to_link, volume,
    penalty); with
    select-link, ``select_link`` the table of OD flows on each selected link (link_from, link_to,
    origin, destination, flow; node ids, rows with flow only). ``loaded_by`` says where the
    all-or-nothing loadings ran and why (with ``backend="auto"``, what the race between the CPU and
    the GPU measured)."""

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
    turns: Any = None
    select_link: Any = None
    loaded_by: str = ""

    def __repr__(self) -> str:
        # A summary: the arrays and tables are one attribute away, and printing them whole buries it.
        extra = "".join(
            f", {name}=<{len(value)} {what}>"
            for name, value, what in (("classes", self.classes, "classes"), ("turns", self.turns, "turns"),
                                      ("select_link", self.select_link, "rows"))
            if value is not None
        )
        return (f"AssignResult(converged={self.converged}, iterations={self.iterations}, "
                f"relative_gap={self.relative_gap:.3e}, tstt={self.tstt:.6g}, sptt={self.sptt:.6g}, "
                f"objective={self.objective:.6g}, links={len(self.flows)}{extra})")


def _tree_bar(total: int):
    """A progress callback counting trees (tqdm if installed, else nothing)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bar = tqdm(total=total, desc="trees", unit="tree")

    def update(done, _total):
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


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
    # The bar is the gap's way down to ``gap`` on a log scale; it shows the furthest point reached (a
    # gap may rise for an iteration, the bar never goes back) and no rate (its units are not items).
    bar = tqdm(total=1000, desc="assignment", bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}")

    def update(log):
        done = min(max(math.log10(max(log["relative_gap"], 1e-16)) / target, 0.0), 1.0)
        bar.update(max(int(done * 1000) - bar.n, 0))
        bar.set_postfix_str(f"iteration {log['iteration']} gap {log['relative_gap']:.3e}")

    update.bar = bar  # the caller (and the tests) can close or inspect it
    return update


def assign(net, trips, *, algorithm: str = "bfw", gap: float = 1e-4, max_iters: int | None = None,
           system_optimum: bool = False, backend=None, trees: str = "auto", threads=None,
           progress=None, as_frame: bool | None = None, classes=None, turns=None,
           split_all_junctions: bool = False, select_link=None) -> AssignResult:
    """Static traffic assignment: user equilibrium (or the system optimum) of ``trips`` on ``net``.

    ``net`` is a ``Network`` or the path of a TNTP ``_net`` file; ``trips`` a ``Demand`` or the path of
    a ``_trips`` file. ``algorithm``: "msa", "fw", "cfw", "bfw" (default) or "b" (Algorithm B);
    ``gap``: the relative gap to reach; ``max_iters``: the library's cap by default; ``trees``: how
    all-or-nothing trees grow ("dijkstra", "phast", "auto"). ``progress``: a function called on this
    thread with each iteration's measures (a dict: iteration, seconds, relative_gap, objective, tstt,
    sptt); returning False, or raising, ends the call; ``True`` draws a tqdm bar. Tables are pandas
    DataFrames when pandas is installed (``as_frame=False``: dicts of numpy arrays).

    ``classes``: several user classes sharing the roads (Frank–Wolfe family or Algorithm B, user
    equilibrium, on the CPU): the path of a class file (the ``assign --classes`` format) or a list of dicts such as
    ``{"name": "trucks", "pce": 2.5, "share": 0.1, "toll_factor": 0.02, "banned": [(10, 15)]}`` (``share``
    of ``trips``, or ``"demand": Demand``; banned links as (from, to) node ids).

    ``turns``: the path of a ``_turns.tntp`` file (turn penalties and bans, per class or for all; the
    format in the Rust docs of ``tap::turns``): the network is expanded so that turns are links, flows
    and costs stay the network's own, and ``AssignResult.turns`` holds the turning movements
    (``split_all_junctions=True``: every junction's, not only where turns are banned or penalised).
    ``select_link``: links as (from, to) node ids (at most 64; one class, Frank–Wolfe family): the
    flow of each OD pair on each, in ``AssignResult.select_link``.

    Ctrl-C (or ``progress`` returning False) stops the solve at the end of its current iteration."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    if not isinstance(trips, _Demand):
        trips = _Demand.from_tntp(os.fspath(trips), net)
    if progress is True:
        progress = _progress_bar(gap)
    if classes is not None and not isinstance(classes, (str, os.PathLike)):
        classes = [dict(c) for c in classes]
    if turns is not None:
        turns = os.fspath(turns)
    if select_link is not None and not isinstance(select_link, (str, bytes)):
        select_link = [tuple(p) if isinstance(p, (list, np.ndarray)) else p for p in select_link]
    r = _assign(net, trips, algorithm=algorithm, gap=gap, max_iters=max_iters, system_optimum=system_optimum,
                backend=backend, trees=trees, threads=threads, progress=progress or None, classes=classes,
                turns=turns, split_all_junctions=split_all_junctions, select_link=select_link)
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
    if not r["converged"]:
        # The command line exits 2 here; a library call warns (warnings.simplefilter("error") makes it raise).
        warnings.warn(
            f"assignment stopped after {r['iterations']} iterations at relative gap {r['relative_gap']:.3e}, "
            f"above the target {gap:.1e} (raise max_iters, or see AssignResult.history)",
            RuntimeWarning,
            stacklevel=2,
        )
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
        turns=table(r["turns"], as_frame) if "turns" in r else None,
        select_link=table(r["select_link"], as_frame) if "select_link" in r else None,
        loaded_by=r["loaded_by"],
    )


def skims(net, result: AssignResult, *, threads=None) -> dict:
    """Zone-to-zone skims of an assignment along its final shortest paths: a dict of (zones, zones)
    float64 arrays ``time``, ``distance``, ``toll`` and ``cost`` (``inf`` where unreachable)."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    if len(result.flows) != net.num_links:
        raise InvalidInputError(
            f"skims: the result has {len(result.flows)} link flows but the network has {net.num_links} links "
            f"(the result of another network?)")
    return _skims(net, np.ascontiguousarray(result.flows), np.ascontiguousarray(result.costs), threads=threads)


@dataclass(frozen=True)
class OdmeResult:
    """A matrix estimated from counts: ``matrix`` (zones × zones float64, row = origin, by zone index:
    zone ``k`` of the file at ``k - 1``), ``demand`` (the same as a ``Demand``, ready for ``assign``),
    ``pairs`` (table: origin, destination, demand; node ids), ``counted`` (table: link, from, to,
    count, weight, flow, geh), ``history`` (table per outer iteration, the seed's first: iteration,
    seconds, objective, rmse, percent_rmse, r_squared, geh_below_5, max_geh, total_demand, step,
    min_factor, max_factor, inner_iterations, inner_gap, gradient_s, upload_s, halvings), the estimate's link ``flows`` and
    ``costs``, whether the GEH target was reached and why the iterations ``stopped``. With ``classes=``,
    ``classes`` maps each class's name to its ``matrix``, ``pairs``, ``demand`` and ``vehicles`` per link
    (``matrix``/``demand``/``pairs`` above are the first class's, ``flows`` are PCE units, and
    ``counted`` has a ``class`` column when counts name classes). ``passes_on``: where the passes over
    the routes ran (with ``backend="auto"``, the CPU and the passes' measured share of the run)."""

    matrix: np.ndarray
    demand: Any
    pairs: Any
    counted: Any
    history: Any
    flows: np.ndarray
    costs: np.ndarray
    reached_target: bool
    stopped: str
    classes: dict | None = None
    passes_on: str = "cpu"

    def __repr__(self) -> str:
        return (f"OdmeResult(zones={self.matrix.shape[0]}, pairs={len(self.pairs['demand'])}, "
                f"reached_target={self.reached_target}, stopped={self.stopped!r})")


def estimate_od(net, trips, counts, *, outer: int = 10, inner_gap: float = 1e-4, max_change: float = 10.0,
                target: float = 0.95, threads=None, progress=None, as_frame: bool | None = None, classes=None,
                all_counts: str | None = None, backend: str | None = None) -> OdmeResult:
    """Origin–destination matrix estimation from link counts (Spiess's gradient method on the user
    equilibrium; docs/odme.md): adjusts the seed ``trips`` until its equilibrium on ``net`` reproduces
    ``counts``.

    ``net``: a ``Network`` or a TNTP ``_net`` path; ``trips``: the seed, a ``Demand`` or a ``_trips``
    path (zero cells stay zero); ``counts``: the path of a count CSV (``from,to,count`` or
    ``link,count``, optional ``weight`` and ``class``; Path4GMNS's measurement.csv as it is), or columns
    ``from``, ``to`` (node ids), ``count`` and optionally ``weight`` and ``class`` (a dict of arrays or a
    pandas DataFrame).
    ``outer``: gradient steps; ``inner_gap``: each equilibrium's relative gap (Algorithm B);
    ``max_change``: no cell changes by more than this factor per step; ``target``: the share of
    counted links that must end with GEH < 5 — a warning says when it is missed. ``progress``: called
    with each outer iteration's measures (a dict: iteration, seconds, objective, rmse, geh_below_5,
    total_demand); returning False, or raising, ends the call. Ctrl-C stops at the end of the outer
    iteration.

    ``classes``: one matrix per user class (``assign``'s ``classes=``: a class file or a list of dicts;
    shares of ``trips`` or each class's ``Demand``); a count file may then name a class per count in a
    ``class`` column (empty: all vehicles). ``all_counts``: "vehicles" or "pce", what counts of all
    classes count — required when a class's PCE is not 1.

    ``backend``: where the gradient's and the step's passes over the routes run: "cpu", "gpu" (each
    class's bushes uploaded once per outer iteration; 64-bit floats on the device) or "auto" (default:
    ``$URBANFLOW_BACKEND``, else auto, which keeps them on the CPU and reports their measured share in
    ``passes_on``). The equilibria run on the CPU either way."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    if not isinstance(trips, _Demand):
        trips = _Demand.from_tntp(os.fspath(trips), net)
    if not isinstance(counts, (str, os.PathLike)):
        columns = {name: np.asarray(counts[name], dtype=np.float64) for name in ("from", "to", "count")
                   if name in counts}
        if "weight" in counts:
            columns["weight"] = np.asarray(counts["weight"], dtype=np.float64)
        if "class" in counts:
            columns["class"] = ["" if k is None else str(k) for k in counts["class"]]
        counts = columns
    if classes is not None and not isinstance(classes, (str, os.PathLike)):
        classes = [dict(c) for c in classes]
    r = _estimate_od(net, trips, counts, outer=outer, inner_gap=inner_gap, max_change=max_change, target=target,
                     threads=threads, progress=progress, classes=classes, all_counts=all_counts,
                     backend=backend)
    if not r["reached_target"]:
        share = r["history"]["geh_below_5"][-1]
        warnings.warn(
            f"{100 * share:.1f}% of counted links have GEH < 5, below the target {100 * target:.1f}% "
            f"({r['stopped']}; see OdmeResult.history)",
            RuntimeWarning,
            stacklevel=2,
        )
    return OdmeResult(
        matrix=r["matrix"],
        demand=r["demand"],
        pairs=table(r["pairs"], as_frame),
        counted=table(r["counted"], as_frame),
        history=table(r["history"], as_frame),
        flows=r["flows"],
        costs=r["costs"],
        reached_target=r["reached_target"],
        stopped=r["stopped"],
        passes_on=r["passes_on"],
        classes={name: {**c, "pairs": table(c["pairs"], as_frame)} for name, c in r["classes"].items()}
        if "classes" in r else None,
    )


@dataclass(frozen=True)
class TransitAssignment:
    """Transit assignment by optimal strategies: ``links`` (``link_id``, ``volume`` per edge of the
    graph file), ``zones`` (the zone ids, the order of the skims' rows and columns), ``skims`` when asked
    for (``total``, ``in_vehicle``, ``waiting``, ``walking``, ``boardings``: float64 zones × zones
    arrays of expected values, ``inf`` where a destination cannot be reached), and the trips
    ``assigned``, ``intrazonal`` and ``unassigned`` (in ``unassigned_pairs``), ``seconds``. A congested
    assignment (``vehicle_capacity``) adds ``frequency``, ``effective_frequency``, ``capacity`` and
    ``on_board`` to ``links`` and ``congestion``: ``iterations``, ``relative_gap``, ``converged`` and the
    ``gaps`` of every iteration after the first. ``backend`` says where it ran and ``why``."""

    links: Any
    zones: np.ndarray
    skims: dict | None
    assigned: float
    intrazonal: float
    unassigned: float
    unassigned_pairs: int
    seconds: float
    congestion: dict | None = None
    backend: str = ""
    why: str = ""

    def __repr__(self) -> str:
        return (f"TransitAssignment(edges={len(self.links['volume'])}, zones={len(self.zones)}, "
                f"assigned={self.assigned:.1f}, unassigned={self.unassigned:.1f})")


def _window(text: str) -> tuple[int, int]:
    """``"HH:MM-HH:MM"`` as seconds of the day."""
    try:
        start, end = (part.strip().split(":") for part in text.split("-"))
        a, b = int(start[0]) * 3600 + int(start[1]) * 60, int(end[0]) * 3600 + int(end[1]) * 60
    except (ValueError, IndexError):
        raise InvalidInputError(f"window {text!r}: expected HH:MM-HH:MM") from None
    if b <= a:
        raise InvalidInputError(f"window {text!r}: the end must come after the start")
    return a, b


def transit_assign(edges=None, demand=None, zones=None, *, gtfs=None, date: str | None = None,
                   window: str = "07:00-09:00", skims: bool = False, allow_unconnected: bool = False,
                   vehicle_capacity: float | None = None, line_capacities=None, period: float | None = None,
                   beta: float = 0.5,
                   gap: float = 1e-3, max_iterations: int = 100, backend=None, threads=None, progress=None,
                   as_frame: bool | None = None) -> TransitAssignment:
    """Frequency-based transit assignment by optimal strategies (Spiess & Florian 1989), as
    ``urbanflow transit-assign`` runs it: travellers wait at a stop for the first vehicle of the lines
    that shorten their expected trip. Volumes equal AequilibraE's ``HyperpathGenerating.assign``.

    ``edges``: a CSV path, ``tail,head,trav_time,freq`` (vertex ids from 0; ``inf`` where there is no
    wait) and optional ``link_id,link_type,line_id,stop_id`` — AequilibraE's transit graph schema.
    ``demand``: a CSV path, ``origin,destination,demand`` in zone ids. ``zones``: a CSV path,
    ``zone_id,origin_vertex,destination_vertex`` (or ``zone_id,vertex``); without it every vertex is a
    zone. Instead of ``edges``, ``gtfs`` (a feed, zip or folder) with ``date`` (``"YYYY-MM-DD"``) and
    ``window`` (``"HH:MM-HH:MM"``) builds the graph from the trips leaving their first stop in the window
    (docs/transit-assignment.md); ``zones`` are then points, a CSV ``zone_id,lat,lon`` (default: every
    station, numbered from 1 in stop id order). ``skims``: also compute the zone-to-zone skims (every zone becomes a destination).
    ``allow_unconnected``: assign the rest when zones with demand have no connector (refused
    otherwise). ``progress``: called with (destinations done, destinations) as they finish (with
    ``vehicle_capacity``: (iterations done, ``max_iterations``)); returning False ends the call.

    ``vehicle_capacity``: passengers per vehicle, which makes it a congested assignment (Cepeda,
    Cominetti & Florian 2006): a line's capacity over the demand period is frequency × this × ``period``
    (the time the demand covers, in the frequencies' unit; for ``gtfs``, default the window's length in
    seconds), full lines come less often to those waiting (effective frequency
    ``f (1 - (boarding / room)^beta)``), and the assignment is iterated by successive averages until the
    equilibrium's relative ``gap`` or ``max_iterations``; a RuntimeWarning says when the gap was not
    reached (docs/transit-assignment.md). ``line_capacities``: a CSV path, ``line_id,vehicle_capacity``
    per line (GTFS lines are route ids); lines not listed take ``vehicle_capacity``, or are unlimited
    without it.

    ``backend``: "cpu", "gpu" (the volumes on the device, a batch of destinations at a time, and with
    ``vehicle_capacity`` every iteration there; needs 64-bit floats; skims are the CPU's) or "auto" (default ``$URBANFLOW_BACKEND``, else auto:
    the GPU where this machine's measured profiles predict it faster); the result's ``backend`` and
    ``why`` say where it ran."""
    if demand is None:
        raise InvalidInputError("transit_assign: demand (a CSV path) is required")
    if (edges is None) == (gtfs is None):
        raise InvalidInputError("transit_assign: give edges (a CSV path) or gtfs (a feed), not both")
    r = _transit_assign(None if edges is None else os.fspath(edges), os.fspath(demand),
                        None if zones is None else os.fspath(zones), gtfs=None if gtfs is None else os.fspath(gtfs),
                        date=date, window=_window(window), skims=skims, allow_unconnected=allow_unconnected,
                        vehicle_capacity=vehicle_capacity,
                        line_capacities=None if line_capacities is None else os.fspath(line_capacities),
                        period=period, beta=beta, gap=gap,
                        max_iterations=_integer(max_iterations, "max_iterations"), backend=backend, threads=threads,
                        progress=progress)
    congestion = r.get("congestion")
    if congestion is not None and not congestion["converged"]:
        warnings.warn(
            f"congested transit assignment stopped after {congestion['iterations']} iterations at relative gap "
            f"{congestion['relative_gap']:.3e}, above gap={gap:.1e} (raise max_iterations, or lower beta)",
            RuntimeWarning,
            stacklevel=2,
        )
    if r["unassigned"] > 0:
        warnings.warn(
            f"{r['unassigned']:.1f} trips in {r['unassigned_pairs']} OD pairs could not reach their destination "
            "and were not assigned",
            RuntimeWarning,
            stacklevel=2,
        )
    return TransitAssignment(
        links=table(r["links"], as_frame),
        zones=r["zones"],
        skims=r.get("skims"),
        assigned=r["assigned"],
        intrazonal=r["intrazonal"],
        unassigned=r["unassigned"],
        unassigned_pairs=r["unassigned_pairs"],
        seconds=r["seconds"],
        congestion=congestion,
        backend=r["backend"],
        why=r["why"],
    )


@dataclass(frozen=True)
class Balanced:
    """A distributed or balanced matrix: ``matrix`` (float64, rows × columns), the ``iterations`` of
    IPF, its last ``gap`` (the largest row or column correction ``max(f, 1/f) - 1``), whether it
    ``converged``, and the largest relative ``row_residual`` and ``column_residual`` of the totals."""

    matrix: np.ndarray
    iterations: int
    gap: float
    converged: bool
    row_residual: float
    column_residual: float


def _balanced(r: dict, what: str, tolerance: float) -> Balanced:
    if not r["converged"]:
        warnings.warn(f"{what} stopped after {r['iterations']} iterations at gap {r['gap']:.3e}, above the "
                      f"tolerance {tolerance:.1e} (raise max_iterations)", RuntimeWarning, stacklevel=3)
    return Balanced(**r)


def ipf(seed, rows, cols, *, tolerance: float = 1e-12, max_iterations: int = 10_000, scale_columns: bool = False,
        threads=None, backend: str = "cpu") -> Balanced:
    """Iterative proportional fitting (Furness): ``seed`` (rows × columns, finite, ≥ 0) scaled by row
    and column factors until its totals meet ``rows`` and ``cols``. Stops when every row and column
    correction is within ``tolerance`` of 1 (AequilibraE's convergence level; the default agrees with
    any IPF run to convergence to about 1e-10). Totals that differ by more than 1e-9 relative raise
    ``InvalidInputError`` unless ``scale_columns=True``; zero cells stay zero. ``backend="gpu"`` runs the
    passes over the seed on the GPU (64-bit floats needed; faster than 16 cores only past about 20
    iterations, docs/benchmarks.md "IPF on the GPU")."""
    seed = np.ascontiguousarray(seed, dtype=np.float64)
    r = _ipf(seed, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(cols, dtype=np.float64),
             tolerance=tolerance, max_iterations=max_iterations, scale_columns=scale_columns, threads=threads,
             backend=backend)
    return _balanced(r, "ipf", tolerance)


def gravity(costs, rows, cols, deterrence, *, constraint: str = "doubly", tolerance: float = 1e-12,
            max_iterations: int = 10_000, scale_columns: bool = False, k_factors=None, threads=None) -> Balanced:
    """Trips by the gravity model: ``rows[i] * cols[j] * f(costs[i, j])`` with ``deterrence`` one of
    ``"power:a"`` (``c**-a``), ``"expo:b"`` (``exp(-b c)``) or ``"gamma:a,b"`` (``c**a exp(-b c)``,
    AequilibraE's forms; a non-finite deterrence, e.g. a zero cost under power, gives no trips), or a
    friction factor table: ``(upper, factor)`` rows with ascending upper cost bounds (a cost takes the
    factor of the first band it is below; costs past the last take its factor). ``k_factors`` (zones ×
    zones) multiplies each cell's seed. The seed is balanced to both totals by IPF
    (``constraint="doubly"``, AequilibraE's GravityApplication) or scaled per row (``"production"``).
    ``costs`` may hold ``inf`` for unreachable pairs."""
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    table = None
    if not isinstance(deterrence, str):
        table = np.ascontiguousarray(np.asarray(deterrence, dtype=np.float64).reshape(-1, 2))
        deterrence = ""
    k = None if k_factors is None else np.ascontiguousarray(k_factors, dtype=np.float64)
    r = _gravity(costs, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(cols, dtype=np.float64),
                 deterrence, constraint=constraint, tolerance=tolerance, max_iterations=max_iterations,
                 scale_columns=scale_columns, threads=threads, table=table, k_factors=k)
    return _balanced(r, "gravity", tolerance)


def calibrate(costs, observed=None, form: str = "expo", *, fit: str = "mean", lengths=None, rows=None, cols=None,
              band_width=None, tolerance: float = 1e-9, threads=None) -> dict:
    """The gravity model's parameters (``form`` "expo": β, "power": α, "gamma": α and β) whose doubly
    constrained matrix over ``costs`` reproduces the ``observed`` matrix — or a trip-length distribution
    ``lengths=(upper, trips)`` (band upper bounds, trips or shares per band) with the zones' ``rows`` and
    ``cols`` totals. ``fit="mean"`` matches the mean cost (Hyman's method; one parameter),
    ``"least-squares"`` the band shares (bands of ``band_width``, default a tenth of the observed mean
    cost, for an observed matrix). A dict with ``deterrence`` (a string for ``gravity``/``run_model``),
    ``observed_mean_cost``, ``model_mean_cost``, ``coincidence_ratio``, ``sum_of_squares``, ``bands``,
    ``observed_shares``, ``model_shares``, ``applications`` and ``converged``."""
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    return _calibrate(f64(costs), None if observed is None else f64(observed), form, fit=fit,
                      lengths=None if lengths is None else (f64(lengths[0]), f64(lengths[1])),
                      rows=None if rows is None else f64(rows), cols=None if cols is None else f64(cols),
                      band_width=band_width, tolerance=tolerance, threads=threads)


@dataclass(frozen=True)
class ModelResult:
    """The skims ↔ demand loop's result: the final ``matrix`` (zones × zones float64, zone indices),
    whether the demand ``converged`` (settled below ``demand_change`` with the last equilibrium at its
    gap), the equilibrium's link ``flows`` and ``costs``, and the ``history`` table per loop (loop,
    seconds, demand_change, relative_gap, mean_cost, total_demand, assignment_iterations)."""

    matrix: np.ndarray
    converged: bool
    flows: np.ndarray
    costs: np.ndarray
    history: Any


def run_model(net, rows, cols, deterrence: str, *, gap: float = 1e-4, demand_change: float = 1e-3,
              max_loops: int = 50, averaging: float | None = None, threads=None,
              as_frame: bool | None = None) -> ModelResult:
    """A travel model's loop on ``net``: gravity distribution of zone productions ``rows`` and
    attractions ``cols`` over the generalised-cost skims (``deterrence`` as for ``gravity``), user
    equilibrium (Algorithm B to ``gap``, warm from the previous loop), new skims, and again, the
    matrix averaged between loops (``averaging=None``: the method of successive averages; a number:
    that fixed share) until it changes by less than ``demand_change``. A warning says when it did not
    settle within ``max_loops``."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    r = _run_model(net, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(cols, dtype=np.float64),
                   deterrence, gap=gap, demand_change=demand_change, max_loops=max_loops, averaging=averaging,
                   threads=threads)
    if not r["converged"]:
        warnings.warn(f"the demand still changed after {max_loops} loops (see ModelResult.history)", RuntimeWarning,
                      stacklevel=2)
    return ModelResult(matrix=r["matrix"], converged=r["converged"], flows=r["flows"], costs=r["costs"],
                       history=table(r["history"], as_frame))


def _seconds(t, what: str) -> int:
    """Seconds after midnight from ``HH:MM``, ``HH:MM:SS`` or a number of seconds."""
    if isinstance(t, str):
        parts = t.split(":")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) in (2, 3) and all(0 <= x < 60 for x in nums[1:]) and nums[0] >= 0:
            return nums[0] * 3600 + nums[1] * 60 + (nums[2] if len(nums) == 3 else 0)
        raise InvalidInputError(f"{what} {t!r}: expected HH:MM, HH:MM:SS or seconds after midnight")
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool) and 0 <= int(t) < 2**32:
        return int(t)
    raise InvalidInputError(f"{what} {t!r}: expected HH:MM, HH:MM:SS or seconds after midnight")


@dataclass(frozen=True)
class Journey:
    """An earliest-arrival journey: ``depart`` and ``arrival`` in seconds after midnight of the
    service day (past 86,400 on the next day), and the ``legs`` table (mode, from, to, from_vertex,
    to_vertex, departure, arrival, route; the route's name on transit legs, else None)."""

    depart: int
    arrival: int
    legs: Any

    @property
    def duration(self) -> int:
        """Seconds from departure to arrival."""
        return self.arrival - self.depart


class Transit:
    """A public-transport network of one service day, built from a GTFS feed: earliest-arrival
    journeys on foot, by transit and by bicycle to stations (the engine of ``urbanflow journey``).

    >>> t = urbanflow.Transit.from_gtfs("nyc_subway_gtfs.zip", places=[(40.8898, -73.8986), (40.7020, -74.0130)])
    >>> j = t.journey(0, 1, "08:00")          # place 0 to place 1
    >>> j.duration / 60, j.legs               # minutes, and the legs as a table
    """

    __slots__ = ("_t", "_ids")

    def __init__(self, inner: _Transit):
        self._t = inner
        self._ids = None

    @classmethod
    def from_gtfs(cls, path, *, date: str | None = None, places=None, walk_speed: float = 1.3,
                  walk_radius: float = 500.0, change_time: int = 120, place_radius: float = 1000.0,
                  bike_radius: float | None = None) -> "Transit":
        """Reads a GTFS feed (zip or folder) for ``date`` (``YYYY-MM-DD``; default the feed's first
        weekday with service). ``places``: ``(lat, lon)`` points to start or end journeys at (joined
        on foot to stations within ``place_radius`` metres); ``walk_speed`` m/s, ``walk_radius`` m
        between stations, ``change_time`` s at a station; ``bike_radius`` m enables "bike+transit"."""
        path = os.fspath(path)
        pts = None if places is None else [(float(a), float(b)) for a, b in places]
        return cls(_Transit.from_gtfs(path, date=date, places=pts, walk_speed=walk_speed, walk_radius=walk_radius,
                                      change_time=change_time, place_radius=place_radius, bike_radius=bike_radius))

    @property
    def date(self) -> str:
        """The service day (``YYYY-MM-DD``)."""
        return self._t.date

    @property
    def num_vertices(self) -> int:
        return self._t.num_vertices

    @property
    def num_arcs(self) -> int:
        return self._t.num_arcs

    def stats(self) -> dict:
        """What the build counted (trips, departures, walking arcs, stations, routes, patterns, ...)."""
        return self._t.stats()

    def stations(self, as_frame: bool | None = None):
        """The stations: id, name, lat, lon and vertex (the street node journeys start and end at)."""
        return table(self._t.stations(), as_frame)

    def vertex(self, where, *, snap_limit_m: float = 1000.0) -> int:
        """The vertex of ``where``: an int is a place given to ``from_gtfs`` (its index), a str a
        station id, a ``(lat, lon)`` pair the nearest station (refused beyond ``snap_limit_m``)."""
        if isinstance(where, str):
            if self._ids is None:
                cols = self._t.stations()
                self._ids = {sid: int(v) for sid, v in zip(cols["id"], cols["vertex"])}
            if where not in self._ids:
                raise KeyError(f"station id {where!r} is not in the feed")
            return self._ids[where]
        if isinstance(where, (int, np.integer)) and not isinstance(where, bool):
            places = self._t.place_vertices()
            if not 0 <= int(where) < len(places):
                raise errors.VertexError(f"place {int(where)}: from_gtfs was given {len(places)} places")
            return int(places[int(where)])
        try:
            lat, lon = (float(x) for x in where)
        except (TypeError, ValueError):
            raise InvalidInputError(f"{where!r}: expected a place index, a station id or (lat, lon)") from None
        _station, vertex, metres = self._t.nearest_station(lat, lon)
        if metres > snap_limit_m:
            raise InvalidInputError(
                f"({lat:.6f}, {lon:.6f}) is {metres:.0f} m from the nearest station, beyond snap_limit_m="
                f"{snap_limit_m:.0f} (outside the feed's area, or latitude and longitude swapped?)")
        return int(vertex)

    def journey(self, origin, destination, depart, *, profile: str = "walk+transit",
                as_frame: bool | None = None) -> Journey | None:
        """The earliest-arrival journey from ``origin`` to ``destination`` (see ``vertex``) leaving at
        ``depart`` (``"08:00"``, ``"08:00:30"`` or seconds after midnight) under ``profile`` ("walk",
        "walk+transit", "bike+transit"); ``None`` when the destination cannot be reached."""
        j = self._t.journey(self.vertex(origin), self.vertex(destination), _seconds(depart, "depart"),
                            profile=profile)
        if j is None:
            return None
        legs = j["legs"]
        cols = {k: [leg[k] for leg in legs] for k in
                ("mode", "from", "to", "from_vertex", "to_vertex", "departure", "arrival", "route")}
        for k in ("from_vertex", "to_vertex", "departure", "arrival"):
            cols[k] = np.asarray(cols[k], dtype=np.uint32)
        return Journey(depart=j["depart"], arrival=j["arrival"], legs=table(cols, as_frame))

    def arrivals(self, origin, depart, *, profile: str = "walk+transit") -> np.ndarray:
        """Earliest arrival (seconds after midnight, float64; ``inf`` if unreachable) at every station,
        in ``stations()`` order, from ``origin`` leaving at ``depart``: one search of the network."""
        return self._t.arrivals(self.vertex(origin), _seconds(depart, "depart"), profile=profile)

    def __repr__(self) -> str:
        return repr(self._t)


@dataclass(frozen=True)
class Accessibility:
    """Opportunities within each cutoff of every source (docs/accessibility.md): ``count`` (uint32),
    ``sum`` (the decayed weight), ``mean`` (sum / count), ``min`` and ``max`` (the least and greatest
    point weight; NaN where no point is within the cutoff) are (sources × cutoffs) arrays; ``engine`` and
    ``why`` say what computed them, from rates measured on this run; ``seconds`` splits the time."""

    sources: np.ndarray
    cutoffs: np.ndarray
    count: np.ndarray
    sum: np.ndarray
    mean: np.ndarray
    min: np.ndarray
    max: np.ndarray
    engine: str
    why: str
    seconds: dict

    def table(self, ids=None, as_frame: bool | None = None):
        """Long rows ``vertex, cutoff, count, sum, mean, min, max`` (``ids``: map sources to these ids,
        e.g. ``graph.ids``), a DataFrame when pandas is installed."""
        s, c = self.count.shape
        vertex = np.repeat(self.sources if ids is None else np.asarray(ids)[self.sources], c)
        columns = {"vertex": vertex, "cutoff": np.tile(self.cutoffs, s)}
        for name in ("count", "sum", "mean", "min", "max"):
            columns[name] = getattr(self, name).reshape(-1)
        return table(columns, as_frame)


def _graph_of(graph) -> "_Graph":
    if isinstance(graph, OsmGraph):
        graph = graph.graph
    if not isinstance(graph, Graph):
        raise InvalidInputError(f"expected a urbanflow.Graph or OsmGraph, got {type(graph).__name__}")
    return graph._g


def _points(points):
    """``points`` as (vertices uint32, weights float64): an array of vertices (weight 1 each), a pair
    (vertices, weights), or a table with ``vertex`` and optionally ``weight`` columns."""
    if hasattr(points, "keys") or hasattr(points, "columns"):
        vertices = np.asarray(points["vertex"])
        weights = np.asarray(points["weight"], dtype=np.float64) if "weight" in points else None
    elif isinstance(points, tuple) and len(points) == 2:
        vertices, weights = np.asarray(points[0]), np.asarray(points[1], dtype=np.float64)
    else:
        vertices, weights = np.asarray(points), None
    vertices = _u32(vertices, "points' vertices")
    if weights is None:
        weights = np.ones(vertices.size)
    return vertices, np.ascontiguousarray(weights, dtype=np.float64)


def _cutoffs(cutoffs) -> list:
    if cutoffs is None:
        return []
    return [int(c) for c in _u32(cutoffs, "cutoffs")]


def _accessibility_of(r: dict) -> Accessibility:
    seconds = {k: r[k] for k in ("preprocess_s", "setup_s", "solve_s")}
    return Accessibility(sources=r["sources"], cutoffs=r["cutoffs"], count=r["count"], sum=r["sum"],
                         mean=r["mean"], min=r["min"], max=r["max"], engine=r["engine"], why=r["why"],
                         seconds=seconds)


def accessibility(graph, points, cutoffs, *, decay: str = "flat", sources=None, engine: str = "auto",
                  backend: str | None = None, threads=None, progress=None) -> Accessibility:
    """Opportunities within each cutoff of every source, as ``urbanflow access`` computes them: trees
    reduced where they are (on a GPU, in device memory), the engine chosen from rates measured on this
    run.

    ``graph``: a ``Graph`` or ``OsmGraph`` (weights in its units: milliseconds for OSM). ``points``: the
    vertices of the opportunities (0-based; one weight each), a pair ``(vertices, weights)``, or a table
    with ``vertex`` and ``weight`` columns; weights ≥ 0. ``cutoffs``: up to 8 ascending distances in the
    graph's units. ``decay``: "flat", "linear", "exp:β", "power:β" or "harmonic" (β per weight unit).
    ``sources``: vertices (default: all). ``engine``: "auto", "search", "sweep" or "gpu". ``progress``:
    called with (sources done, sources); returning False ends the call.

    >>> import urbanflow
    >>> g = urbanflow.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 1], [5, 5, 7, 7])
    >>> a = urbanflow.accessibility(g, ([1, 2], [10.0, 3.0]), [5, 12])
    >>> a.count.tolist(), a.sum.tolist()
    ([[1, 2], [1, 2], [1, 2]], [[10.0, 13.0], [10.0, 13.0], [3.0, 13.0]])
    """
    vertices, weights = _points(points)
    src = None if sources is None else _u32(sources, "sources")
    r = _accessibility(_graph_of(graph), vertices, weights, _cutoffs(cutoffs), decay, sources=src,
                       engine=engine, backend=backend, threads=threads, progress=progress)
    return _accessibility_of(r)


def closeness(graph, *, cutoff=None, decay: str = "harmonic", sources=None, engine: str = "auto",
              backend: str | None = None, threads=None, progress=None) -> np.ndarray:
    """Closeness of every source (float64 array in ``sources`` order): harmonic, Σ 1/d over the vertices
    reached (within ``cutoff``) at a distance > 0 — networkx's ``harmonic_centrality`` of the reversed
    graph — or, with ``decay="exp:β"``, the gravity closeness Σ e^(−βd). ``cutoff``: one distance, or a
    list of ascending ones (then a sources × cutoffs array, from one tree per source).

    >>> import urbanflow
    >>> g = urbanflow.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 1], [1, 1, 1, 1])
    >>> urbanflow.closeness(g).tolist()
    [1.5, 2.0, 1.5]
    """
    src = None if sources is None else _u32(sources, "sources")
    several = cutoff is not None and np.ndim(cutoff) == 1
    cutoffs = [] if cutoff is None else _cutoffs(cutoff if several else [cutoff])
    r = _accessibility(_graph_of(graph), None, None, cutoffs, decay, sources=src, closeness=True,
                       engine=engine, backend=backend, threads=threads, progress=progress)
    return r["sum"] if several else r["sum"][:, 0].copy()


def betweenness(graph, *, cutoff=None, sample: int | None = None, seed: int = 1, threads=None,
                progress=None):
    """Brandes' betweenness of every vertex (float64; directed, unnormalised, endpoints excluded), as
    networkx's ``betweenness_centrality(normalized=False, weight=...)``. ``cutoff``: only pairs within this
    distance. ``sample``: estimate from that many sources drawn with ``seed``; then a pair
    ``(values, standard errors)`` is returned (errors 0 when the sample is every vertex).

    >>> import urbanflow
    >>> g = urbanflow.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 1], [1, 1, 1, 1])
    >>> urbanflow.betweenness(g).tolist()
    [0.0, 2.0, 0.0]
    """
    c = None if cutoff is None else _cutoffs([cutoff])[0]
    r = _betweenness(_graph_of(graph), cutoff=c, sample=sample, seed=seed, threads=threads, progress=progress)
    if sample is not None:
        # A sample of every source is the exact answer: its standard errors are 0.
        se = r["std_error"] if r["std_error"] is not None else np.zeros_like(r["value"])
        return r["value"], se
    return r["value"]


def nearest(graph, points, k: int, *, max_distance=None, sources=None, threads=None):
    """The ``k`` nearest points from every source, nearest first (ties by vertex), as pandana's
    ``nearest_pois``: a pair of (sources × k) uint32 arrays ``(vertices, distances)``, with
    ``UNREACHABLE`` in both where fewer than ``k`` points lie within ``max_distance`` (default: no
    limit). ``points``: vertices (0-based; a vertex listed twice is two points).

    >>> import urbanflow
    >>> g = urbanflow.Graph.from_edges([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2], [1, 1, 1, 1, 1, 1])
    >>> v, d = urbanflow.nearest(g, [3, 0], 2)
    >>> v[1].tolist(), d[1].tolist()
    ([0, 3], [1, 2])
    """
    k = _integer(k, "k")
    src = None if sources is None else _u32(sources, "sources")
    limit = None if max_distance is None else _integer(max_distance, "max_distance")
    r = _nearest(_graph_of(graph), _u32(points, "points"), k, max_distance=limit, sources=src, threads=threads)
    return r["vertex"], r["distance"]
