#!/bin/bash
# Side-by-side run for docs/benchmarks.md: AequilibraE 1.7.2 BFW against our BFW and Algorithm B, same
# networks, same thread count, to relative gap 1e-4. Needs `pip install aequilibrae==1.7.2`.
#   bash benches/tap_vs_aequilibrae.sh [threads] > results.jsonl
set -e
T=${1:-2}
DATA=${URBANFLOW_DATA:-../shared/data}
NETS=SiouxFalls,Anaheim,Barcelona,Winnipeg,Chicago-Sketch,Eastern-Massachusetts,Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center,Berlin-Center
python3 benches/aequilibrae_tap.py --data "$DATA" --cores "$T" --gap 1e-4 --networks "$NETS" 2>/dev/null
python3 benches/aequilibrae_tap.py --data "$DATA" --cores "$T" --gap 1e-4 --networks Chicago-Sketch --demand-scale 2 2>/dev/null
cargo bench --bench tap -- --threads "$T" --algorithms bfw,b --networks "$NETS" --gap 1e-4 --max-seconds 300 2>/dev/null
cargo bench --bench tap -- --threads "$T" --algorithms bfw,b --networks Chicago-Sketch --demand-scale 2 --gap 1e-4 --max-seconds 300 2>/dev/null
# Two classes (issue 22): cars and trucks, 10 % of the trips as trucks at PCE 2.5, Chicago-Sketch with its
# toll and distance factors, BFW to 1e-4 on both sides.
python3 benches/aequilibrae_tap.py --data "$DATA" --cores "$T" --gap 1e-4 --networks Chicago-Sketch --truck-share 0.1 --truck-pce 2.5 2>/dev/null
printf 'cars 1.0 0.9 0 0 -\ntrucks 2.5 0.1 0 0 -\n' > /tmp/urbanflow-cars-trucks.txt
cargo run --release -p urbanflow-cli -- assign --net "$DATA/tntp/Chicago-Sketch/ChicagoSketch_net.tntp" \
    --trips "$DATA/tntp/Chicago-Sketch/ChicagoSketch_trips.tntp.xz" --toll-factor 0.02 --distance-factor 0.04 \
    --classes /tmp/urbanflow-cars-trucks.txt --gap 1e-4 --threads "$T" --json 2>/dev/null
