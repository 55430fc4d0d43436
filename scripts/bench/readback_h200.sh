#!/bin/bash
# Issue 62 on an H200 host (one or two GPUs): PHAST rows and the GPU matrix, before (`base`, the binary
# of the commit before the readback ring) and after (`new`), side by side in one run, with the 16-core
# CPU beside them. Writes one JSON line per command to $OUT/runs.jsonl (prefixed by a label).
# Usage on the device: OUT=... bash scripts/bench/readback_h200.sh
B=.gpu/b62
tar xJf $B/bins.tar.xz -C /tmp
D=$B
NY=$D/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPUS=$(nvidia-smi -L | wc -l)
run() { # label, command…
  local label=$1; shift
  local line; line=$(timeout 120 "$@" --json 2>/tmp/err.txt | tail -n1)
  echo "$label $line" | tee -a $OUT/runs.jsonl | cut -c1-400
  grep -iE "error|panic" /tmp/err.txt | head -3
}
# The order cache, once (both binaries read the same file format).
/tmp/new trees --graph $NY --sources 64 --backend gpu --method phast --json > /dev/null
for rep in 1 2; do
  for bin in base new; do
    run "$bin trees60000 1gpu r$rep" /tmp/$bin trees --graph $NY --sources 60000 --backend gpu --method phast
    [ "$GPUS" -ge 2 ] && run "$bin trees60000 2gpu r$rep" /tmp/$bin trees --graph $NY --sources 60000 --gpus all --method phast
    run "$bin trees16384 cached r$rep" /tmp/$bin trees --graph $NY --sources 16384 --backend gpu --method phast
    URBANFLOW_CACHE_DIR=/tmp/fresh-$bin-$rep run "$bin trees16384 first r$rep" /tmp/$bin trees --graph $NY --sources 16384 --backend gpu --method phast
    run "$bin matrix10000 gpu r$rep" /tmp/$bin route --graph $NY --matrix $D/o10000.txt $D/d10000.txt --backend gpu
  done
  run "cpu matrix10000 r$rep" /tmp/new route --graph $NY --matrix $D/o10000.txt $D/d10000.txt --backend cpu
  URBANFLOW_READBACK_DEPTH=3 run "new-depth3 trees60000 1gpu r$rep" /tmp/new trees --graph $NY --sources 60000 --backend gpu --method phast
  [ "$GPUS" -ge 2 ] && URBANFLOW_READBACK_DEPTH=3 run "new-depth3 trees60000 2gpu r$rep" /tmp/new trees --graph $NY --sources 60000 --gpus all --method phast
done
for b in gpu cpu auto; do run "new ksp1000 $b" /tmp/new ksp --graph $NY --pairs 1000 --k 10 --backend $b; done
run "cpu trees60000" /tmp/new trees --graph $NY --sources 60000 --backend cpu --method phast
# Same matrix from both engines, byte for byte.
/tmp/new route --graph $NY --matrix $D/o1000.txt $D/d10000.txt --backend cpu --out /tmp/cpu.csv > /dev/null
/tmp/new route --graph $NY --matrix $D/o1000.txt $D/d10000.txt --backend gpu --out /tmp/gpu.csv > /dev/null
cmp /tmp/cpu.csv /tmp/gpu.csv && echo "matrix CSV IDENTICAL" | tee -a $OUT/runs.jsonl
true
