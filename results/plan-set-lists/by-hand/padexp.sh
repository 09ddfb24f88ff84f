#!/bin/bash
t() { /usr/bin/time -f "%U %S" ip netns exec $1 nft -f $2 2>&1 | awk '{printf "%.3f", $1+$2}'; }
for k in none anon; do ip netns add svl-k$k; ip netns exec svl-k$k nft -f /tmp/base1k.nft; done
for c in 0 1 2 3 4 5 6 7; do ip netns exec svl-kanon nft -f /tmp/anon$c.nft; done
echo "built $(date +%T)"
for r in 1 2 3; do
  for k in none anon; do
    a=$(t svl-k$k /tmp/pad32.nft); ip netns exec svl-k$k nft -f /tmp/rmpad.nft
    b=$(t svl-k$k /tmp/pad256.nft); ip netns exec svl-k$k nft -f /tmp/rmpad.nft
    c=$(t svl-k$k /tmp/add32.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    d=$(t svl-k$k /tmp/add256.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    echo "round $r $k pad32 $a pad256 $b add32 $c add256 $d"
  done
done
for k in none anon; do ip netns del svl-k$k; done
