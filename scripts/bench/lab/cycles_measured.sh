#!/bin/bash
# Chordless cycles, count-only, Auto deciding from this machine's measurements (issue 56): per graph and
# round, a fresh cache folder (the adapter never measured), then Auto twice (the first run races and
# records, the second reads the record), rayon on all cores and the GPU, whole processes timed from
# outside; then one cache across a sequence of graphs, as a user would run them. From the folder holding
# the `cycles` binary (B=path to override):
#   OUT=$OUT bash cycles_measured.sh → OUT/cycles.txt, one `label backend graph wall exit=code {json}` line per run
OUT=${OUT:-.}
B=${B:-./cycles}
TIMEFORMAT=%R
run() { # label backend graph
  { time timeout 120 "$B" --generate "$3" --count-only --backend "$2" --json > /tmp/c.json 2>>"$OUT/err.txt"; echo $? > /tmp/c.rc; } 2> /tmp/c.wall
  echo "$1 $2 $3 $(tail -1 /tmp/c.wall) exit=$(cat /tmp/c.rc) $(cat /tmp/c.json)" >> "$OUT/cycles.txt"
}
for g in ${GRAPHS:-grid:8x10 grid:7x10 grid:6x10 hypercube:6}; do
  for round in 1 2; do
    URBANFLOW_CACHE_DIR=$(mktemp -d)
    export URBANFLOW_CACHE_DIR
    run "r$round-first" auto "$g"
    run "r$round-second" auto "$g"
    run "r$round" cpu "$g"
    run "r$round" gpu "$g"
  done
done
URBANFLOW_CACHE_DIR=$(mktemp -d)
export URBANFLOW_CACHE_DIR
for g in grid:7x10 grid:6x10 hypercube:6 grid:8x10 grid:7x10 grid:8x10; do
  run sequence auto "$g"
done
grep -h "chordless" "$URBANFLOW_CACHE_DIR"/tuning-v1.tsv >> "$OUT/cycles.txt" 2>/dev/null
