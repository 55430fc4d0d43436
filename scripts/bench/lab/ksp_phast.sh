#!/usr/bin/env bash
# K shortest paths on NY, 1,000 pairs, as a user runs them: the `ksp` example of several builds
# (`ksp_<build>` in this folder; the first is the baseline), alternated, GPU and 16-core CPU, K = 10
# and 100, three rounds (docs/benchmarks.md, "Distances to the targets by PHAST"). The cache folder is
# fresh: a first run of the last build with --distances phast builds the hierarchy's order and is
# reported apart. Every run writes its paths (--out, which adds to the wall time); each build's
# files are compared with the baseline's.
# On the device machine:
#   BUILDS="before after" G=data/NY.gr.xz OUT=$OUT bash ksp_phast.sh
set -u
G=${G:-data/NY.gr.xz}
OUT=${OUT:-/tmp}
BUILDS=${BUILDS:-"before after"}
ROUNDS=${ROUNDS:-"1 2 3"}
BACKENDS=${BACKENDS:-"gpu cpu"}
export URBANFLOW_CACHE_DIR=$(mktemp -d)
TIMEFORMAT=%R
run() { # label build k backend [extra]
  { time ./ksp_$2 --graph "$G" --pairs 1000 --k $3 --backend $4 ${5:-} --json --out "$OUT/paths_$2_k$3_$4.tsv" \
      > /tmp/ksp.json 2> /tmp/ksp.err; } 2> /tmp/ksp.wall
  echo "$1 $2 k=$3 $4 wall $(cat /tmp/ksp.wall) $(cat /tmp/ksp.json) $(tail -c 300 /tmp/ksp.err)"
}
last=${BUILDS##* }
base=${BUILDS%% *}
run first "$last" 10 cpu "--distances phast"
for r in $ROUNDS; do for k in 10 100; do for b in $BUILDS; do for be in $BACKENDS; do
  run $r $b $k $be
done; done; done; done
for k in 10 100; do for b in $BUILDS; do for be in $BACKENDS; do
  f="$OUT/paths_${b}_k${k}_$be.tsv"
  [ -f "$f" ] || continue
  [ -f "$OUT/paths_${base}_k${k}_cpu.tsv" ] || continue
  cmp -s "$OUT/paths_${base}_k${k}_cpu.tsv" "$f" && echo "paths k=$k $b $be = $base cpu" || echo "PATHS DIFFER k=$k $b $be"
done; done; done
rm -f "$OUT"/paths_*.tsv
