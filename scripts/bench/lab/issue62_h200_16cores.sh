#!/bin/bash
# Issue 62 on the one-GPU H200 host (16 cores): the matrix 10,000 x 10,000 GPU vs CPU vs Auto, KSP 1,000 x 10,
# trees 60,000, alternated. Inputs in .gpu/b62: bins.tar.xz (the stripped `urbanflow`), NY.gr.xz, o/d files of
# seeded vertex ids (o1000/d1000/o10000/d10000.txt). One line per command in $OUT/runs.jsonl: a label, the
# wall time, then the command's --json.
B=.gpu/b62; tar xJf $B/bins.tar.xz -C /tmp; NY=$B/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
r() { local l=$1; shift; local s=$EPOCHREALTIME; local j=$("$@" --json 2>/tmp/e | tail -n1); local e=$EPOCHREALTIME; echo "$l wall=$(awk -v a=$s -v b=$e 'BEGIN{printf "%.3f", b-a}') $j" | tee -a $OUT/runs.jsonl | cut -c1-160; grep -iE "error|panic" /tmp/e | head -3; }
/tmp/urbanflow trees --graph $NY --sources 64 --backend gpu --method phast --json > /dev/null   # the order cache
for rep in 1 2 3; do
  r "matrix10000 gpu r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend gpu
  r "matrix10000 cpu r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend cpu
  r "matrix10000 auto r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt
done
for rep in 1 2; do
  r "ksp gpu r$rep" /tmp/urbanflow ksp --graph $NY --pairs 1000 --k 10 --backend gpu
  r "ksp cpu r$rep" /tmp/urbanflow ksp --graph $NY --pairs 1000 --k 10 --backend cpu
  r "trees60000 gpu r$rep" /tmp/urbanflow trees --graph $NY --sources 60000 --backend gpu --method phast
done
/tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend cpu --out /tmp/cpu.csv > /dev/null
/tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend gpu --out /tmp/gpu.csv > /dev/null
cmp /tmp/cpu.csv /tmp/gpu.csv && echo "matrix CSV IDENTICAL" | tee -a $OUT/runs.jsonl
true
