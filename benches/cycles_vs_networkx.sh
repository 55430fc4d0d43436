#!/usr/bin/env bash
# Chordless cycles of the 6 x 10 grid: networkx's chordless_cycles against our sequential DFS, side by
# side on this machine (median of 3 each). Needs `pip install networkx` and a release build of the
# cycles example: cargo build --release --example cycles
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-6x10}
python3 - "$spec" <<'PY'
import sys, time, statistics
import networkx as nx
r, c = map(int, sys.argv[1].split("x"))
g = nx.grid_2d_graph(r, c)
times = []
for _ in range(3):
    t = time.perf_counter()
    n = sum(1 for _ in nx.chordless_cycles(g))
    times.append(time.perf_counter() - t)
print(f'{{"tool":"networkx {nx.__version__}","graph":"grid {sys.argv[1]}","cycles":{n},"median_s":{statistics.median(times):.4f}}}')
PY
for _ in 1 2 3; do
  ./target/release/urbanflow cycles --generate "grid:$spec" --backend serial --count-only --json
done
