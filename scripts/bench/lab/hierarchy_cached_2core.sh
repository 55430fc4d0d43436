#!/bin/bash
# issue 34, this 2-core machine: the hierarchy alone (cch_order, before/after) and many_to_all's CPU
# default at 256 NY sources (PHAST on the CCH), before/after, each with a fresh cache folder for its
# first run, then cached. OLD_* = binaries built from the commit before (git worktree), NEW_* = this tree's.
#   OLD_ORDER=... NEW_ORDER=... OLD_M2A=... NEW_M2A=... bash scripts/bench/lab/hierarchy_cached_2core.sh
G=${URBANFLOW_DATA:-../shared/data}/road/weighted/NY.gr.xz
for rep in 1 2; do
  for which in OLD NEW; do
    bin=${which}_ORDER; d=$(mktemp -d)
    for run in first cached cached; do echo "cch_order $which $run r$rep: $(${!bin} $G $d | tr '\n' ' ')"; done
    rm -rf $d
  done
  for which in OLD NEW; do
    bin=${which}_M2A; d=$(mktemp -d)
    for run in first cached; do
      s=$(date +%s.%N); out=$(URBANFLOW_CACHE_DIR=$d ${!bin} --graph $G --sources 256 --json | tail -1); e=$(date +%s.%N)
      echo "many_to_all 256 $which $run r$rep: wall $(echo "$e - $s" | bc) $(echo $out | python3 -c 'import json,sys; d=json.load(sys.stdin); print("load", d["load_s"], "pre", d["preprocess_s"], "solve", d["solve_s"], d["method"], "checksum", d["checksum"])')"
    done
    rm -rf $d
  done
done
