#!/usr/bin/env bash
# Run on the device machine from the repository root: expects .gpu/setup.tar.xz (stripped doctor,
# overlay, guillotine, cycles and sssp examples under bin/setup) and .gpu/data/{gcut13.txt,NY.gr.xz}.
# GPU setup per process: each GPU command twice in a row on one machine (the driver's own shader cache
# warm on the second), the CPU command beside it; wall time of the whole command.
set -u
cd .gpu && tar xJf setup.tar.xz
export URBANFLOW_TUNE=off URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -d ~/.nv ~/.cache/nvidia 2>/dev/null
B=bin/setup
t() { local name=$1; shift; local s=$(date +%s%N); "$@" > $OUT/out_$name.txt 2>&1; local rc=$?; local e=$(date +%s%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print ($e-$s)/1e9}") :: $(tail -1 $OUT/out_$name.txt | cut -c1-260)"; }
t doctor1 $B/doctor
t doctor2 $B/doctor
for r in 1 2; do
  t overlay_gpu$r $B/overlay --generate n=1000,family=b,l=128,seed=2 --method dist --backend gpu --no-lp --json
done
t overlay_cpu $B/overlay --generate n=1000,family=b,l=128,seed=2 --method dist --backend cpu --no-lp --json
for r in 1 2; do t gcut_gpu$r $B/guillotine --instance data/gcut13.txt --backend gpu --json; done
t gcut_cpu $B/guillotine --instance data/gcut13.txt --backend cpu --json
for r in 1 2; do t sssp_gpu$r $B/sssp --graph data/NY.gr.xz --source 1 --algorithm lbr --backend gpu --repeat 3 --json; done
t sssp_cpu $B/sssp --graph data/NY.gr.xz --source 1 --algorithm dijkstra --backend cpu --repeat 3 --json
ls -d ~/.nv ~/.cache/nvidia 2>/dev/null; du -sh ~/.nv ~/.cache/nvidia 2>/dev/null
