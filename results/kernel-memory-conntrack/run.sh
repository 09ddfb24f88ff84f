#!/bin/bash
# Loads iptables-legacy's 50,000 Services repeatedly into a scratch namespace
# and reads the machine's kernel memory (Slab + VmallocUsed - slab free
# objects) and the memcg charge around each load.
set -u
NS=svl-kmemexp
OWN=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
CG=/sys/fs/cgroup/memory$OWN/svl-kmemexp
HOME_CG=/sys/fs/cgroup/memory$OWN
trap 'echo $$ > $HOME_CG/cgroup.procs; ip netns del $NS 2>/dev/null; sleep 2; rmdir $CG' EXIT
mkdir $CG && echo $$ > $CG/cgroup.procs
ip netns add $NS
mach() { awk '/^Slab:/{s=$2} /^VmallocUsed:/{v=$2} END{printf "%d", (s+v)*1024}' /proc/meminfo | { read a; f=$(awk 'NR>2{f+=($3-$2)*$4} END{printf "%d", f}' /proc/slabinfo); echo $((a-f)); }; }
own() { cat $CG/memory.kmem.usage_in_bytes; }
for i in $(seq 1 ${1:-8}); do
  m0=$(mach); o0=$(own)
  t0=$(date +%s.%N)
  ip netns exec $NS iptables-legacy-restore < ${2:-/tmp/kx/legacy50k.rules}
  t1=$(date +%s.%N)
  m1=$(mach); o1=$(own)
  sleep 3
  m2=$(mach); o2=$(own)
  printf "load %d: %.1f s; machine %+.1f MB (after 3 s %+.1f), charged %+.1f MB (after 3 s %+.1f)\n" $i $(echo "$t1-$t0"|bc) $(echo "($m1-$m0)/1000000"|bc -l) $(echo "($m2-$m0)/1000000"|bc -l) $(echo "($o1-$o0)/1000000"|bc -l) $(echo "($o2-$o0)/1000000"|bc -l)
  ip netns exec $NS iptables-legacy -t nat -F; ip netns exec $NS iptables-legacy -t nat -X; ip netns exec $NS iptables-legacy -t filter -F; ip netns exec $NS iptables-legacy -t filter -X
  sleep ${SETTLE:-2}   # the pause after the flush; SETTLE=0: none
done
