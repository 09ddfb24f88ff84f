#!/bin/bash
for i in $(seq 1 20); do
  c1=$(./chase 4 8 12 16 24 64)
  l=$(./legload.sh aslr)
  c2=$(./chase 4 8 12 16 24 64)
  echo "$(date +%T) | $c1| $l | $c2"
done
