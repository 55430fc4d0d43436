#!/bin/bash
# The GPU's default path arena (1 GiB) against the former 2 GiB (`--path-mib 2048`) and rayon on all
# cores, count-only, runs interleaved, one machine. Usage: bash scripts/bench/lab/cycles_arena_default.sh
# [path/to/cycles] [OUT] → OUT/default.txt, one `label graph {json}` line per run.
B=${1:-target/release/urbanflow}
OUT=${2:-${OUT:-.}}
for g in grid3:3x4x4 grid:6x10 grid:7x10 grid:8x10 hypercube:6 gnp:80,0.07,1; do
  for _ in 1 2 3; do
    echo "gpu $g $(timeout 60 "$B" cycles --generate "$g" --count-only --backend gpu --json 2>>"$OUT/err.txt")" >> "$OUT/default.txt"
    echo "gpu2048 $g $(timeout 60 "$B" cycles --generate "$g" --count-only --backend gpu --path-mib 2048 --json 2>>"$OUT/err.txt")" >> "$OUT/default.txt"
    echo "cpu $g $(timeout 60 "$B" cycles --generate "$g" --count-only --backend cpu --json 2>>"$OUT/err.txt")" >> "$OUT/default.txt"
    echo "auto $g $(timeout 60 "$B" cycles --generate "$g" --count-only --backend auto --json 2>>"$OUT/err.txt")" >> "$OUT/default.txt"
  done
done
