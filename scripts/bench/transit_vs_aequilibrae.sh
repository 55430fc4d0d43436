#!/usr/bin/env bash
# Transit assignment by optimal strategies, side by side with AequilibraE 1.7.2 (issue 58): the seeded
# grid city of scripts/transit_grid_city.py (30 x 30 stops, 120 lines, every stop a zone, half of all
# pairs with demand), the same edges, zones and demand, the same threads; then Coquimbo. Volumes are
# compared (max relative difference). Needs a venv with aequilibrae==1.7.2 (AEQ_PY, default
# /tmp/aeqvenv/bin/python) and the release command (cargo build --release -p urbanflow-cli).
#   bash scripts/bench/transit_vs_aequilibrae.sh [threads] [repeats]
set -eu
T=${1:-2}
R=${2:-3}
PY=${AEQ_PY:-/tmp/aeqvenv/bin/python}
U=${URBANFLOW:-target/release/urbanflow}
DATA=${URBANFLOW_DATA:-../shared/data}
W=$(mktemp -d)
python3 scripts/transit_grid_city.py --side 30 --lines 120 --out "$W/city30"
for case in "city30:$W/city30" "coquimbo:$DATA/transit/coquimbo"; do
  name=${case%%:*}; dir=${case#*:}
  echo "== $name, $T threads"
  "$PY" scripts/fixtures/aequilibrae_transit.py --dir "$dir" --threads "$T" --repeat "$R" --out "$W/$name-aeq.csv"
  best=""
  for _ in $(seq "$R"); do
    start=$(date +%s.%N)
    "$U" transit-assign --edges "$dir/edges.csv" --zones "$dir/zones.csv" --demand "$dir/demand.csv" \
      --allow-unconnected --threads "$T" --json --out "$W/$name-ours.csv" > "$W/run.json" 2>/dev/null
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    echo "urbanflow transit-assign: solve $(python3 -c "import json;print(json.load(open('$W/run.json'))['solve_s'])") s, read $(python3 -c "import json;print(json.load(open('$W/run.json'))['load_s'])") s, wall $wall s"
  done
  python3 - "$W/$name-aeq.csv" "$W/$name-ours.csv" <<'PY'
import csv, sys
a = {r["link_id"]: float(r["volume"]) for r in csv.DictReader(open(sys.argv[1]))}
b = {r["link_id"]: float(r["volume"]) for r in csv.DictReader(open(sys.argv[2]))}
print("volumes: max |ours - AequilibraE| / max(1, |AequilibraE|) =",
      max(abs(a[k] - b[k]) / max(1.0, abs(a[k])) for k in a), f"over {len(a)} edges")
PY
done
rm -rf "$W"
