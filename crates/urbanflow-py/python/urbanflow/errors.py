"""Exceptions raised by urbanflow: each is an ``UrbanflowError`` and the builtin it refines, so
``except ValueError`` and ``except urbanflow.errors.FormatError`` both work. File errors are the builtin
``OSError`` subclasses (``FileNotFoundError``, ...) with ``filename`` set."""


class UrbanflowError(Exception):
    """Base class of urbanflow's own exceptions."""


class FormatError(UrbanflowError, ValueError):
    """A file's content is not what its format expects; ``path`` and ``line`` say where."""

    path = None
    line = None


class VertexError(UrbanflowError, IndexError):
    """A vertex index outside the graph."""


class InvalidInputError(UrbanflowError, ValueError):
    """An argument or input value outside its domain (negative weights, a bad option name, ...)."""


class UnreachableDemandError(UrbanflowError, ValueError):
    """Trips between zones that no path joins."""


class NoGpuError(UrbanflowError, RuntimeError):
    """``backend="gpu"`` and no GPU adapter (install a Vulkan driver, or use ``backend="cpu"``)."""


class GpuError(UrbanflowError, RuntimeError):
    """The GPU failed (device lost, out of memory, a limit too low)."""


__all__ = [
    "UrbanflowError",
    "FormatError",
    "VertexError",
    "InvalidInputError",
    "UnreachableDemandError",
    "NoGpuError",
    "GpuError",
]
