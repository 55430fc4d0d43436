"""Shared helpers: the repository, the `urbanflow` command cargo built, seeded random graphs."""

import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
DATA = REPO / "examples" / "data"


def target_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def command(name: str) -> list[str]:
    """`urbanflow <name>` as built by `cargo test`/`cargo build -p urbanflow-cli` (the newer of the debug
    and release builds): the start of a command line for subprocess."""
    exe = "urbanflow.exe" if os.name == "nt" else "urbanflow"
    built = [p for p in (target_dir() / profile / exe for profile in ("debug", "release")) if p.exists()]
    if not built:
        pytest.skip("the urbanflow command is not built (cargo build -p urbanflow-cli)")
    return [str(max(built, key=lambda p: p.stat().st_mtime)), name]


def random_arcs(seed: int, n: int, m: int, lo: int = 0, hi: int = 1000):
    rng = np.random.default_rng(seed)
    tails = rng.integers(0, n, m)
    heads = rng.integers(0, n, m)
    weights = rng.integers(lo, hi + 1, m)
    return tails, heads, weights


def gpu_required() -> bool:
    return os.environ.get("URBANFLOW_REQUIRE_GPU") == "1"


def shared_data(relative: str) -> pathlib.Path:
    """A file of the shared data sets (``$URBANFLOW_DATA``, default ``../shared/data`` beside the
    repository): skipped when absent, a failure with ``URBANFLOW_REQUIRE_DATA=1``."""
    root = pathlib.Path(os.environ.get("URBANFLOW_DATA", REPO.parent / "shared" / "data"))
    path = root / relative
    if not path.exists():
        message = f"shared data {path} not found (set URBANFLOW_DATA)"
        if os.environ.get("URBANFLOW_REQUIRE_DATA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def furness(seed, rows, cols, tol=1e-14):
    """Plain Furness in numpy (rows, then columns, until both corrections are within ``tol``): the
    independent oracle of the IPF tests."""
    m = seed.copy()
    for _ in range(100_000):
        m *= (rows / m.sum(axis=1))[:, None]
        f = cols / m.sum(axis=0)
        m *= f[None, :]
        if np.max(np.abs(m.sum(axis=1) / rows - 1)) < tol and np.max(np.abs(f - 1)) < tol:
            break
    return m
