#!/usr/bin/env bash
# CPU paths only, more repetitions: old (1716c52) vs new (HEAD), alternating.
# Expects .gpu/bin.tar.xz (bin/old/ and bin/new/ with the stripped sssp, many_to_all and assign examples)
# and .gpu/data/ (NY.gr.xz, Philadelphia_net.tntp.xz, Philadelphia_trips.tntp.xz); writes $OUT/*.jsonl.
set -u
cd .gpu && [ -d bin ] || tar xJf bin.tar.xz
D=data
for rep in 1 2 3 4 5; do
  for v in old new; do
    o=$(taskset -c 3 bin/$v/sssp --graph $D/NY.gr.xz --source 1 --algorithm dijkstra --backend cpu --repeat 40 --json 2>/dev/null | tail -1)
    echo "{\"case\":\"sssp_cpu_1thread\",\"ver\":\"$v\",\"rep\":$rep,\"out\":$o}" >> "$OUT/cpu.jsonl"
    o=$(taskset -c 3 bin/$v/sssp --graph $D/NY.gr.xz --source 1 --target 200000 --algorithm dijkstra --backend cpu --repeat 40 --json 2>/dev/null | tail -1)
    echo "{\"case\":\"sssp_cpu_target\",\"ver\":\"$v\",\"rep\":$rep,\"out\":$o}" >> "$OUT/cpu.jsonl"
  done
done
for rep in 1 2 3 4; do
  for v in old new; do
    o=$(bin/$v/many_to_all --graph $D/NY.gr.xz --sources 2048 --backend cpu --json 2>/dev/null | tail -1)
    echo "{\"case\":\"m2a_cpu\",\"ver\":\"$v\",\"rep\":$rep,\"out\":$o}" >> "$OUT/cpu.jsonl"
    o=$(bin/$v/assign --net $D/Philadelphia_net.tntp.xz --trips $D/Philadelphia_trips.tntp.xz --backend cpu --max-iters 20 --gap 1e-12 --json 2>/dev/null | tail -1)
    echo "{\"case\":\"assign_cpu\",\"ver\":\"$v\",\"rep\":$rep,\"out\":$o}" >> "$OUT/cpu.jsonl"
    o=$(bin/$v/assign --net $D/Philadelphia_net.tntp.xz --trips $D/Philadelphia_trips.tntp.xz --backend cpu --threads 1 --max-iters 5 --gap 1e-12 --json 2>/dev/null | tail -1)
    echo "{\"case\":\"assign_cpu_1thread\",\"ver\":\"$v\",\"rep\":$rep,\"out\":$o}" >> "$OUT/cpu.jsonl"
  done
done
wc -l "$OUT/cpu.jsonl"
