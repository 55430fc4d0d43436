#!/bin/bash
# Issue 62: Auto's matrix engine predicted from this machine's profiles (one-GPU H200 host, 16 cores): Auto, the
# named GPU and the CPU alternated at 5,000 x 5,000, 10,000 x 10,000, 1,000 x 10,000 and 1,000 x 1,000 on NY (o5000/d5000
# are the first 5,000 lines of o10000/d10000). Inputs in .gpu/b62 (see issue62_h200_16cores.sh); one line per command
# in $OUT/runs.jsonl.
B=.gpu/b62; tar xJf $B/bins.tar.xz -C /tmp; NY=$B/NY.gr.xz
export URBANFLOW_CACHE_DIR=/tmp/uf-cache; mkdir -p $URBANFLOW_CACHE_DIR
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
r() { local l=$1; shift; local s=$EPOCHREALTIME; local j=$("$@" --json 2>/tmp/e | tail -n1); local e=$EPOCHREALTIME; echo "$l wall=$(awk -v a=$s -v b=$e 'BEGIN{printf "%.3f", b-a}') $j" | tee -a $OUT/runs.jsonl | cut -c1-120; grep -iE "error|panic" /tmp/e | head -3; }
/tmp/urbanflow trees --graph $NY --sources 64 --backend cpu --method phast --json > /dev/null   # the order cache
r "auto10000 first (calibrates)" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt
for rep in 1 2 3; do
  r "auto5000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o5000.txt $B/d5000.txt
  r "cpu5000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o5000.txt $B/d5000.txt --backend cpu
  r "auto10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt
  r "gpu10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend gpu
  r "cpu10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o10000.txt $B/d10000.txt --backend cpu
  r "auto1000x10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt
  r "cpu1000x10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend cpu
  r "gpu1000x10000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend gpu
  r "auto1000 r$rep" /tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d1000.txt
done
/tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --backend cpu --out /tmp/cpu.csv > /dev/null
/tmp/urbanflow route --graph $NY --matrix $B/o1000.txt $B/d10000.txt --out /tmp/auto.csv > /dev/null
cmp /tmp/cpu.csv /tmp/auto.csv && echo "auto matrix CSV IDENTICAL" | tee -a $OUT/runs.jsonl
true
