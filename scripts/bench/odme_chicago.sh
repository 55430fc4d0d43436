#!/bin/bash
# ODME on Chicago-Sketch's 374 counts, side by side in one run on this machine:
#  1. Algorithm B's assignment alone to 1e-4 (what one equilibrium costs);
#  2. `odme` from the trips file perturbed ×exp(N(0, 0.5)), 10 outer iterations (the issue's target);
#  3. `odme` from the trips file itself without toll and distance terms, 20 outer iterations, beside
#  4. Path4GMNS 0.10.0 (PyPI; its data/Chicago_Sketch: the same counts, its own GMNS network and demand):
#     find_ue(20, 20) then conduct_odme(20), as its tests run it.
# Usage: scripts/bench/odme_chicago.sh PATH4GMNS_DATA_DIR   (a folder with its node.csv, link.csv,
# demand.csv, settings.yml and measurement.csv; a venv with path4gmns at $P4G_VENV, default /tmp/p4gvenv)
set -eu
P4G_DATA=${1:?the Path4GMNS Chicago_Sketch data folder}
DATA=${URBANFLOW_DATA:-../shared/data}
C=$DATA/tntp/Chicago-Sketch
COUNTS=$DATA/counts/chicago-sketch/measurement.csv
cargo build -q --release -p urbanflow-cli
U=target/release/urbanflow
t() { /usr/bin/time -f "%e s wall, %M KB peak" "$@"; }
echo "== assign --algorithm b --gap 1e-4 (toll 0.02, distance 0.04)"
t $U assign --net $C/ChicagoSketch_net.tntp --toll-factor 0.02 --distance-factor 0.04 --algorithm b --gap 1e-4 --backend cpu | tail -1
echo "== odme --perturb 0.5 --outer 10 (toll 0.02, distance 0.04)"
t $U odme --net $C/ChicagoSketch_net.tntp --counts $COUNTS --toll-factor 0.02 --distance-factor 0.04 --perturb 0.5 --outer 10 | sed -n '3p;$p'
echo "== odme --outer 20 (no toll or distance terms, from the trips file)"
t $U odme --net $C/ChicagoSketch_net.tntp --counts $COUNTS --outer 20 | sed -n '3p;$p'
echo "== Path4GMNS 0.10.0: find_ue(20, 20) + conduct_odme(20)"
# shellcheck disable=SC1091
. "${P4G_VENV:-/tmp/p4gvenv}/bin/activate"
(cd "$P4G_DATA" && t python - <<'PY'
import csv, math, time
from path4gmns.colgen import find_ue
from path4gmns.odme import conduct_odme
from path4gmns.io import read_demand, read_network, read_measurements, output_link_performance
import contextlib, io
t0 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    network = read_network(input_dir='.')
    read_demand(network, input_dir='.')
    t1 = time.perf_counter()
    find_ue(network, 20, 20)
    t2 = time.perf_counter()
    read_measurements(network, input_dir='.')
    conduct_odme(network, 20)
    t3 = time.perf_counter()
    output_link_performance(network, mode='odme', output_dir='.')
rows = [r for r in csv.DictReader(open('link_performance.csv')) if float(r['obs_count'] or 0) > 0]
geh = [math.sqrt(2 * (float(r['volume']) - float(r['obs_count'])) ** 2 / (float(r['volume']) + float(r['obs_count']))) for r in rows]
rmse = math.sqrt(sum((float(r['volume']) - float(r['obs_count'])) ** 2 for r in rows) / len(rows))
print(f"read {t1-t0:.2f} s, UE {t2-t1:.2f} s, ODME {t3-t2:.2f} s; {len(rows)} counts, "
      f"GEH < 5 on {100 * sum(g < 5 for g in geh) / len(rows):.1f} %, RMSE {rmse:.1f}")
PY
)
