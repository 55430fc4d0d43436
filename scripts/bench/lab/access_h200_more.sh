#!/bin/bash
# Accessibility on one H200 host, second set (issue 59): first runs, decays, small cutoffs, OSM.
set -u
cd .gpu/access
tar xJf bin.tar.xz
xz -dc ny_points.csv.xz > ny_points.csv
U=./urbanflow
NY=NY.gr.xz
C=6600,22400,53200
nvidia-smi --query-gpu=name --format=csv,noheader
run() { local name=$1; shift; local t0=$(date +%s%N); timeout ${TO:-300} "$@" --json > $OUT/$name.json 2> $OUT/$name.err; echo "$name rc=$? wall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))"; head -c 1200 $OUT/$name.json; echo; tail -1 $OUT/$name.err; }
export URBANFLOW_CACHE_DIR=/tmp/fresh-cache
TO=120 run ny_first_auto $U access --graph $NY --points ny_points.csv --cutoffs $C
TO=120 run ny_cached_auto $U access --graph $NY --points ny_points.csv --cutoffs $C
TO=120 run ny_exp_gpu $U access --graph $NY --points ny_points.csv --cutoffs $C --decay exp:0.0001 --engine gpu --backend gpu
TO=120 run ny_small_auto $U access --graph $NY --points ny_points.csv --cutoffs 500,1000,2000
TO=120 run ny_small_gpu $U access --graph $NY --points ny_points.csv --cutoffs 500,1000,2000 --engine gpu --backend gpu
TO=120 run ny_btw_sample $U access --graph $NY --betweenness --sample 5000
TO=120 run porto_auto $U access --osm porto_portugal.osm.pbf --points porto_jobs.csv --cutoffs 5,10,15
TO=120 run porto_closeness_auto $U access --osm porto_portugal.osm.pbf --closeness --cutoffs 10,20
