#!/bin/bash
# usage: legload.sh MODE  (MODE: aslr|noaslr)
ns=svl-exp-$$
ip netns add $ns
pre=""
[ "$1" = noaslr ] && pre="setarch -R"
s=$(date +%s.%N)
out=$( { /usr/bin/time -f "%U %S %F %R %c %w" ip netns exec $ns $pre iptables-legacy-restore < /tmp/leg50k.txt; } 2>&1 )
e=$(date +%s.%N)
ip netns del $ns
echo "$1 wall=$(echo "$e - $s" | bc) user_sys_majflt_minflt_invcs_volcs=$out"
