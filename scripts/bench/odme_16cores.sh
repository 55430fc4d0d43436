#!/bin/bash
# Run from a checkout with the stripped odme and assign binaries in .gpu/bin.tar.xz and the data under
# .gpu/data (Chicago-Sketch net, trips, measurement.csv; Philadelphia net, trips and counts.csv from
# scripts/odme_synthetic_counts.py); writes JSON reports under $OUT.
# ODME on the H200 host's 16 cores: Chicago-Sketch (374 counts) and Philadelphia (2,000 synthetic
# counts), beside Algorithm B's assignment alone to the same gap, same binaries, one run.
set -u
mkdir -p /tmp/b && tar xJf .gpu/bin.tar.xz -C /tmp/b
D=.gpu/data; C=$D/Chicago-Sketch; P=$D/Philadelphia
nproc; lscpu | grep "Model name"
t() { if [ -x /usr/bin/time ]; then /usr/bin/time -f "%e s %M KB" "$@"; else TIMEFORMAT="%R s"; time "$@"; fi; }
echo "== Chicago assign B 1e-4"; t /tmp/b/assign --net $C/ChicagoSketch_net.tntp --trips $C/ChicagoSketch_trips.tntp.xz --toll-factor 0.02 --distance-factor 0.04 --algorithm b --gap 1e-4 --backend cpu 2>&1 | tail -2
for th in 16 2; do
echo "== Chicago odme threads $th"; t /tmp/b/odme --json --net $C/ChicagoSketch_net.tntp --trips $C/ChicagoSketch_trips.tntp.xz --counts $C/measurement.csv --toll-factor 0.02 --distance-factor 0.04 --perturb 0.5 --outer 10 --threads $th > $OUT/chicago_$th.json 2> $OUT/chicago_$th.err; cat $OUT/chicago_$th.err; head -c 600 $OUT/chicago_$th.json; echo
done
echo "== Philadelphia assign B 1e-4"; t /tmp/b/assign --net $P/Philadelphia_net.tntp.xz --trips $P/Philadelphia_trips.tntp.xz --algorithm b --gap 1e-4 --backend cpu 2>&1 | tail -2
echo "== Philadelphia odme"; t /tmp/b/odme --net $P/Philadelphia_net.tntp.xz --trips $P/Philadelphia_trips.tntp.xz --counts $P/counts.csv --perturb 0.5 --outer 10 --json > $OUT/phil_odme.json 2> $OUT/phil_odme.err; cat $OUT/phil_odme.err; head -c 3000 $OUT/phil_odme.json
