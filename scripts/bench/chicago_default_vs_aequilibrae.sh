#!/bin/bash
# Chicago-Sketch BFW to 1e-4 on 2 threads: AequilibraE 1.7.2 against assign with default flags and with
# --trees dijkstra, one class and two (cars 90 %, trucks 10 % at PCE 2.5). PY=venv python with aequilibrae.
cd "$(dirname "$0")/../.." && printf "cars 1.0 0.9 0 0 -\ntrucks 2.5 0.1 0 0 -\n" > /tmp/ct.txt
D=../shared/data/tntp/Chicago-Sketch
A="--net $D/ChicagoSketch_net.tntp --trips $D/ChicagoSketch_trips.tntp.xz --toll-factor 0.02 --distance-factor 0.04 --gap 1e-4 --threads 2 --json"
for rep in 1 2; do
${PY:-python3} benches/aequilibrae_tap.py --data ../shared/data --cores 2 --gap 1e-4 --networks Chicago-Sketch 2>/dev/null
for t in auto dijkstra; do echo "ours one $t $(target/release/urbanflow assign $A --trees $t | python3 -c "import json,sys;d=json.load(sys.stdin);print(d['solve_s'],d['iterations'],d['relative_gap'],d['trees'])")"; done
${PY:-python3} benches/aequilibrae_tap.py --data ../shared/data --cores 2 --gap 1e-4 --networks Chicago-Sketch --truck-share 0.1 --truck-pce 2.5 2>/dev/null
for t in auto dijkstra; do echo "ours two $t $(target/release/urbanflow assign $A --classes /tmp/ct.txt --trees $t | python3 -c "import json,sys;d=json.load(sys.stdin);print(d['solve_s'],d['iterations'],d['relative_gap'],d['trees'])")"; done
done
