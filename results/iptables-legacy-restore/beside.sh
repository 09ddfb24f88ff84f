#!/bin/bash
# Interleaved: a 50,000-service iptables-legacy restore into netns A, alone
# or with a 40,000-service table alive in netns B.
set -e
cd /tmp/legexp
ip netns add svl-exp-a; ip netns add svl-exp-b
trap 'ip netns del svl-exp-a; ip netns del svl-exp-b' EXIT
flush() { for t in nat filter; do ip netns exec $1 iptables-legacy -t $t -F; ip netns exec $1 iptables-legacy -t $t -X; done; }
for i in 1 2 3 4 5; do
  for mode in alone beside; do
    if [ $mode = beside ]; then ip netns exec svl-exp-b iptables-legacy-restore --noflush < p40k.txt; fi
    /usr/bin/time -f "$i $mode wall %e user %U sys %S" ip netns exec svl-exp-a iptables-legacy-restore --noflush < p50k.txt
    flush svl-exp-a
    if [ $mode = beside ]; then flush svl-exp-b; fi
  done
done
