#!/bin/bash
t() { /usr/bin/time -f "%U %S" ip netns exec $1 nft -f $2 2>&1 | awk '{printf "%.3f", $1+$2}'; }
ip netns add svl-kmix; ip netns add svl-kanon; ip netns add svl-knone
ip netns exec svl-knone nft -f /tmp/base1k.nft
ip netns exec svl-kanon nft -f /tmp/base1k.nft
s=$(date +%s)
for c in $(seq 0 17); do ip netns exec svl-kanon nft -f /tmp/anon$c.nft; done
echo "anon 18k built in $(( $(date +%s) - s )) s"
s=$(date +%s)
ip netns exec svl-kmix nft -f /tmp/mix4.nft
echo "mix built in $(( $(date +%s) - s )) s $(date +%T)"
for r in 1 2 3; do
  for k in none anon mix; do
    a=$(t svl-k$k /tmp/add32.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    b=$(t svl-k$k /tmp/add256.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    echo "round $r $k add32 $a add256 $b"
  done
done
for k in none anon mix; do ip netns exec svl-k$k nft list sets 2>/dev/null | grep -c "^\s*set\|^\s*map" ; ip netns del svl-k$k; done
