#!/bin/bash
# Accessibility on one H200 host (issue 59). Results under $OUT.
set -u
cd .gpu/access
tar xJf bin.tar.xz
xz -dc ny_points.csv.xz > ny_points.csv
export URBANFLOW_CACHE_DIR=/tmp/ufcache
U=./urbanflow
NY=NY.gr.xz
C=6600,22400,53200
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
run() { local name=$1; shift; local t0=$(date +%s%N); timeout ${TO:-300} "$@" --json > $OUT/$name.json 2> $OUT/$name.err; echo "$name rc=$? wall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))"; head -c 1500 $OUT/$name.json; echo; tail -2 $OUT/$name.err; }
if [ "${FLA:-0}" != 1 ]; then
# Warm the graph and hierarchy caches once (not timed as the user's first run).
TO=60 run warm $U access --graph $NY --points ny_points.csv --cutoffs $C --sources 512 --engine sweep
TO=120 run ny_gpu $U access --graph $NY --points ny_points.csv --cutoffs $C --engine gpu --backend gpu --out /tmp/ny_gpu.csv
TO=120 run ny_auto $U access --graph $NY --points ny_points.csv --cutoffs $C --out /tmp/ny_auto.csv
cmp /tmp/ny_gpu.csv /tmp/ny_auto.csv && echo "gpu and auto rows identical"
TO=120 run ny_sweep_cpu $U access --graph $NY --points ny_points.csv --cutoffs $C --engine sweep --backend cpu --out /tmp/ny_sweep.csv
cmp /tmp/ny_gpu.csv /tmp/ny_sweep.csv && echo "gpu and cpu sweep rows identical"
TO=60 run ny_search_20k $U access --graph $NY --points ny_points.csv --cutoffs $C --engine search --backend cpu --sources 20000
TO=60 run ny_closeness_gpu $U access --graph $NY --closeness --engine gpu --backend gpu --out /tmp/ny_close.csv
TO=100 run ny_betweenness_1pct $U access --graph $NY --betweenness --cutoff 6600
exit 0
fi
xzcat FLA.gr.xz | awk '$1=="p"{n=$3} END{print "vertex,weight"; for(i=1;i<=n;i++) print i","(i*7919)%100}' > fla_points.csv
TO=280 run fla_gpu $U access --graph FLA.gr.xz --points fla_points.csv --cutoffs 10000,40000,100000 --engine gpu --backend gpu
ls -la $OUT
