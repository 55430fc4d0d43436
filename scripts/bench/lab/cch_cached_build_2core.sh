#!/bin/bash
# issue 34, this 2-core machine: NY's cached hierarchy (build from the cache file + first customisation),
# two cch_order binaries (scripts/bench/lab/cch_order built on each tree) alternated ROUNDS times, each with
# its own cache folder made by a first run; medians and minima.
#   OLD=/tmp/cch_order_old NEW=/tmp/cch_order_new [ROUNDS=8] bash scripts/bench/lab/cch_cached_build_2core.sh
G=${URBANFLOW_DATA:-../shared/data}/road/weighted/NY.gr.xz
out=$(mktemp)
for b in OLD NEW; do d=/tmp/cchd_$b; rm -rf $d; mkdir -p $d; ${!b} $G $d > /dev/null; done
for r in $(seq ${ROUNDS:-8}); do
  for b in OLD NEW; do echo "$b $(${!b} $G /tmp/cchd_$b | grep -o 'build [0-9.]* s customise [0-9.]* s')" >> $out; done
done
python3 - "$out" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    b, rest = line.split(' ', 1)
    build, cust = map(float, re.findall(r'[0-9.]+', rest))
    runs.setdefault(b, []).append((build, cust))
for b, v in runs.items():
    med = lambda xs: statistics.median(xs)
    print(f"{b}: build median {med([x for x, _ in v]):.4f} min {min(x for x, _ in v):.4f} s, "
          f"customise median {med([y for _, y in v]):.4f} s, build + customise median {med([x + y for x, y in v]):.4f} "
          f"min {min(x + y for x, y in v):.4f} s ({len(v)} runs)")
PY
