#!/bin/bash
# Auto's race, count-only: the build before (`cycles_before`: rayon stops once the GPU is ready) and
# after (`cycles_after`: the GPU counts beside rayon, the first to finish wins), each against rayon on
# all cores (`--backend cpu`) and the GPU (`--backend gpu`), runs interleaved, whole processes timed
# from outside, one machine. From the folder holding both binaries:
#   OUT=$OUT bash cycles_race.sh → OUT/race.txt, one `build backend graph wall exit=code {json}` line
# per run (a crash at exit shows as exit=139).
OUT=${OUT:-.}
TIMEFORMAT=%R
for g in ${GRAPHS:-grid:6x10 grid:7x10 grid:8x10 hypercube:6}; do
  for _ in 1 2 3; do
    for b in before after; do
      for be in auto cpu gpu; do
        [ $b = before ] && [ $be != auto ] && continue
        { time timeout 60 ./cycles_$b --generate "$g" --count-only --backend $be --json > /tmp/c.json 2>>"$OUT/err.txt"; echo $? > /tmp/c.rc; } 2> /tmp/c.wall
        echo "$b $be $g $(tail -1 /tmp/c.wall) exit=$(cat /tmp/c.rc) $(cat /tmp/c.json)" >> "$OUT/race.txt"
      done
    done
  done
done
