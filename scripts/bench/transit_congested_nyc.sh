#!/usr/bin/env bash
# Congested transit assignment on the city-size case (issue 58's moonshot), in one run beside its
# baseline, the uncongested assignment of the same graph and demand: the NYC subway feed of
# shared/data (AM window 07:00-09:00, walking transfers within 2 km so that every trip has a way
# that no capacity limits), 1,600 zones on a 40 x 40 grid with seeded demand
# (scripts/transit_city_zones.py), lines of 40,000 places a vehicle over the two hours (the
# uncongested loads reach 116 % of that on the busiest segment). Three commands, alternated R times:
#   1. uncongested;  2. congested, beta 0.5 (the default), gap 1e-3;  3. congested, beta 4, 80 iterations.
# Each prints wall time, peak memory, solve time, iterations, last relative gap and the fullest line.
#   bash scripts/bench/transit_congested_nyc.sh [threads] [repeats]
set -eu
T=${1:-2}
R=${2:-1}
U=${URBANFLOW:-target/release/urbanflow}
DATA=${URBANFLOW_DATA:-../shared/data}
W=$(mktemp -d)
python3 scripts/transit_city_zones.py "$DATA/transit/nyc_subway_gtfs.zip" --side 40 --share 0.1 --seed 7 --out "$W/nyc"
base=(transit-assign --gtfs "$DATA/transit/nyc_subway_gtfs.zip" --date 2024-12-16 --window 07:00-09:00
  --transfer-radius 2000 --zones "$W/nyc_zones.csv" --demand "$W/nyc_demand.csv" --threads "$T" --json)
report() {
  python3 - "$W/run.json" "$W/time.txt" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = dict(l.strip().rsplit(": ", 1) for l in open(sys.argv[2]) if ": " in l)
c = j.get("congestion")
extra = "" if c is None else (f", {c['iterations']} iterations, relative gap {c['relative_gap']:.3e}, "
                              f"converged {c['converged']}, fullest line {100 * c['fullest_load']:.1f} %")
print(f"{sys.argv[3]}: wall {t['Elapsed (wall clock) time (h:mm:ss or m:ss)']}, peak "
      f"{int(t['Maximum resident set size (kbytes)']) // 1024} MB, read {j['load_s']:.3f} s, solve {j['solve_s']:.3f} s{extra}")
PY
}
for _ in $(seq "$R"); do
  /usr/bin/time -v -o "$W/time.txt" "$U" "${base[@]}" > "$W/run.json" 2>/dev/null
  report "uncongested"
  /usr/bin/time -v -o "$W/time.txt" "$U" "${base[@]}" --vehicle-capacity 40000 --max-iterations 150 > "$W/run.json" 2>/dev/null || true
  report "congested, beta 0.5"
  /usr/bin/time -v -o "$W/time.txt" "$U" "${base[@]}" --vehicle-capacity 40000 --beta 4 --max-iterations 80 > "$W/run.json" 2>/dev/null || true
  report "congested, beta 4"
done
rm -rf "$W"
