#!/bin/bash
# Times ip6tables-legacy-restore of the full mix's IPv6 payload (results/plan-recent/mix-iptables.yaml
# at 9,540 Services, rendered by svclab) into a namespace without xt_recent lists and into one
# where the IPv4 payload was restored first (its lists ahead of the IPv6 ones in the namespace's
# one list of lists): a load into empty tables, then a reload (--noflush), 5 times each, interleaved.
# The difference is what the IPv6 rules' walks past the IPv4 lists cost.
# Usage (root, from the repository): results/plan-families/shared-lists/run.sh [SVCLAB]
set -e
svclab=${1:-svclab}
dir=$(mktemp -d /tmp/svl-shared-lists.XXXXXX)
ns=svl-x-shared-lists
for f in ipv4 ipv6; do
  "$svclab" render --mode iptables --scenario results/plan-recent/mix-iptables.yaml --services 9540 --family $f > "$dir/$f.rules"
done
echo "IPv6 rules with a recent match: $(grep -c -- '-m recent' "$dir/ipv6.rules"); IPv4: $(grep -c -- '-m recent' "$dir/ipv4.rules")"
ip netns add $ns
trap 'ip netns del $ns; rm -rf "$dir"' EXIT
flush() {
  for t in nat filter; do
    for c in iptables-legacy ip6tables-legacy; do ip netns exec $ns $c -t $t -F; ip netns exec $ns $c -t $t -X; done
  done
}
t() { local s=$(date +%s.%N); "$@" > /dev/null; local e=$(date +%s.%N); echo "$e - $s" | bc; }
for rep in 1 2 3 4 5; do
  for order in alone after-ipv4; do
    flush
    before=0
    if [ $order = after-ipv4 ]; then
      ip netns exec $ns iptables-legacy-restore "$dir/ipv4.rules"
      before=$(ip netns exec $ns ls /proc/net/xt_recent | wc -l)
    fi
    full=$(t ip netns exec $ns ip6tables-legacy-restore "$dir/ipv6.rules")
    reload=$(t ip netns exec $ns ip6tables-legacy-restore --noflush "$dir/ipv6.rules")
    lists=$(ip netns exec $ns ls /proc/net/xt_recent | wc -l)
    echo "rep $rep $order lists-before $before full $full reload $reload lists $lists"
  done
done
flush
