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
