#!/bin/bash
# As run.sh, but before each legacy load another namespace reloads
# nftables' 50,000 Services (delete table, load), as a sweep's interleaved
# dataplanes do.
set -u
NS=svl-kmemexp; NS2=svl-kmemexp2
OWN=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
CG=/sys/fs/cgroup/memory$OWN/svl-kmemexp
HOME_CG=/sys/fs/cgroup/memory$OWN
trap 'echo $$ > $HOME_CG/cgroup.procs; ip netns del $NS 2>/dev/null; ip netns del $NS2 2>/dev/null; sleep 2; rmdir $CG' EXIT
mkdir $CG && echo $$ > $CG/cgroup.procs
ip netns add $NS; ip netns add $NS2
mach() { awk '/^Slab:/{s=$2} /^VmallocUsed:/{v=$2} END{printf "%d", (s+v)*1024}' /proc/meminfo | { read a; f=$(awk 'NR>2{f+=($3-$2)*$4} END{printf "%d", f}' /proc/slabinfo); echo $((a-f)); }; }
own() { cat $CG/memory.kmem.usage_in_bytes; }
ip netns exec $NS2 nft -f /tmp/kx/nft50k.nft
for i in $(seq 1 ${1:-6}); do
  ip netns exec $NS2 nft flush ruleset; ip netns exec $NS2 nft -f /tmp/kx/nft50k.nft
  m0=$(mach); o0=$(own)
  ip netns exec $NS iptables-legacy-restore < /tmp/kx/legacy50k.rules
  m1=$(mach); o1=$(own)
  sleep 3
  m2=$(mach); o2=$(own)
  printf "load %d: machine %+.1f MB (after 3 s %+.1f), charged %+.1f MB (after 3 s %+.1f)\n" $i $(echo "($m1-$m0)/1000000"|bc -l) $(echo "($m2-$m0)/1000000"|bc -l) $(echo "($o1-$o0)/1000000"|bc -l) $(echo "($o2-$o0)/1000000"|bc -l)
  ip netns exec $NS iptables-legacy -t nat -F; ip netns exec $NS iptables-legacy -t nat -X; ip netns exec $NS iptables-legacy -t filter -F; ip netns exec $NS iptables-legacy -t filter -X
  sleep 1
done
