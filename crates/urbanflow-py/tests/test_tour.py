"""The example script `examples/python/tour.py` runs to the end and prints each step's results."""

import subprocess
import sys

from conftest import REPO


def test_tour_runs():
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "tour.py")], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for expected in ["roads: Graph(", "assignment: ", "banned 1→3→4 present: False", "select-link 10→15:",
                     "skims: (24, 24)", "transit: leave 07:55"]:
        assert expected in out.stdout, (expected, out.stdout)
