#!/bin/bash
# Times iptables-legacy-restore of the full mix's IPv4 payload (results/plan-recent/mix-iptables.yaml
# at 9,540 Services, rendered by svclab) with and without its recent matches: a load into empty
# tables, then a reload of the same payload (--noflush: libiptc commits the whole table again, so
# the kernel checks every rule's matches and destroys the old ones), 3 times each, interleaved.
# Usage (root, from the repository): results/plan-recent/recent-load/run.sh [SVCLAB]
set -e
svclab=${1:-svclab}
dir=$(mktemp -d /tmp/svl-recent-load.XXXXXX)
ns=svl-x-recent-load
"$svclab" render --mode iptables --scenario results/plan-recent/mix-iptables.yaml --services 9540 --family ipv4 > "$dir/mix.rules"
sed -e 's/ -m recent --name [^ ]* --rcheck --seconds [0-9]* --reap//' -e 's/ -m recent --name [^ ]* --set//' "$dir/mix.rules" > "$dir/norecent.rules"
echo "rules with a recent match: $(grep -c -- '-m recent' "$dir/mix.rules") (after stripping: $(grep -c -- '-m recent' "$dir/norecent.rules" || true))"
ip netns add $ns
trap 'ip netns del $ns; rm -rf "$dir"' EXIT
flush() { for t in nat filter; do ip netns exec $ns iptables-legacy -t $t -F; ip netns exec $ns iptables-legacy -t $t -X; done; }
t() { local s=$(date +%s.%N); "$@" > /dev/null; local e=$(date +%s.%N); echo "$e - $s" | bc; }
for rep in 1 2 3; do
  for f in mix norecent; do
    flush
    full=$(t ip netns exec $ns iptables-legacy-restore "$dir/$f.rules")
    reload=$(t ip netns exec $ns iptables-legacy-restore --noflush "$dir/$f.rules")
    lists=$(ip netns exec $ns ls /proc/net/xt_recent | wc -l)
    echo "rep $rep $f full $full reload $reload lists $lists"
  done
done
flush
