#!/usr/bin/env bash
# Old (1716c52) vs new (HEAD) example binaries, alternating A B A B per case on one machine.
# Expects .gpu/bin.tar.xz (bin/old/ and bin/new/ with the stripped sssp, many_to_all and assign examples)
# and .gpu/data/ (NY.gr.xz, Philadelphia_net.tntp.xz, Philadelphia_trips.tntp.xz); writes $OUT/*.jsonl.
set -u
cd .gpu && tar xJf bin.tar.xz
D=data
export URBANFLOW_TUNE=off URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
run() {
  local name=$1; shift
  for rep in 1 2; do
    for v in old new; do
      local s=$(date +%s%N)
      local out
      out=$(bin/$v/"$@" 2>/tmp/err_${name}_$v.txt | tail -1)
      local rc=$?
      local e=$(date +%s%N)
      echo "{\"case\":\"$name\",\"ver\":\"$v\",\"rep\":$rep,\"wall_ms\":$(( (e - s) / 1000000 )),\"out\":${out:-null}}" | tee -a "$OUT/results.jsonl"
      [ -s /tmp/err_${name}_$v.txt ] && tail -2 /tmp/err_${name}_$v.txt | sed "s/^/  [$name $v stderr] /" | cut -c1-300
    done
  done
}
run sssp_cpu sssp --graph $D/NY.gr.xz --source 1 --algorithm dijkstra --backend cpu --repeat 10 --json
run m2a_cpu many_to_all --graph $D/NY.gr.xz --sources 2048 --backend cpu --json
run m2a_gpu_trees many_to_all --graph $D/NY.gr.xz --sources 16384 --backend gpu --method trees --schedule single --json
run assign_cpu assign --net $D/Philadelphia_net.tntp.xz --trips $D/Philadelphia_trips.tntp.xz --backend cpu --max-iters 20 --gap 1e-12 --json
run assign_gpu_dijkstra assign --net $D/Philadelphia_net.tntp.xz --trips $D/Philadelphia_trips.tntp.xz --backend gpu --trees dijkstra --max-iters 20 --gap 1e-12 --json
run assign_gpu_phast assign --net $D/Philadelphia_net.tntp.xz --trips $D/Philadelphia_trips.tntp.xz --backend gpu --trees phast --max-iters 20 --gap 1e-12 --json
run m2a_gpu_phast many_to_all --graph $D/NY.gr.xz --sources 16384 --backend gpu --method phast --json
