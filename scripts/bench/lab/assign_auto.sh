#!/usr/bin/env bash
# Run on the device machine from the repository root (docs/benchmarks.md): expects .gpu/ holding the
# stripped example binaries as bin.tar.xz (bin/new: before), head.tar.xz (bin/head) or auto.tar.xz
# (bin/auto), and the TNTP files under .gpu/data (Philadelphia) and .gpu/data/tntp; writes to $OUT.
# assign with no backend flag (Auto) on one H100 host: what it chose, why, and the wall time.
set -u
cd .gpu && tar xJf auto.tar.xz
export URBANFLOW_TUNE=off URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=data/tntp
while read name net trips; do
  for flags in "" "--backend cpu" "--backend gpu"; do
    s=$(date +%s%N)
    out=$(timeout 150 bin/auto/assign --net $net --trips $trips $flags --gap 1e-4 --json 2>/dev/null | tail -1)
    rc=$?; e=$(date +%s%N)
    echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print('$name', '[${flags:-default}]', 'rc=$rc', 'wall_s=%.3f' % ($(( (e - s) / 1000000 ))/1000), 'iters', d['iterations'], 'solve_s %.3f' % d['solve_s'], '|', d['backend'], '|', d.get('backend_why'))" 2>&1 | tee -a $OUT/auto.txt
  done
done <<'NETS'
SiouxFalls data/tntp/SiouxFalls_net.tntp.xz data/tntp/SiouxFalls_trips.tntp.xz
Chicago-Sketch data/tntp/ChicagoSketch_net.tntp.xz data/tntp/ChicagoSketch_trips.tntp.xz
Berlin-Center data/tntp/berlin-center_net.tntp.xz data/tntp/berlin-center_trips.tntp.xz
Philadelphia data/Philadelphia_net.tntp.xz data/Philadelphia_trips.tntp.xz
NETS
