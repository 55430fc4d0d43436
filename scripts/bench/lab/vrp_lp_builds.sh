#!/usr/bin/env bash
# Issue 40: builds of the CVRP master's simplex side by side on one machine (GPU pricing, ng(8)),
# alternated per instance, each run's JSON line with its build's name.
#   bash scripts/bench/lab/vrp_lp_builds.sh BIN_DIR DATA_DIR OUT_FILE instance[:max_seconds]...
# BIN_DIR holds vrp_<build> for each build in BUILDS (default "old eta"); ROUNDS (default 1) repeats.
set -u
bin=$1; data=$2; out=$3; shift 3
for round in $(seq "${ROUNDS:-1}"); do
  for spec in "$@"; do
    i=${spec%%:*}; limit=${spec#*:}; [ "$limit" = "$spec" ] && limit=300
    for b in ${BUILDS:-old eta}; do
      line=$("$bin/vrp_$b" --instance "$data/$i.vrp" --relaxation ng-route --delta 8 --backend gpu \
        --max-seconds "$limit" --json 2>/dev/null)
      echo "{\"build\":\"$b\",\"round\":$round,\"limit\":$limit,\"run\":${line:-null}}" | tee -a "$out"
    done
  done
done
