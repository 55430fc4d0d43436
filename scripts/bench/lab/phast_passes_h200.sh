#!/bin/bash
# Issue 62 on an H200 host with two GPUs, the runs beside scripts/bench/lab/readback_h200.sh: GPU PHAST's
# pass taken apart (benches/phast_passes.rs, built here with `cargo bench -p urbanflow --bench
# phast_passes --no-run`), two wgpu devices on one GPU against one device and against two GPUs, and the
# matrix at 1,000 x 1,000 and 10,000 x 10,000 on both engines. Binaries in .gpu/b62/bins.tar.xz (`new`
# = the urbanflow command, `phast_passes`); one JSON line per command in $OUT/passes.jsonl and
# $OUT/runs.jsonl, each prefixed by a label.
B=.gpu/b62; tar xJf $B/bins.tar.xz -C /tmp; NY=$B/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
r() { local l=$1; shift; echo "$l $("$@" --json 2>/tmp/e | tail -n1)" | tee -a $OUT/runs.jsonl | cut -c1-100; grep -iE "error|panic" /tmp/e | head -3; }
/tmp/new trees --graph $NY --sources 64 --backend gpu --method phast --json > /dev/null   # the order cache
for s in 61440 20480; do /tmp/phast_passes --graph $NY --sources $s | tee -a $OUT/passes.jsonl; done
for rep in 1 2; do
  r "gpu0 r$rep" /tmp/new trees --graph $NY --sources 60000 --backend gpu --method phast
  r "gpus0,0 r$rep" /tmp/new trees --graph $NY --sources 60000 --gpus 0,0 --method phast
  r "gpus0,1 r$rep" /tmp/new trees --graph $NY --sources 60000 --gpus 0,1 --method phast
  r "gpus0,0,1,1 r$rep" /tmp/new trees --graph $NY --sources 60000 --gpus 0,0,1,1 --method phast
  for k in 1000 10000; do
    r "matrix$k gpu r$rep" /tmp/new route --graph $NY --matrix $B/o$k.txt $B/d$k.txt --backend gpu
    r "matrix$k cpu r$rep" /tmp/new route --graph $NY --matrix $B/o$k.txt $B/d$k.txt --backend cpu
  done
done
