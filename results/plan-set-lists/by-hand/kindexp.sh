#!/bin/bash
t() { /usr/bin/time -f "%U %S" ip netns exec $1 nft -f $2 2>&1 | awk '{printf "%.3f", $1+$2}'; }
for k in none anon named short; do ip netns add svl-k$k; ip netns exec svl-k$k nft -f /tmp/base1k.nft; done
for k in anon named short; do for c in 0 1 2 3 4 5 6 7; do ip netns exec svl-k$k nft -f /tmp/$k$c.nft; done; done
echo "built $(date +%T)"
for r in 1 2 3; do
  for k in none anon named short; do
    a=$(t svl-k$k /tmp/add32.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    b=$(t svl-k$k /tmp/add256.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    echo "round $r $k add32 $a add256 $b"
  done
done
for k in none anon named short; do ip netns del svl-k$k; done
