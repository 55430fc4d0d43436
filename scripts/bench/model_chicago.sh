#!/usr/bin/env bash
# The travel-model loop on Chicago-Sketch beside its baseline, one equilibrium of the trips file, in one
# run (issue 60): `urbanflow model --calibrate expo` (calibration, then skims -> gravity -> assignment
# until the matrix changes by less than 0.1 %) and `urbanflow assign --algorithm b --gap 1e-4` on the
# same network and cost factors, whole processes timed from outside, R rounds alternated; then the loop
# with gamma calibrated by least squares on the trip-length distribution (`--fit least-squares`).
#   bash scripts/bench/model_chicago.sh [rounds]
set -eu
R=${1:-3}
U=${URBANFLOW:-target/release/urbanflow}
C=${URBANFLOW_DATA:-../shared/data}/tntp/Chicago-Sketch
NET=$C/ChicagoSketch_net.tntp
t() { /usr/bin/time -f "%e s wall, %M KB peak" "$@"; }
for r in $(seq "$R"); do
  echo "== round $r: assign (one equilibrium, Algorithm B, 1e-4)"
  t "$U" assign --net "$NET" --toll-factor 0.02 --distance-factor 0.04 --algorithm b --gap 1e-4 --backend cpu --json \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print('solve_s', d['solve_s'], 'iterations', d['iterations'])"
  echo "== round $r: model --calibrate expo"
  t "$U" model --net "$NET" --toll-factor 0.02 --distance-factor 0.04 --calibrate expo --json \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print({k: d[k] for k in d if k in ('loops', 'converged', 'seconds', 'coincidence_ratio', 'deterrence')})"
  echo "== round $r: model --calibrate gamma --fit least-squares"
  t "$U" model --net "$NET" --toll-factor 0.02 --distance-factor 0.04 --calibrate gamma --fit least-squares --json \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print({k: d[k] for k in d if k in ('loops', 'converged', 'seconds', 'setup_s', 'coincidence_ratio', 'sum_of_squares', 'deterrence')})"
done
