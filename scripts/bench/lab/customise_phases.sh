#!/bin/bash
# The CCH customisation with a separator's triangles through its sides taken by all its ranks at once
# (after) against one rank after the other (before), two builds alternated on all cores: the
# scripts/bench/lab/cch_customise tool (best of 7, and hashes of the weights and unpacked loads, which must
# match), three rounds; the tap bench's --aon 5, two rounds; BFW to 1e-4 on Philadelphia on the GPU, two
# rounds. From the repository root with .gpu/cust.tar.xz (stripped cust_old/new, tap_old/new,
# assign_old/new) and .gpu/data:  bash scripts/bench/lab/customise_phases.sh
mkdir -p .gpu/c && tar xJf .gpu/cust.tar.xz -C .gpu/c
export URBANFLOW_DATA=.gpu/data
nvidia-smi -L
T=.gpu/data/tntp
D=$(mktemp -d)
for rep in 1 2 3; do for v in old new; do
  for g in $T/Philadelphia/Philadelphia_net.tntp.xz $T/Austin/Austin_net.tntp $T/chicago-regional/ChicagoRegional_net.tntp.xz .gpu/data/NY.gr.xz; do
    echo "cust_$v r$rep $(basename $g): $(.gpu/c/cust_$v $g $D 2>&1 | tail -4 | tr '\n' ' ')"
  done
done; done
for rep in 1 2; do for v in old new; do
  .gpu/c/tap_$v --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "tap_$v r$rep"
done; done
P=$T/Philadelphia/Philadelphia_net.tntp.xz
for rep in 1 2; do for v in old new; do
  .gpu/c/assign_$v --net $P --gap 1e-4 --backend gpu --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); h = d['history']; n = len(h)
print(f\"assign_$v r$rep it {n} gap {d['relative_gap']:.3e} solve_s {d['solve_s']:.3f} aon_ms/it {1e3 * d['all_or_nothing_s'] / n:.2f} objective {d['objective']:.9e}\")"
done; done
