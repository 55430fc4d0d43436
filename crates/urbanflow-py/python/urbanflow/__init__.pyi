from dataclasses import dataclass
from os import PathLike
from typing import Any, Literal, final

import numpy as np
import numpy.typing as npt

from . import errors as errors

__version__: str
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
UNREACHABLE: int

_Backend = Literal["cpu", "gpu", "auto"] | None
_Path = str | PathLike[str]
_Ints = npt.ArrayLike

class Graph:
    def __init__(self, inner: Any) -> None: ...
    @classmethod
    def from_file(cls, path: _Path, format: str = "auto", *, tntp_units: float = 1000.0, threads: int | None = None) -> Graph: ...
    @classmethod
    def from_edges(cls, tails: _Ints, heads: _Ints, weights: _Ints, *, n: int | None = None) -> Graph: ...
    @classmethod
    def from_scipy(cls, matrix: Any) -> Graph: ...
    @classmethod
    def from_networkx(cls, graph: Any, weight: str = "weight") -> Graph: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def ids(self) -> npt.NDArray[np.uint64]: ...
    @property
    def offsets(self) -> npt.NDArray[np.uint32]: ...
    @property
    def heads(self) -> npt.NDArray[np.uint32]: ...
    @property
    def tails(self) -> npt.NDArray[np.uint32]: ...
    @property
    def weights(self) -> npt.NDArray[np.uint32]: ...
    def index(self, ids: _Ints) -> npt.NDArray[np.uint32]: ...
    def distances(self, sources: int | _Ints, *, algorithm: str = "auto", method: str = "auto", backend: _Backend = None,
                  threads: int | None = None, dtype: Any = None,
                  predecessors: bool = False,
                  progress: Any = None) -> npt.NDArray[Any] | tuple[npt.NDArray[Any], npt.NDArray[np.uint32]]: ...
    def paths(self, source: int, targets: _Ints, *, threads: int | None = None) -> list[tuple[int, npt.NDArray[np.uint32]] | None]: ...
    def path(self, source: int, target: int, *, threads: int | None = None) -> tuple[int, npt.NDArray[np.uint32]] | None: ...
    def hierarchy(self, *, cache: bool = True, threads: int | None = None) -> Hierarchy: ...
    def distance_matrix(self, sources: _Ints, targets: _Ints, *, method: str = "auto", backend: _Backend = None,
                        threads: int | None = None, dtype: Any = None) -> npt.NDArray[Any]: ...
    def matrix_engine(self, sources: int, *, backend: _Backend = None) -> tuple[str, str]: ...
    @classmethod
    def from_osm(cls, path: _Path, profile: str = "car", *, largest_component: bool = True) -> OsmGraph: ...
    def k_shortest_paths(self, source: int, target: int, k: int, *, algorithm: str = "mps",
                         threads: int | None = None) -> list[tuple[int, npt.NDArray[np.uint32]]]: ...
    def to_scipy(self) -> Any: ...
    def to_networkx(self) -> Any: ...

class Hierarchy:
    def __init__(self, inner: Any) -> None: ...
    def customise(self, weights: _Ints | None = None, *, threads: int | None = None, perfect: bool = False) -> None: ...
    def distance(self, source: int, target: int) -> int | None: ...
    def path(self, source: int, target: int) -> tuple[int, npt.NDArray[np.uint32]] | None: ...
    def matrix(self, sources: _Ints, targets: _Ints, *, threads: int | None = None, dtype: Any = None) -> npt.NDArray[Any]: ...
    @property
    def cache(self) -> str: ...
    @property
    def build_s(self) -> float: ...
    @property
    def customise_s(self) -> float: ...

class OsmGraph:
    def __init__(self, inner: Any) -> None: ...
    @property
    def graph(self) -> Graph: ...
    @property
    def osm_ids(self) -> npt.NDArray[np.int64]: ...
    @property
    def way_ids(self) -> npt.NDArray[np.int64]: ...
    @property
    def coords(self) -> npt.NDArray[np.float64]: ...
    @property
    def travel_time_s(self) -> npt.NDArray[np.float64]: ...
    @property
    def length_m(self) -> npt.NDArray[np.float64]: ...
    def snap(self, lat: float, lon: float, *, limit_m: float = 1000.0) -> tuple[int, float]: ...
    def report(self) -> dict[str, Any]: ...
    def turn_graph(self) -> tuple[Graph, npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...

@final
class Network:
    @staticmethod
    def from_tntp(path: _Path, *, toll_factor: float = 0.0, distance_factor: float = 0.0) -> Network: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def num_links(self) -> int: ...
    @property
    def num_zones(self) -> int: ...
    def links(self) -> dict[str, npt.NDArray[Any]]: ...

@final
class Demand:
    @staticmethod
    def from_tntp(path: _Path, net: Network, *, scale: float = 1.0, cache: bool = False) -> Demand: ...
    @property
    def total(self) -> float: ...

@dataclass(frozen=True)
class AssignResult:
    flows: npt.NDArray[np.float64]
    costs: npt.NDArray[np.float64]
    converged: bool
    iterations: int
    relative_gap: float
    tstt: float
    sptt: float
    objective: float
    history: Any
    links: Any
    classes: dict[str, npt.NDArray[np.float64]] | None = None
    turns: Any = None
    select_link: Any = None
    loaded_by: str = ""

def assign(net: Network | _Path, trips: Demand | _Path, *, algorithm: str = "bfw", gap: float = 1e-4,
           max_iters: int | None = None, system_optimum: bool = False, backend: _Backend = None, trees: str = "auto",
           threads: int | None = None, progress: Any = None, as_frame: bool | None = None,
           classes: _Path | list[dict[str, Any]] | None = None, turns: _Path | None = None,
           split_all_junctions: bool = False, select_link: list[tuple[int, int]] | None = None) -> AssignResult: ...
def skims(net: Network | _Path, result: AssignResult, *, threads: int | None = None) -> dict[str, npt.NDArray[np.float64]]: ...

@dataclass(frozen=True)
class OdmeResult:
    matrix: npt.NDArray[np.float64]
    demand: Demand
    pairs: Any
    counted: Any
    history: Any
    flows: npt.NDArray[np.float64]
    costs: npt.NDArray[np.float64]
    reached_target: bool
    stopped: str
    classes: dict[str, dict[str, Any]] | None = None
    passes_on: str = "cpu"

def estimate_od(net: Network | _Path, trips: Demand | _Path, counts: _Path | Any, *, outer: int = 10,
                inner_gap: float = 1e-4, max_change: float = 10.0, target: float = 0.95, threads: int | None = None,
                progress: Any = None, as_frame: bool | None = None,
                classes: _Path | list[dict[str, Any]] | None = None, all_counts: str | None = None,
                backend: str | None = None) -> OdmeResult: ...

@dataclass(frozen=True)
class TransitAssignment:
    links: Any
    zones: npt.NDArray[np.int64]
    skims: dict[str, npt.NDArray[np.float64]] | None
    assigned: float
    intrazonal: float
    unassigned: float
    unassigned_pairs: int
    seconds: float
    congestion: dict[str, Any] | None = None
    backend: str = ""
    why: str = ""

def transit_assign(edges: _Path | None = None, demand: _Path | None = None, zones: _Path | None = None, *,
                   gtfs: _Path | None = None, date: str | None = None, window: str = "07:00-09:00",
                   skims: bool = False, allow_unconnected: bool = False,
                   vehicle_capacity: float | None = None, line_capacities: _Path | None = None,
                   period: float | None = None, beta: float = 0.5,
                   gap: float = 1e-3, max_iterations: int = 100, backend: str | None = None,
                   threads: int | None = None, progress: Any = None,
                   as_frame: bool | None = None) -> TransitAssignment: ...

@dataclass(frozen=True)
class Balanced:
    matrix: npt.NDArray[np.float64]
    iterations: int
    gap: float
    converged: bool
    row_residual: float
    column_residual: float

def ipf(seed: npt.ArrayLike, rows: npt.ArrayLike, cols: npt.ArrayLike, *, tolerance: float = 1e-12,
        max_iterations: int = 10_000, scale_columns: bool = False, threads: int | None = None,
        backend: str = "cpu") -> Balanced: ...
def gravity(costs: npt.ArrayLike, rows: npt.ArrayLike, cols: npt.ArrayLike, deterrence: str | npt.ArrayLike, *,
            constraint: str = "doubly", tolerance: float = 1e-12, max_iterations: int = 10_000,
            scale_columns: bool = False, k_factors: npt.ArrayLike | None = None,
            threads: int | None = None) -> Balanced: ...

def calibrate(costs: npt.ArrayLike, observed: npt.ArrayLike | None = None, form: str = "expo", *, fit: str = "mean",
              lengths: tuple[npt.ArrayLike, npt.ArrayLike] | None = None, rows: npt.ArrayLike | None = None,
              cols: npt.ArrayLike | None = None, band_width: float | None = None, tolerance: float = 1e-9,
              threads: int | None = None) -> dict[str, Any]: ...

@dataclass(frozen=True)
class ModelResult:
    matrix: npt.NDArray[np.float64]
    converged: bool
    flows: npt.NDArray[np.float64]
    costs: npt.NDArray[np.float64]
    history: Any

def run_model(net: Network | _Path, rows: npt.ArrayLike, cols: npt.ArrayLike, deterrence: str, *, gap: float = 1e-4,
              demand_change: float = 1e-3, max_loops: int = 50, averaging: float | None = None,
              threads: int | None = None, as_frame: bool | None = None) -> ModelResult: ...

_Where = int | str | tuple[float, float]
_Time = str | int

@dataclass(frozen=True)
class Journey:
    depart: int
    arrival: int
    legs: Any
    @property
    def duration(self) -> int: ...

class Transit:
    def __init__(self, inner: Any) -> None: ...
    @classmethod
    def from_gtfs(cls, path: _Path, *, date: str | None = None, places: list[tuple[float, float]] | None = None,
                  walk_speed: float = 1.3, walk_radius: float = 500.0, change_time: int = 120,
                  place_radius: float = 1000.0, bike_radius: float | None = None) -> Transit: ...
    @property
    def date(self) -> str: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    def stats(self) -> dict[str, int]: ...
    def stations(self, as_frame: bool | None = None) -> Any: ...
    def vertex(self, where: _Where, *, snap_limit_m: float = 1000.0) -> int: ...
    def journey(self, origin: _Where, destination: _Where, depart: _Time, *, profile: str = "walk+transit",
                as_frame: bool | None = None) -> Journey | None: ...
    def arrivals(self, origin: _Where, depart: _Time, *, profile: str = "walk+transit") -> npt.NDArray[np.float64]: ...

@dataclass(frozen=True)
class Accessibility:
    sources: npt.NDArray[np.uint32]
    cutoffs: npt.NDArray[np.uint32]
    count: npt.NDArray[np.uint32]
    sum: npt.NDArray[np.float64]
    mean: npt.NDArray[np.float64]
    min: npt.NDArray[np.float64]
    max: npt.NDArray[np.float64]
    engine: str
    why: str
    seconds: dict[str, float]
    def table(self, ids: npt.ArrayLike | None = None, as_frame: bool | None = None) -> Any: ...

def accessibility(graph: Graph | OsmGraph, points: Any, cutoffs: npt.ArrayLike, *, decay: str = "flat",
                  sources: npt.ArrayLike | None = None, engine: str = "auto", backend: str | None = None,
                  threads: int | None = None, progress: Any = None) -> Accessibility: ...
def closeness(graph: Graph | OsmGraph, *, cutoff: int | npt.ArrayLike | None = None, decay: str = "harmonic",
              sources: npt.ArrayLike | None = None, engine: str = "auto", backend: str | None = None,
              threads: int | None = None, progress: Any = None) -> npt.NDArray[np.float64]: ...
def betweenness(graph: Graph | OsmGraph, *, cutoff: int | None = None, sample: int | None = None, seed: int = 1,
                threads: int | None = None, progress: Any = None) -> Any: ...
def nearest(graph: Graph | OsmGraph, points: npt.ArrayLike, k: int, *, max_distance: int | None = None,
            sources: npt.ArrayLike | None = None,
            threads: int | None = None) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
