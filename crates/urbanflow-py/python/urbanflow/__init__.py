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
from ._urbanflow import assign as _assign
from .errors import InvalidInputError

__all__ = [
    "UNREACHABLE",
    "Graph",
    "Network",
    "Demand",
    "AssignResult",
    "assign",
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


@dataclass(frozen=True)
class AssignResult:
    """An assignment's results: link ``flows`` and ``costs`` (float64, the network's link order),
    whether the gap target was reached, the last iteration's measures, the convergence ``history``
    (a table: iteration, seconds, relative_gap, average_excess_cost, objective, tstt, sptt) and the
    ``links`` table (from, to, flow, cost, capacity, volume_capacity)."""

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


def assign(net, trips, *, algorithm: str = "bfw", gap: float = 1e-4, max_iters: int | None = None,
           system_optimum: bool = False, backend=None, trees: str = "auto", threads=None,
           as_frame: bool | None = None) -> AssignResult:
    """Static traffic assignment: user equilibrium (or the system optimum) of ``trips`` on ``net``.

    ``net`` is a ``Network`` or the path of a TNTP ``_net`` file; ``trips`` a ``Demand`` or the path of
    a ``_trips`` file. ``algorithm``: "msa", "fw", "cfw", "bfw" (default) or "b" (Algorithm B);
    ``gap``: the relative gap to reach; ``max_iters``: the library's cap by default; ``trees``: how
    all-or-nothing trees grow ("dijkstra", "phast", "auto"). Tables are pandas DataFrames when pandas is
    installed (``as_frame=False``: dicts of numpy arrays)."""
    if not isinstance(net, _Network):
        net = _Network.from_tntp(os.fspath(net))
    if not isinstance(trips, _Demand):
        trips = _Demand.from_tntp(os.fspath(trips), net)
    r = _assign(net, trips, algorithm=algorithm, gap=gap, max_iters=max_iters, system_optimum=system_optimum,
                backend=backend, trees=trees, threads=threads)
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
    )
