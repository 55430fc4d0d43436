#!/usr/bin/env bash
# Downloads the public data sets the examples and benchmarks use (docs/data.md) into a data root, laid out as
# the examples expect; then `export URBANFLOW_DATA=<root>`. For users: tests and CI never run this.
#
#   scripts/download-data.sh [--large] ROOT
#
# Needs curl, xz and python3; the synthetic road weights need numpy (the weight model and seeds stated in
# the shared set's road/weighted/README.md; the script's output was not compared with that set here, so
# check the sha256 sums listed there before relying on it). Files already present are kept.
set -euo pipefail

large=0
if [ "${1:-}" = "--large" ]; then large=1; shift; fi
root=${1:?usage: scripts/download-data.sh [--large] ROOT}
mkdir -p "$root"
cd "$root"

get() { # url file
  if [ -s "$2" ]; then echo "have  $2"; return; fi
  mkdir -p "$(dirname "$2")"
  echo "fetch $2"
  curl -fsSL --retry 3 -o "$2.part" "$1" && mv "$2.part" "$2"
}

tntp=https://raw.githubusercontent.com/bstabler/TransportationNetworks/d1639b4ef218c17928ba573e806ddf8ba5e7ae6d
for f in SiouxFalls/SiouxFalls_net.tntp SiouxFalls/SiouxFalls_trips.tntp SiouxFalls/SiouxFalls_node.tntp \
         SiouxFalls/SiouxFalls_flow.tntp Anaheim/Anaheim_net.tntp Anaheim/Anaheim_trips.tntp \
         Anaheim/Anaheim_flow.tntp Barcelona/Barcelona_net.tntp Barcelona/Barcelona_trips.tntp \
         Barcelona/Barcelona_flow.tntp Chicago-Sketch/ChicagoSketch_net.tntp \
         Chicago-Sketch/ChicagoSketch_trips.tntp Chicago-Sketch/ChicagoSketch_node.tntp \
         Chicago-Sketch/ChicagoSketch_flow.tntp Eastern-Massachusetts/EMA_net.tntp \
         Eastern-Massachusetts/EMA_trips.tntp Winnipeg/Winnipeg_net.tntp Winnipeg/Winnipeg_trips.tntp \
         Winnipeg/Winnipeg_flow.tntp Berlin-Center/berlin-center_net.tntp Berlin-Center/berlin-center_trips.tntp \
         Philadelphia/Philadelphia_net.tntp Munich/munich_net.tntp Munich/munich_trips.tntp \
         Braess-Example/Braess_net.tntp Braess-Example/Braess_trips.tntp; do
  get "$tntp/$f" "tntp/$f"
done
transfer=https://raw.githubusercontent.com/gabormakrai/transfer/e19232a2e183dac23c3a7281c7bef5f3ff730f95/Data
if [ ! -s tntp/Philadelphia/Philadelphia_trips.tntp ]; then
  get "$transfer/Philadelphia_trips.txt.gz" tntp/Philadelphia/Philadelphia_trips.txt.gz
  gunzip -c tntp/Philadelphia/Philadelphia_trips.txt.gz > tntp/Philadelphia/Philadelphia_trips.tntp
  rm tntp/Philadelphia/Philadelphia_trips.txt.gz
fi
if [ "$large" = 1 ]; then
  for f in chicago-regional/ChicagoRegional_net.tntp chicago-regional/ChicagoRegional_trips.tntp \
           Sydney/Sydney_net.tntp Sydney/Sydney_trips.tntp; do
    get "$tntp/$f" "tntp/$f"
  done
fi

# Road topologies (public domain) with the seeded synthetic weights of road/weighted/README.md.
pace=https://raw.githubusercontent.com/ben-strasser/road-graphs-pace16/a5a642510e5da48530603a9f8c70607d1383bcb0
for k in NY:0 COL:2 FLA:3; do
  name=${k%%:*}; index=${k##*:}
  out=road/weighted/$name.gr
  [ -s "$out" ] || [ -s "$out.xz" ] && { echo "have  $out"; continue; }
  get "$pace/$name.gr.xz" "road/pace/$name.gr.xz" || { echo "skip  $out (topology not found)"; continue; }
  python3 - "$index" "road/pace/$name.gr.xz" "$out" <<'PY'
import lzma, sys, numpy
k, src, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
edges, n = [], 0
for line in lzma.open(src, "rt"):
    t = line.split()
    if not t or t[0] == "c":
        continue
    if t[0] == "p":
        n = int(t[2]); continue
    edges.append((int(t[0]), int(t[1])))
u = numpy.random.default_rng(20261122 + k).random(len(edges))
w = 1 + numpy.floor(numpy.exp(u * numpy.log(10000.0))).astype(numpy.int64)
with open(out, "w") as f:
    f.write(f"c synthetic weights: seed {20261122 + k}, see docs/data.md\np sp {n} {2 * len(edges)}\n")
    for (x, y), wi in zip(edges, w):
        f.write(f"a {x} {y} {wi}\na {y} {x} {wi}\n")
PY
  xz -T0 "$out"
done

get https://raw.githubusercontent.com/conveyal/r5/6f3554291d6eef41469610224b4f8a3ee36e7276/src/test/resources/porto_portugal.osm.pbf \
    osm/porto/porto_portugal.osm.pbf

vrp=https://raw.githubusercontent.com/PyVRP/Instances/main/CVRP
for x in X-n101-k25 X-n106-k14 X-n110-k13 X-n115-k10 X-n120-k6 X-n157-k13 X-n200-k36 X-n401-k29; do
  get "$vrp/$x.vrp" "vrp/X/$x.vrp"
  get "$vrp/$x.sol" "vrp/X/$x.sol"
done

if python3 -m pip download --no-deps -q -d .gtfs-kit gtfs-kit==13.0.1 2>/dev/null; then
  python3 - <<'PY'
import glob, zipfile, os
whl = glob.glob(".gtfs-kit/gtfs_kit-*.whl")
os.makedirs("transit", exist_ok=True)
if whl:
    with zipfile.ZipFile(whl[0]) as z:
        for name in z.namelist():
            if name.endswith(("nyc_subway_gtfs.zip", "cairns_gtfs.zip")):
                open(os.path.join("transit", os.path.basename(name)), "wb").write(z.read(name))
PY
  rm -rf .gtfs-kit
else
  echo "skip  transit/ (pip could not fetch gtfs-kit 13.0.1)"
fi

echo "done: export URBANFLOW_DATA=$PWD"
