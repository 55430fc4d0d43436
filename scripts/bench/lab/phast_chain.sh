#!/bin/bash
# issue 40: the chain kernel for the top of the DAG (GPU PHAST), on and off in the same binaries, alternated:
# URBANFLOW_PHAST_CHAIN_WIDTH=0 (every level its own dispatch, as before), 8 (the default), 32.
# On the device from the repository root with .gpu/chain.tar.xz (stripped tap bench and many_to_all) and
# .gpu/data (NY.gr.xz, tntp/{Philadelphia,Austin,chicago-regional}).
mkdir -p .gpu/c && tar xJf .gpu/chain.tar.xz -C .gpu/c
export URBANFLOW_DATA=.gpu/data URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi -L
.gpu/c/many_to_all --graph .gpu/data/NY.gr.xz --sources 512 --json > /dev/null
for rep in 1 2; do
  for w in 0 8 32; do
    export URBANFLOW_PHAST_CHAIN_WIDTH=$w
    echo "== width $w round $rep"
    .gpu/c/tap --aon 5 --networks Philadelphia,Austin,chicago-regional 2>&1 | grep -iE "phast|aon|network" | cut -c1-400
    for n in 16384; do
      s=$(date +%s.%N); out=$(.gpu/c/many_to_all --graph .gpu/data/NY.gr.xz --sources $n --json | tail -1); e=$(date +%s.%N)
      echo "many_to_all NY $n width $w: wall $(echo "$e - $s" | bc) $(echo $out | python3 -c 'import json,sys; d=json.load(sys.stdin); print("pre", d["preprocess_s"], "setup", d["setup_s"], "solve", d["solve_s"], d["method"], "checksum", d["checksum"])')"
    done
  done
done
