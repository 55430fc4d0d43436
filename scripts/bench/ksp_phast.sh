#!/usr/bin/env bash
# K shortest paths on NY, 1,000 pairs, distances to the targets by one search each (build `before`)
# against PHAST on the reversed hierarchy (build `after`, --distances auto), GPU and 16-core CPU,
# K = 10 and 100, builds alternated, three rounds (docs/benchmarks.md, "Distances to the targets by
# PHAST"). The cache folder is fresh: the first `after` run builds the hierarchy's order and is
# reported apart. Every run writes its paths; each build's files are compared with the other's.
# On the device machine, from the folder holding `ksp_before` and `ksp_after`:
#   G=data/NY.gr.xz OUT=$OUT bash ksp_phast.sh
set -u
G=${G:-data/NY.gr.xz}
OUT=${OUT:-/tmp}
export URBANFLOW_CACHE_DIR=$(mktemp -d)
TIMEFORMAT=%R
run() { # label binary k backend [extra]
  { time ./$2 --graph "$G" --pairs 1000 --k $3 --backend $4 ${5:-} --json --out "$OUT/paths_$2_k$3_$4.tsv" \
      > /tmp/ksp.json 2> /tmp/ksp.err; } 2> /tmp/ksp.wall
  echo "$1 $2 k=$3 $4 wall $(cat /tmp/ksp.wall) $(cat /tmp/ksp.json) $(tail -c 300 /tmp/ksp.err)"
}
run first ksp_after 10 cpu "--distances phast"
for r in 1 2 3; do for k in 10 100; do for b in ksp_before ksp_after; do for be in gpu cpu; do
  run $r $b $k $be
done; done; done; done
for k in 10 100; do for be in gpu cpu; do
  cmp -s "$OUT/paths_ksp_before_k${k}_cpu.tsv" "$OUT/paths_ksp_after_k${k}_$be.tsv" \
    && echo "paths k=$k after $be = before cpu" || echo "PATHS DIFFER k=$k after $be"
done; done
rm -f "$OUT"/paths_*.tsv
