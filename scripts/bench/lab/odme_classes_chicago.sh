#!/usr/bin/env bash
# Matrix estimation for two classes on Chicago-Sketch beside one class and beside the two-class
# equilibrium alone (issue 57), whole processes, 2 threads. Counts: the two-class equilibrium (cars 0.9
# of the trips; trucks 0.1 at PCE 2.5 paying 0.1 per unit of length; Algorithm B to 1e-10) counted in
# PCE units on the 374 links of measurement.csv, and trucks on every fourth of them; the same in vehicles
# (cars + trucks) in counts_veh.csv.
# Needs the Python package (pip install ./crates/urbanflow-py) and a release `urbanflow`.
# Usage: URBANFLOW_DATA=../shared/data [THREADS=2] [KEEP=dir] scripts/bench/lab/odme_classes_chicago.sh [runs]
# (KEEP: copy the class and count files there, e.g. to run the same commands on another host.)
set -euo pipefail
D="${URBANFLOW_DATA:-../shared/data}"
U="${URBANFLOW:-target/release/urbanflow}"
W=$(mktemp -d)
NET="$D/tntp/Chicago-Sketch/ChicagoSketch_net.tntp"
printf '%s\n' "cars    1.0  0.9  0  0    -" "trucks  2.5  0.1  0  0.1  -" > "$W/classes.txt"
python3 - "$D" "$W" <<'PY'
import csv, sys, urbanflow
d, w = sys.argv[1], sys.argv[2]
net = urbanflow.Network.from_tntp(f"{d}/tntp/Chicago-Sketch/ChicagoSketch_net.tntp", toll_factor=0.02, distance_factor=0.04)
trips = urbanflow.Demand.from_tntp(f"{d}/tntp/Chicago-Sketch/ChicagoSketch_trips.tntp.xz", net)
r = urbanflow.assign(net, trips, algorithm="b", gap=1e-10, backend="cpu", classes=f"{w}/classes.txt", as_frame=False)
at = {(int(f), int(t)): a for a, (f, t) in enumerate(zip(r.links["from"], r.links["to"]))}
for name, total in (("counts", r.flows), ("counts_veh", r.classes["cars"] + r.classes["trucks"])):
    out = ["from,to,count,class"]
    for k, row in enumerate(csv.DictReader(open(f"{d}/counts/chicago-sketch/measurement.csv"))):
        f, t = int(row["from_node_id"]), int(row["to_node_id"])
        out.append(f"{f},{t},{float(total[at[f, t]])!r},")
        if k % 4 == 0:
            out.append(f"{f},{t},{float(r.classes['trucks'][at[f, t]])!r},trucks")
    open(f"{w}/{name}.csv", "w").write("\n".join(out) + "\n")
PY
if [ -n "${KEEP:-}" ]; then cp "$W/classes.txt" "$W/counts.csv" "$W/counts_veh.csv" "$KEEP"/; fi
common=(--net "$NET" --toll-factor 0.02 --distance-factor 0.04 --threads "${THREADS:-2}")
for r in $(seq "${1:-2}"); do
  /usr/bin/time -f "two-class equilibrium (b, 1e-4): %e s, %M KB" "$U" assign "${common[@]}" --classes "$W/classes.txt" --algorithm b --gap 1e-4 > /dev/null
  /usr/bin/time -f "odme, one class, 374 counts: %e s, %M KB" "$U" odme "${common[@]}" --counts "$D/counts/chicago-sketch/measurement.csv" --perturb 0.5 --outer 10 | tail -1
  /usr/bin/time -f "odme, two classes, 468 counts (PCE units): %e s, %M KB" "$U" odme "${common[@]}" --counts "$W/counts.csv" --classes "$W/classes.txt" --all-counts pce --perturb 0.5 --outer 10 | sed -n '3p;$p'
  /usr/bin/time -f "odme, two classes, 468 counts (vehicles): %e s, %M KB" "$U" odme "${common[@]}" --counts "$W/counts_veh.csv" --classes "$W/classes.txt" --all-counts vehicles --perturb 0.5 --outer 10 | sed -n '3p;$p'
done
