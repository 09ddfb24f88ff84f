#!/bin/bash
# Times iptables-legacy-restore of the mix's IPv4 payload (results/plan-recent/mix-iptables.yaml at
# 9,540 Services, rendered by svclab; 15,505 rules with a recent match naming 7,518 lists) with its
# recent matches and with them stripped (the same rules otherwise), into empty tables (a load) and
# again with --noflush (a reload: libiptc replaces the whole table, every rule checked again and the
# old ones destroyed, as a partial sync does), 5 times each, interleaved. The difference is what the
# rules' walks of xt_recent's list of lists cost in one family's sync.
# Usage (root, from the repository): results/plan-families/recent-reload/run.sh [SVCLAB]
set -e
svclab=${1:-svclab}
dir=$(mktemp -d /tmp/svl-recent-reload.XXXXXX)
ns=svl-x-recent-reload
"$svclab" render --mode iptables --scenario results/plan-recent/mix-iptables.yaml --services 9540 --family ipv4 > "$dir/with.rules"
sed -E 's/ -m recent --name [^ ]+ (--rcheck --seconds [0-9]+ --reap|--set)//' "$dir/with.rules" > "$dir/without.rules"
echo "rules with a recent match: $(grep -c -- '-m recent' "$dir/with.rules") and $(grep -c -- '-m recent' "$dir/without.rules"); rules: $(grep -c '^-A' "$dir/with.rules") and $(grep -c '^-A' "$dir/without.rules")"
ip netns add $ns
trap 'ip netns del $ns; rm -rf "$dir"' EXIT
flush() {
  for t in nat filter; do ip netns exec $ns iptables-legacy -t $t -F; ip netns exec $ns iptables-legacy -t $t -X; done
}
t() { local s=$(date +%s.%N); "$@" > /dev/null; local e=$(date +%s.%N); echo "$e - $s" | bc; }
for rep in 1 2 3 4 5; do
  for kind in with without; do
    flush
    load=$(t ip netns exec $ns iptables-legacy-restore "$dir/$kind.rules")
    reload=$(t ip netns exec $ns iptables-legacy-restore --noflush "$dir/$kind.rules")
    lists=$(ip netns exec $ns ls /proc/net/xt_recent | wc -l)
    echo "rep $rep $kind load $load reload $reload lists $lists"
  done
done
flush
