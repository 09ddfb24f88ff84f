#!/bin/bash
# A/B of the mix's iptables-legacy incremental sync: A restores both families' partial payloads on an
# endpoint change (svclab at 1d94831), B only the changed endpoint's family (the commit after it),
# two runs of each, interleaved. Usage (root, from the repository): build A to /tmp/svclab-head and B
# to /tmp/svclab, then results/plan-families/partial-family/run.sh; it writes /tmp/ab/{A1,B1,A2,B2}.
set -u
mkdir -p /tmp/ab
for i in 1 2; do
  for v in A B; do
    bin=/tmp/svclab-head; [ $v = B ] && bin=/tmp/svclab
    echo "$(date -u +%T) start $v$i"
    $bin run results/plan-recent/mix-iptables.yaml --dataplane iptables-legacy --out /tmp/ab/$v$i > /tmp/ab/$v$i.log 2>&1
    echo "$(date -u +%T) end $v$i rc=$?"
  done
done
