#!/bin/sh
# Records results/iptables-legacy-restore/composition.txt: whether
# iptables-legacy-restore's time follows a payload's chains or its rules.
# A calibration's fillers have 2.5 rules a chain (one endpoint a Service);
# a cluster's mix has more. Four payloads restored in turn, each into a
# fresh scratch namespace's empty tables, ROUNDS times:
#   mix4        the IPv4 payload of results/plan-mix-check's cluster-500 mix
#               at 20× (9,540 Services) without ClientIP affinity
#   same-chains synthetic one-endpoint Services with as many chains
#   same-rules  synthetic one-endpoint Services with as many rules
#   chains-dup  same-chains with each endpoint chain's two rules written
#               twice (as many chains, more rules)
# Tool: wall, user, sys seconds. Run as root from the repository root,
# nothing else running (about 3 minutes here):
#   sh results/iptables-legacy-restore/composition.sh [ROUNDS]
set -eu
svclab=${SVCLAB:-./bin/svclab}
rounds=${1:-3}
ns=svlexp-comp-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
sed 's/sessionAffinity: 0.102725/sessionAffinity: 0/' results/plan-mix-check/cluster-500-x20.yaml >"$tmp/mix.yaml"
$svclab render --mode iptables --scenario "$tmp/mix.yaml" --services 9540 --family ipv4 >"$tmp/mix4"
rules=$(grep -c '^-A' "$tmp/mix4")
chains=$(grep -c '^:' "$tmp/mix4")
# A synthetic one-endpoint payload has 5 rules and 2 chains a Service,
# plus 9 rules and 10 chains of its own.
$svclab render --mode iptables --services $(((chains - 10) / 2)) --endpoints 1 --seed 29 >"$tmp/same-chains"
$svclab render --mode iptables --services $(((rules - 9) / 5)) --endpoints 1 --seed 29 >"$tmp/same-rules"
awk '{print} /^-A KUBE-SEP-/{print}' "$tmp/same-chains" >"$tmp/chains-dup"
iptables-legacy --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
for f in mix4 same-chains same-rules chains-dup; do
	echo "# $f: $(grep -c '^-A' "$tmp/$f") rules, $(grep -c '^:' "$tmp/$f") chains, $(wc -c <"$tmp/$f") bytes"
done
echo "# time, round, payload, wall s, user s, sys s"
for r in $(seq "$rounds"); do
	for f in mix4 same-chains same-rules chains-dup; do
		ip netns add "$ns"
		t=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/$f"; } 2>&1 )
		ip netns delete "$ns"
		echo "$(date -u +%T) $r $f $t"
	done
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
