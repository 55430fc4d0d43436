#!/bin/bash
# Issue 56: the data the Auto cost models are fitted on and checked against. On the device machine from
# the repository root, with .gpu/bin.tar.xz (the stripped examples) and .gpu/data (tntp/, road/, gcut/):
# the device profile (doctor --calibrate), then every workload on each backend forced and on Auto with
# an empty cache folder (first run: calibration included) and again (profile stored), whole processes
# timed from outside. One line per run in $OUT/runs.txt (`family workload backend wall exit=rc`), each
# run's output in $OUT/json/.
set -u
OUT=${OUT:-.}
cd .gpu && tar xJf bin.tar.xz && cd ..
B=.gpu/bin
export URBANFLOW_DATA=$PWD/.gpu/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/machine.txt" 2>&1; nproc >> "$OUT/machine.txt"
export URBANFLOW_CACHE_DIR=$(mktemp -d)
$B/doctor --calibrate > "$OUT/doctor.txt" 2>&1
$B/doctor > "$OUT/doctor2.txt" 2>&1
TIMEFORMAT=%R
run() { # family workload backend cmd...
  local fam=$1 w=$2 b=$3; shift 3
  { time timeout 150 "$@" > /tmp/r.out 2>>"$OUT/err.txt"; echo $? > /tmp/r.rc; } 2> /tmp/r.wall
  mkdir -p "$OUT/json"; cp /tmp/r.out "$OUT/json/$fam.${w//[:=,]/_}.$b.${ROUND:-1}.json"
  echo "$fam $w $b $(tail -1 /tmp/r.wall) exit=$(cat /tmp/r.rc)" >> "$OUT/runs.txt"
}
each() { # family workload cmd... (--backend appended)
  local fam=$1 w=$2; shift 2
  for b in ${BACKENDS:-cpu gpu auto first}; do
    # `first`: Auto on an adapter never measured (no device profile, no tuning record), as a user's
    # first run; the parsed-file caches (hierarchy orders, trip tables) are kept, as after any run.
    if [ "$b" = first ]; then
      local fresh; fresh=$(mktemp -d); cp -r "$URBANFLOW_CACHE_DIR"/. "$fresh"/; rm -f "$fresh"/device-profile-v1.tsv "$fresh"/tuning-v1.tsv
      URBANFLOW_CACHE_DIR=$fresh run "$fam" "$w" first "$@" --backend auto
    else
      run "$fam" "$w" "$b" "$@" --backend "$b"
    fi
  done
}
T=.gpu/data/tntp
for n in ${NETS:-SiouxFalls/SiouxFalls_net.tntp Chicago-Sketch/ChicagoSketch_net.tntp Barcelona/Barcelona_net.tntp \
    Winnipeg/Winnipeg_net.tntp Berlin-Center/berlin-center_net.tntp.xz Hessen-Asymmetric/Hessen-Asym_net.tntp \
    Philadelphia/Philadelphia_net.tntp.xz Austin/Austin_net.tntp:Austin/Austin_trips_am.tntp.xz}; do
  net=${n%%:*}; trips=(); [ "$net" != "$n" ] && trips=(--trips "$T/${n#*:}")
  each assign "${net%%/*}" $B/assign --net "$T/$net" "${trips[@]}" --gap 1e-4 --json
done
for g in ${GRAPHS:-grid:8x10 grid:7x10 grid:6x10 hypercube:6}; do
  each cycles "$g" $B/cycles --generate "$g" --count-only --json
done
for n in ${OVERLAYS:-100 300 1000 2000}; do
  each overlay "n=$n" $B/overlay --generate "n=$n,family=b,l=128,seed=2" --method dist --json
done
for i in ${GCUTS:-gcut9 gcut11 gcut12 gcut13}; do
  each guillotine "$i" $B/guillotine --instance .gpu/data/gcut/$i.txt --json
done
$B/ksp --graph .gpu/data/road/NY.gr.xz --pairs 10 --k 2 --backend cpu > /dev/null 2>&1 # the hierarchy cached
for q in ${KSPS:-100:10 1000:10 1000:100 3000:10}; do
  each ksp "NY:pairs=${q%:*},k=${q#*:}" $B/ksp --graph .gpu/data/road/NY.gr.xz --pairs "${q%:*}" --k "${q#*:}" --json
done
cp "$URBANFLOW_CACHE_DIR"/*.tsv "$OUT/" 2>/dev/null
tar cJf "$OUT/json.tar.xz" -C "$OUT" json && rm -rf "$OUT/json"
