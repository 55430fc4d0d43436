#!/bin/bash
# Issue 62 on an H200 host with two GPUs: PHAST rows on one and two GPUs, first and cached runs, and the
# GPU matrix against the CPU buckets, before (`base`, the binary of 801a425, the commit before the
# readback ring) and after (`new`), side by side in one run. One line per command in $OUT/runs.jsonl:
# a label, then the command's --json. Binaries and inputs in .gpu/b62 (bins.tar.xz with `base` and
# `new`, NY.gr.xz, o/d files of 10,000 seeded vertex ids).
B=.gpu/b62; tar xJf $B/bins.tar.xz -C /tmp; NY=$B/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
r() { local l=$1; shift; echo "$l $("$@" --json 2>/tmp/e | tail -n1)" | tee -a $OUT/runs.jsonl | cut -c1-100; grep -iE "error|panic" /tmp/e | head -3; }
/tmp/new trees --graph $NY --sources 64 --backend gpu --method phast --json > /dev/null   # the order cache
for rep in 1 2; do
  for bin in base new; do
    r "$bin trees60000 1gpu r$rep" /tmp/$bin trees --graph $NY --sources 60000 --backend gpu --method phast
    r "$bin trees60000 2gpu r$rep" /tmp/$bin trees --graph $NY --sources 60000 --gpus all --method phast
    r "$bin trees16384 cached r$rep" /tmp/$bin trees --graph $NY --sources 16384 --backend gpu --method phast
    URBANFLOW_CACHE_DIR=/tmp/fresh-$bin-$rep r "$bin trees16384 first r$rep" /tmp/$bin trees --graph $NY --sources 16384 --backend gpu --method phast
    r "$bin matrix10000 gpu r$rep" /tmp/$bin route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend gpu
  done
  r "new matrix10000 cpu r$rep" /tmp/new route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend cpu
  r "base matrix10000 cpu r$rep" /tmp/base route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend cpu
done
for bin in base new; do
  r "$bin trees240000 1gpu" /tmp/$bin trees --graph $NY --sources 240000 --backend gpu --method phast
  r "$bin trees240000 2gpu" /tmp/$bin trees --graph $NY --sources 240000 --gpus all --method phast
done
/tmp/new route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend cpu --out /tmp/cpu.csv > /dev/null
/tmp/new route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend gpu --out /tmp/gpu.csv > /dev/null
cmp /tmp/cpu.csv /tmp/gpu.csv && echo "matrix CSV IDENTICAL" | tee -a $OUT/runs.jsonl
true
