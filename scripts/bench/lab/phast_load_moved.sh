#!/usr/bin/env bash
# Run on the device machine from the repository root (docs/benchmarks.md): expects .gpu/ holding the
# stripped example binaries as bin.tar.xz (bin/new: before), head.tar.xz (bin/head) or auto.tar.xz
# (bin/auto), and the TNTP files under .gpu/data (Philadelphia) and .gpu/data/tntp; writes to $OUT.
set -u
cd .gpu && tar xJf bin.tar.xz && tar xJf head.tar.xz
export URBANFLOW_TUNE=off URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P="--net data/Philadelphia_net.tntp.xz --trips data/Philadelphia_trips.tntp.xz"
for v in new head; do
  for b in gpu cpu; do
    s=$(date +%s%N)
    timeout 200 bin/$v/assign $P --backend $b --trees phast --max-iters 20 --gap 1e-12 --flows-out $OUT/phil_${b}_$v.csv --json > $OUT/phil_${b}_$v.json 2> $OUT/phil_${b}_$v.err
    rc=$?; e=$(date +%s%N)
    echo "phil trees=phast backend=$b bin=$v rc=$rc wall_ms=$(( (e - s) / 1000000 ))"; tail -2 $OUT/phil_${b}_$v.err
  done
done
for b in gpu cpu; do cmp $OUT/phil_${b}_new.csv $OUT/phil_${b}_head.csv && echo "phil $b phast: flows identical, previous-session binary vs bb070cd"; done
cmp $OUT/phil_gpu_head.csv $OUT/phil_cpu_head.csv && echo "phil: cpu phast flows = gpu phast flows"
md5sum $OUT/phil_*.csv
T=data/tntp
for b in cpu gpu; do
  s=$(date +%s%N)
  out=$(timeout 150 bin/head/assign --net $T/munich_net.tntp.xz --trips $T/munich_trips.tntp.xz --lenient --backend $b --gap 1e-4 --json 2> $OUT/err_munich_$b.txt | tail -1)
  rc=$?; e=$(date +%s%N)
  echo "{\"net\":\"Munich\",\"backend\":\"$b\",\"rc\":$rc,\"wall_ms\":$(( (e - s) / 1000000 )),\"out\":${out:-null}}" | tee -a $OUT/default.jsonl | cut -c1-300
done
rm -f $OUT/phil_*.csv
