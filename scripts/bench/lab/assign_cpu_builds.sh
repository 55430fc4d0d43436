#!/usr/bin/env bash
# CPU assignment (BFW to 1e-4, default flags but --backend cpu) of two builds, alternated, two rounds:
# wall and the JSON's solve_s, iterations and final gap. From the folder holding assign_<build>:
#   BUILDS="before after" T=data/tntp bash assign_cpu_builds.sh
set -u
T=${T:-data/tntp}
BUILDS=${BUILDS:-"before after"}
for r in 1 2; do for net in Chicago-Sketch Austin Philadelphia; do for b in $BUILDS; do
  f=$(ls $T/$net/*_net.tntp* | head -1)
  trips=""; [ $net = Austin ] && trips="--trips $T/Austin/Austin_trips_am.tntp.xz"
  TIMEFORMAT=%R
  { time ./assign_$b --net "$f" $trips --gap 1e-4 --backend cpu --json > /tmp/assign.json 2> /dev/null; } 2> /tmp/assign.wall
  python3 -c "
import json; d=json.load(open('/tmp/assign.json')); h=d['history']
print('$r $net $b wall', open('/tmp/assign.wall').read().strip(), 'solve_s', round(d['solve_s'], 3), 'it', len(h), 'gap', h[-1]['relative_gap'], d.get('backend'))"
done; done; done
