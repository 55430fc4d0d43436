#!/bin/bash
# ODME on the H200 host: Chicago-Sketch (374 counts; two classes, 468 counts) and Philadelphia (2,000
# synthetic counts), the passes over the routes on the 16-core CPU and on the GPU side by side, beside
# Algorithm B's assignment alone to the same gap; same binary, one run. Writes JSON reports under $OUT.
# Run from a checkout with the stripped `urbanflow` binary in .gpu/bin.tar.xz and the data under
# .gpu/data: Chicago-Sketch (net, trips, measurement.csv, and classes.txt and counts.csv of
# odme_classes_chicago.sh with KEEP=…, the latter renamed class_counts.csv) and Philadelphia (net, trips, counts.csv from
# `python scripts/odme_synthetic_counts.py --net …/Philadelphia_net.tntp.xz --counts 2000 --seed 1`).
# BACKENDS (default "cpu gpu") picks where the passes run; PHILADELPHIA=0 leaves it out.
set -u
mkdir -p /tmp/b && tar xJf .gpu/bin.tar.xz -C /tmp/b
D=.gpu/data; C=$D/Chicago-Sketch; P=$D/Philadelphia; UF=/tmp/b/urbanflow
nproc; lscpu | grep "Model name"
t() { if [ -x /usr/bin/time ]; then /usr/bin/time -f "%e s %M KB" "$@"; else TIMEFORMAT="%R s"; time "$@"; fi; }
CHI=(--net $C/ChicagoSketch_net.tntp --trips $C/ChicagoSketch_trips.tntp.xz --toll-factor 0.02 --distance-factor 0.04)
echo "== Chicago assign B 1e-4"; t $UF assign "${CHI[@]}" --algorithm b --gap 1e-4 --backend cpu 2>&1 | tail -2
for b in ${BACKENDS:-cpu gpu}; do
  echo "== Chicago odme, passes on $b"
  t $UF odme --json "${CHI[@]}" --counts $C/measurement.csv --perturb 0.5 --outer 10 --backend $b > $OUT/chicago_$b.json 2> $OUT/chicago_$b.err
  cat $OUT/chicago_$b.err; head -c 400 $OUT/chicago_$b.json; echo
  [ -f $C/classes.txt ] || continue
  echo "== Chicago odme two classes, passes on $b"
  t $UF odme --json "${CHI[@]}" --classes $C/classes.txt --all-counts pce --counts $C/class_counts.csv --perturb 0.5 --outer 10 --backend $b > $OUT/chicago_classes_$b.json 2> $OUT/chicago_classes_$b.err
  cat $OUT/chicago_classes_$b.err; head -c 400 $OUT/chicago_classes_$b.json; echo
done
[ "${PHILADELPHIA:-1}" = 0 ] && exit 0
PHI=(--net $P/Philadelphia_net.tntp.xz --trips $P/Philadelphia_trips.tntp.xz)
if [ ! -f $P/counts.csv ]; then
  # No Python on the host: the trips file's equilibrium to 1e-6, then 2,000 of the links that carry
  # flow drawn by awk's seeded rand (another sample than odme_synthetic_counts.py's, the same recipe).
  echo "== Philadelphia counts: equilibrium to 1e-6"
  t $UF assign "${PHI[@]}" --algorithm b --gap 1e-6 --backend cpu --flows-out /tmp/phil_flows.csv 2>&1 | tail -1
  awk -F, 'BEGIN { srand(1) } NR > 1 && $4 > 0 { printf "%.17f,%s,%s\n", rand(), $1, $4 }' /tmp/phil_flows.csv \
    | sort -t, -k1,1 | head -2000 | cut -d, -f2- | sort -t, -k1,1n | sed '1i link,count' > $P/counts.csv
  wc -l $P/counts.csv; cp $P/counts.csv $OUT/phil_counts.csv
fi
echo "== Philadelphia assign B 1e-4"; t $UF assign "${PHI[@]}" --algorithm b --gap 1e-4 --backend cpu 2>&1 | tail -2
for b in ${BACKENDS:-cpu gpu}; do
  echo "== Philadelphia odme, passes on $b"
  t $UF odme "${PHI[@]}" --counts $P/counts.csv --perturb 0.5 --outer 10 --json --backend $b > $OUT/phil_$b.json 2> $OUT/phil_$b.err
  cat $OUT/phil_$b.err; head -c 600 $OUT/phil_$b.json; echo
done
