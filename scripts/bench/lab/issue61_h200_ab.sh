#!/bin/bash
# Issue 61 on an H200 host (docs/benchmarks.md "Many-source plans and the one matrix API on one H200
# host"): the urbanflow command before (base, 1867804) and after (new: many-source
# runs as measure -> plan -> run, one matrix API), alternated, same cache folder. Writes $OUT/ab.jsonl.
set -u
mkdir -p /tmp/b && tar xJf .gpu/ab.tar.xz -C /tmp/b
NY=.gpu/ny/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/ufcache
nvidia-smi -L; nproc
seq 1 264346 | shuf -n 10000 --random-source=<(yes 1) > /tmp/o10000.txt
seq 1 264346 | shuf -n 10000 --random-source=<(yes 2) > /tmp/d10000.txt
head -1000 /tmp/o10000.txt > /tmp/o1000.txt; head -1000 /tmp/d10000.txt > /tmp/d1000.txt
for v in base new; do /tmp/b/$v trees --graph $NY --sources 2000 --json > /dev/null 2>&1; done
r() { # label, binary, args...
  local label=$1 v=$2; shift 2
  local t0=$EPOCHREALTIME
  local out=$(/tmp/b/$v "$@" 2>/tmp/err | tail -1 | sed 's/"sources":\[[^]]*\],//')
  local t1=$EPOCHREALTIME
  local wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b - a}')
  echo "{\"case\":\"$label\",\"ver\":\"$v\",\"wall_s\":$wall,\"out\":${out:-null}}" | tee -a $OUT/ab.jsonl
  grep -i "error" /tmp/err | head -2
}
for rep in 1 2 3 4 5; do for v in base new; do
  r trees4096_batched_single $v trees --graph $NY --sources 4096 --method dijkstra --backend gpu --schedule single --json
  r matrix10000_gpu $v route --graph $NY --matrix /tmp/o10000.txt /tmp/d10000.txt --backend gpu --json
  r matrix1000_gpu $v route --graph $NY --matrix /tmp/o1000.txt /tmp/d1000.txt --backend gpu --json
done; done
