#!/usr/bin/env bash
# K shortest paths on NY, 1,000 pairs, as a user runs them: the `ksp` example of several builds,
# alternated, GPU and 16-core CPU, K = 10 and 100, two rounds (docs/benchmarks.md, "Where a GPU
# batch's time went"). On the device machine, from the folder holding the binaries `ksp_<build>`:
#   BUILDS="orig yen new" G=data/NY.gr.xz bash ksp_builds.sh > examples.txt
set -u
G=${G:-data/NY.gr.xz}
BUILDS=${BUILDS:-"before after"}
for r in 1 2; do for k in 10 100; do for b in $BUILDS; do for be in gpu cpu; do
  TIMEFORMAT=%R
  { time ./ksp_$b --graph "$G" --pairs 1000 --k $k --backend $be --json > /tmp/ksp.json 2> /tmp/ksp.err; } 2> /tmp/ksp.wall
  echo "$r $b k=$k $be wall $(cat /tmp/ksp.wall) $(cat /tmp/ksp.json) $(tail -c 300 /tmp/ksp.err)"
done; done; done; done
