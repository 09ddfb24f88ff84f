#!/bin/bash
t() { /usr/bin/time -f "%U %S" ip netns exec $1 nft -f $2 2>&1 | awk '{printf "%.3f", $1+$2}'; }
ip netns add svl-kbig; ip netns add svl-kanon; ip netns add svl-knone
ip netns exec svl-kanon nft -f /tmp/base1k.nft; ip netns exec svl-knone nft -f /tmp/base1k.nft
for c in 0 1 2 3 4 5 6 7; do ip netns exec svl-kbig nft -f /tmp/b40part0$c; ip netns exec svl-kbig nft -f /tmp/anon$c.nft; ip netns exec svl-kanon nft -f /tmp/anon$c.nft; done
echo "built $(date +%T)"
for r in 1 2 3 4; do
  for k in none anon big; do
    a=$(t svl-k$k /tmp/add32.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    b=$(t svl-k$k /tmp/add256.nft); ip netns exec svl-k$k nft -f /tmp/rm.nft
    echo "round $r $k add32 $a add256 $b"
  done
done
for k in none anon big; do ip netns del svl-k$k; done
