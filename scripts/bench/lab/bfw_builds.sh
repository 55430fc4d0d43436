#!/bin/bash
# BFW to 1e-4 on Philadelphia end to end (`assign --gap 1e-4 --json`) for two builds alternated, GPU and
# 16-core CPU, two rounds; prints iterations, gap, solve_s, setup_s and, where the build reports it, the
# all-or-nothing seconds in total and per iteration with the rest of an iteration. From the repository
# root with .gpu/bfw.tar.xz (stripped assign_before, assign_after) and .gpu/data/tntp:
#   bash scripts/bench/lab/bfw_builds.sh
mkdir -p .gpu/b && tar xJf .gpu/bfw.tar.xz -C .gpu/b
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
nvidia-smi -L
for rep in 1 2; do for backend in gpu cpu; do for v in before after; do
  .gpu/b/assign_$v --net $P --gap 1e-4 --backend $backend --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); h = d['history']; n = len(h)
line = f\"assign_$v r$rep $backend it {n} gap {d['relative_gap']:.3e} solve_s {d['solve_s']:.3f} setup_s {d.get('setup_s', 0):.3f}\"
if 'all_or_nothing_s' in d:
    rest = sum(h[i]['seconds'] - h[i - 1]['seconds'] - h[i]['all_or_nothing_s'] for i in range(1, n))
    line += f\" aon_s {d['all_or_nothing_s']:.3f} aon_ms/it {1e3 * d['all_or_nothing_s'] / n:.2f} rest_ms/it {1e3 * rest / (n - 1):.2f} before_first_s {h[0]['seconds'] - h[0]['all_or_nothing_s']:.3f}\"
print(line, '|', d['backend'])"
done; done; done
