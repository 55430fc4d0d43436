#!/usr/bin/env bash
# Run on the device machine from the repository root (docs/benchmarks.md): expects .gpu/ holding the
# stripped example binaries as bin.tar.xz (bin/new: before), head.tar.xz (bin/head) or auto.tar.xz
# (bin/auto), and the TNTP files under .gpu/data (Philadelphia) and .gpu/data/tntp; writes to $OUT.
# Issue 39 check (tree loading moved to algos-tap: same flows) and issue 34 data (assign: CPU vs GPU
# wall time per network at the default stop rule), one machine, one run.
set -u
cd .gpu && tar xJf bin.tar.xz && tar xJf head.tar.xz
export URBANFLOW_TUNE=off URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
P="--net data/Philadelphia_net.tntp.xz --trips data/Philadelphia_trips.tntp.xz"
for v in new head; do
  for b in gpu cpu; do
    s=$(date +%s%N)
    timeout 200 bin/$v/assign $P --backend $b --trees phast --max-iters 20 --gap 1e-12 --flows $OUT/phil_${b}_$v.csv --json > $OUT/phil_${b}_$v.json 2> $OUT/phil_${b}_$v.err
    rc=$?; e=$(date +%s%N)
    echo "phil trees=phast backend=$b bin=$v rc=$rc wall_ms=$(( (e - s) / 1000000 ))"
  done
done
for b in gpu cpu; do cmp $OUT/phil_${b}_new.csv $OUT/phil_${b}_head.csv && echo "phil $b phast: flows identical, d6ba024-era binary vs bb070cd"; done
cmp $OUT/phil_gpu_head.csv $OUT/phil_cpu_head.csv && echo "phil: cpu phast flows = gpu phast flows"
T=data/tntp
while read name net trips; do
  for b in cpu gpu; do
    s=$(date +%s%N)
    out=$(timeout 150 bin/head/assign --net $T/$net --trips $T/$trips --backend $b --gap 1e-4 --json 2> $OUT/err_${name}_$b.txt | tail -1)
    rc=$?; e=$(date +%s%N)
    echo "{\"net\":\"$name\",\"backend\":\"$b\",\"rc\":$rc,\"wall_ms\":$(( (e - s) / 1000000 )),\"out\":${out:-null}}" | tee -a $OUT/default.jsonl | cut -c1-400
  done
done <<'NETS'
SiouxFalls SiouxFalls_net.tntp.xz SiouxFalls_trips.tntp.xz
Friedrichshain friedrichshain-center_net.tntp.xz friedrichshain-center_trips.tntp.xz
Tiergarten berlin-tiergarten_net.tntp.xz berlin-tiergarten_trips.tntp.xz
Anaheim Anaheim_net.tntp.xz Anaheim_trips.tntp.xz
EMA EMA_net.tntp.xz EMA_trips.tntp.xz
Barcelona Barcelona_net.tntp.xz Barcelona_trips.tntp.xz
Winnipeg Winnipeg_net.tntp.xz Winnipeg_trips.tntp.xz
Chicago-Sketch ChicagoSketch_net.tntp.xz ChicagoSketch_trips.tntp.xz
Terrassa Terrassa-Asym_net.tntp.xz Terrassa-Asym_trips.tntp.xz
Hessen Hessen-Asym_net.tntp.xz Hessen-Asym_trips.tntp.xz
Munich munich_net.tntp.xz munich_trips.tntp.xz
Berlin-Center berlin-center_net.tntp.xz berlin-center_trips.tntp.xz
Austin Austin_net.tntp.xz Austin_trips_am.tntp.xz
NETS
