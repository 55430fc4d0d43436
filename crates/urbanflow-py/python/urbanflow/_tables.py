"""Tables: a pandas DataFrame when pandas imports (and ``as_frame`` is not False), else the dict of
numpy columns itself."""

import importlib


def table(columns, as_frame=None):
    """``columns`` (a dict of equal-length numpy arrays) as a DataFrame, or as the dict."""
    if as_frame is False:
        return columns
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:
        if as_frame:
            raise
        return columns
    return pandas.DataFrame(columns, copy=False)
