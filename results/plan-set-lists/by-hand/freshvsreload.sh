#!/bin/bash
# alternate: fresh namespace load vs flush+reload in a kept namespace
ip netns add svl-keep
ip netns exec svl-keep nft -f /tmp/p8k.nft
for i in 1 2 3 4; do
  ip netns add svl-fresh$i
  f=$( { /usr/bin/time -f "%e %U %S" ip netns exec svl-fresh$i nft -f /tmp/p8k.nft; } 2>&1 )
  ip netns del svl-fresh$i
  ip netns exec svl-keep nft flush ruleset
  r=$( { /usr/bin/time -f "%e %U %S" ip netns exec svl-keep nft -f /tmp/p8k.nft; } 2>&1 )
  echo "$(date +%T) round $i fresh: $f  reload: $r"
done
ip netns del svl-keep
