#!/bin/bash
# Chordless cycles on the GPU, count-only, with path stacks of several sizes (`--path-mib`), beside
# rayon on all cores, one machine, one run: is the per-run fixed cost the 2 GiB default arena?
# Usage: bash scripts/bench/lab/cycles_arena.sh [path/to/cycles] [OUT] → OUT/arena.txt, one
# `backend graph mib {json}` line per run (3 runs each).
B=${1:-target/release/urbanflow}
OUT=${2:-${OUT:-.}}
nvidia-smi --query-gpu=name --format=csv,noheader > "$OUT/gpu.txt" 2>&1
for g in grid3:3x4x4 grid:6x10 grid:7x10 grid:8x10; do
  for mib in default 1024 256 64 16; do
    for _ in 1 2 3; do
      args=(--generate "$g" --count-only --backend gpu --json)
      [ "$mib" != default ] && args+=(--path-mib "$mib")
      echo "gpu $g $mib $(timeout 60 "$B" cycles "${args[@]}" 2>>"$OUT/err.txt")" >> "$OUT/arena.txt"
    done
  done
  for _ in 1 2 3; do
    echo "cpu $g - $(timeout 60 "$B" cycles --generate "$g" --count-only --backend cpu --json 2>>"$OUT/err.txt")" >> "$OUT/arena.txt"
  done
done
