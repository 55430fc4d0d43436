#!/usr/bin/env bash
# Issue 40: the CVRP master LP, simplex (warm-started) against Clarabel's interior point, side by side on
# one machine: for each X instance, both masters with GPU pricing, ng(8), one after the other.
#   bash scripts/bench/lab/vrp_master.sh BIN_DIR DATA_DIR OUT_FILE [instances...]
# BIN_DIR holds vrp_bound_new (simplex default, --master chooses); DATA_DIR the X instances with their
# .sol files. VRP_MASTERS (default "simplex interior-point") and VRP_FLAGS (extra flags, e.g.
# "--threads 1") vary the runs; VRP_BACKEND the pricing backend (gpu); VRP_MAX_SECONDS the limit (45).
set -u
bin=$1; data=$2; out=$3; shift 3
instances=${*:-$(ls "$data" | grep '\.vrp$' | sed 's/\.vrp$//' | grep -v n401)}
limit=${VRP_MAX_SECONDS:-45}
for i in $instances; do
  for master in ${VRP_MASTERS:-simplex interior-point}; do
    start=$(date +%s.%N)
    line=$("$bin/vrp_bound_new" --instance "$data/$i.vrp" --relaxation ng-route --delta 8 --backend "${VRP_BACKEND:-gpu}" \
      --master $master --max-seconds "$limit" ${VRP_FLAGS:-} --json 2>/dev/null)
    end=$(date +%s.%N)
    echo "{\"backend\":\"${VRP_BACKEND:-gpu}\",\"master\":\"$master\",\"flags\":\"${VRP_FLAGS:-}\",\"start\":$start,\"end\":$end,\"run\":${line:-null}}" >> "$out"
  done
done
