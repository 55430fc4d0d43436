#!/bin/bash
# issue 34: cch_order before (cch_order_old) and after (cch_order), alternated, three rounds, a fresh cache
# folder per binary and graph (first, then cached twice). On the device from the repository root with
# .gpu/order.tar.xz (both stripped binaries) and .gpu/data/{NY,FLA}.gr.xz.
mkdir -p .gpu/o && tar xJf .gpu/order.tar.xz -C .gpu/o
for rep in 1 2 3; do for g in NY FLA; do for b in cch_order_old cch_order; do d=$(mktemp -d); for run in first cached cached; do echo "$b $g $run r$rep: $(.gpu/o/$b .gpu/data/$g.gr.xz $d | tr '\n' ' ' | sed 's/(Built.*//; s/(Loaded.*//')"; done; rm -rf $d; done; done; done
