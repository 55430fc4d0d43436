#!/bin/bash
# CCH customisation of assignment search graphs (best of 30, with and without unpacking witnesses), three
# builds alternated (custtap_old, custtap_mid, custtap_new: /tmp/custtap's tool linked against each tree),
# on all cores. From the repository root with .gpu/cust.tar.xz and .gpu/data/tntp.
mkdir -p .gpu/u && tar xJf .gpu/cust.tar.xz -C .gpu/u
T=.gpu/data/tntp
for rep in 1 2 3; do for b in ${BINS:-custtap_old custtap_mid custtap_new}; do
  for n in "Philadelphia/Philadelphia_net.tntp.xz Philadelphia/Philadelphia_trips.tntp.xz" "Austin/Austin_net.tntp Austin/Austin_trips_am.tntp.xz" "Chicago-Sketch/ChicagoSketch_net.tntp ChicagoSketch_trips.tntp.xz"; do
    set -- $n; echo "$b r$rep $(basename $1): $(.gpu/u/$b $T/$1 $T/$(dirname $1)/$(basename $2) 2>&1 | tail -1)"
  done
done; done
