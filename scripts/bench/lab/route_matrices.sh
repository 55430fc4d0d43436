#!/bin/bash
# Issue 35 on the H100 host: NY matrices, CCH buckets on 16 cores vs the walks' min-plus product on the GPU.
set -x
tar xJf .gpu/route.tar.xz -C /tmp
R=/tmp/b/route
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
D=.gpu/data
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv
$R --graph $D/NY.gr.xz --matrix $D/o1000.txt $D/d1000.txt --backend cpu --json   # builds the order cache
for rep in 1 2; do
for k in 1000 10000; do
  $R --graph $D/NY.gr.xz --matrix $D/o$k.txt $D/d$k.txt --backend cpu --json
  $R --graph $D/NY.gr.xz --matrix $D/o$k.txt $D/d$k.txt --backend gpu --json
done
done
cat $D/o10000.txt $D/o10000.txt > /tmp/o20000.txt; cat $D/d10000.txt $D/d10000.txt > /tmp/d20000.txt
$R --graph $D/NY.gr.xz --matrix /tmp/o20000.txt /tmp/d20000.txt --backend cpu --json
$R --graph $D/NY.gr.xz --matrix /tmp/o20000.txt /tmp/d20000.txt --backend gpu --json
$R --graph $D/NY.gr.xz --matrix $D/o1000.txt $D/d10000.txt --backend cpu --out /tmp/cpu.csv --json
$R --graph $D/NY.gr.xz --matrix $D/o1000.txt $D/d10000.txt --backend gpu --out /tmp/gpu.csv --json
cmp /tmp/cpu.csv /tmp/gpu.csv && echo "CSV IDENTICAL"
md5sum /tmp/cpu.csv /tmp/gpu.csv
