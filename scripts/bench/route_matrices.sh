#!/bin/bash
# Run on the device from the checkout root with .gpu/route.tar.xz (stripped route example) and
# .gpu/data/{NY.gr.xz,o1000.txt,d1000.txt,o10000.txt,d10000.txt} (uniform 1-based ids, python random seeds 10001/10002/100001/100002).
# Issue 35 on the H100 host: NY matrices, CCH buckets on 16 cores vs whole trees on the GPU.
set -x
tar xJf .gpu/route.tar.xz -C /tmp
R=/tmp/b/route
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
D=.gpu/data
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv
for k in 1000 10000; do
  $R --graph $D/NY.gr.xz --matrix $D/o$k.txt $D/d$k.txt --backend cpu --json
  $R --graph $D/NY.gr.xz --matrix $D/o$k.txt $D/d$k.txt --backend cpu --json
  /usr/bin/time -f "wall %e s" $R --graph $D/NY.gr.xz --matrix $D/o$k.txt $D/d$k.txt --backend gpu --json
done
$R --graph $D/NY.gr.xz --matrix $D/o1000.txt $D/d1000.txt --backend cpu --out /tmp/cpu.csv --json
$R --graph $D/NY.gr.xz --matrix $D/o1000.txt $D/d1000.txt --backend gpu --out /tmp/gpu.csv --json
cmp /tmp/cpu.csv /tmp/gpu.csv && echo "CSV IDENTICAL"
md5sum /tmp/cpu.csv /tmp/gpu.csv
