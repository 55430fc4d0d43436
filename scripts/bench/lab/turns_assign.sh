#!/bin/bash
# Issue 36 (run from a folder holding assign.tar.xz and data/cs/: the stripped release example, the
# Chicago-Sketch net and trips, and cs_turns.tntp from scripts/bench/lab/chicago_turns.py): Chicago-Sketch BFW to 1e-4, turn-free vs seeded turns, CPU (16 threads)
# and GPU loaders side by side, alternated; three repeats.
cd "$(dirname "$0")"
mkdir -p /tmp/b && tar xJf assign.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
D=data/cs
for rep in 1 2 3; do
  for backend in cpu gpu; do
    for trees in dijkstra phast; do
      for t in "--no-turns" "--turns $D/cs_turns.tntp"; do
        for gap in 1e-4; do
          out=$(/tmp/b/assign --net $D/ChicagoSketch_net.tntp.xz --trips $D/ChicagoSketch_trips.tntp.xz --algorithm bfw --gap $gap --backend $backend --trees $trees $t --json 2>/dev/null)
          echo "{\"rep\":$rep,\"backend\":\"$backend\",\"trees\":\"$trees\",\"turns\":\"${t%% *}\",\"result\":$out}"
        done
      done
    done
  done
done
