#!/bin/bash
./sampler $1 $2 $3 > cache-during-samples.txt &
sp=$!
sleep 3
for i in $(seq 1 ${5:-20}); do
  s=$(date +%s.%N); l=$(./legload.sh aslr); e=$(date +%s.%N)
  echo "$s $e $l"
  sleep 2
done > cache-during-loads.txt
kill $sp
