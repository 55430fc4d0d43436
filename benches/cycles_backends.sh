#!/bin/bash
# Chordless cycles, count-only: GPU, rayon (all cores) and Auto side by side on one machine, then the
# sequential search and the listing runs. Usage: bash benches/cycles_backends.sh [path/to/cycles] [OUT]
# (build with `cargo build --release --example cycles`; on the device machine the stripped binary is
# carried in .gpu/). Writes OUT/results.txt, one `label {json}` line per run; summarise with
# `python3 benches/cycles_summary.py OUT/results.txt`.
B=${1:-target/release/urbanflow}
OUT=${2:-${OUT:-.}}
nvidia-smi --query-gpu=name --format=csv,noheader > "$OUT/gpu.txt" 2>&1
nproc > "$OUT/nproc.txt"
run() { # reps, label, args...
  local reps=$1 label=$2; shift 2
  for _ in $(seq "$reps"); do
    echo "$label $(timeout 40 "$B" cycles "$@" --json 2>>"$OUT/err.txt")" >> "$OUT/results.txt"
  done
}
for g in grid:6x10 grid:7x10 grid:8x10 hypercube:6 bipartite:50,50 grid3:3x4x4 gnp:60,0.1,1 gnp:80,0.07,1; do
  run 3 "gpu $g" --generate "$g" --count-only --backend gpu
  run 3 "cpu $g" --generate "$g" --count-only --backend cpu
  run 3 "auto $g" --generate "$g" --count-only --backend auto
done
run 3 "serial grid:7x10" --generate grid:7x10 --count-only --backend serial
run 3 "serial grid:6x10" --generate grid:6x10 --count-only --backend serial
run 1 "gpu-list grid:7x10" --generate grid:7x10 --backend gpu
run 1 "serial-list grid:7x10" --generate grid:7x10 --backend serial
