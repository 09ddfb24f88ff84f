#!/bin/sh
# Records results/iptables-legacy-restore/composition-endpoints.txt: Services
# of several endpoints (more rules a chain than one endpoint's 2.5) against
# one-endpoint Services of as many chains, restored in turn into fresh
# scratch namespaces, ROUNDS times:
#   ep3       20,000 Services × 3 endpoints (80,010 chains, 220,009 rules)
#   same-3    40,000 one-endpoint Services (80,010 chains, 200,009 rules)
#   ep8       10,000 Services × 8 endpoints (90,010 chains, 260,009 rules)
#   same-8    45,000 one-endpoint Services (90,010 chains, 225,009 rules)
# Tool: wall, user, sys seconds. Run as root from the repository root,
# nothing else running (about 2 minutes here):
#   sh results/iptables-legacy-restore/composition-endpoints.sh [ROUNDS]
set -eu
svclab=${SVCLAB:-./bin/svclab}
rounds=${1:-3}
ns=svlexp-compe-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
$svclab render --mode iptables --services 20000 --endpoints 3 --seed 1 >"$tmp/ep3"
$svclab render --mode iptables --services 40000 --endpoints 1 --seed 1 >"$tmp/same-3"
$svclab render --mode iptables --services 10000 --endpoints 8 --seed 1 >"$tmp/ep8"
$svclab render --mode iptables --services 45000 --endpoints 1 --seed 1 >"$tmp/same-8"
iptables-legacy --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
for f in ep3 same-3 ep8 same-8; do
	echo "# $f: $(grep -c '^-A' "$tmp/$f") rules, $(grep -c '^:' "$tmp/$f") chains, $(wc -c <"$tmp/$f") bytes"
done
echo "# time, round, payload, wall s, user s, sys s"
for r in $(seq "$rounds"); do
	for f in ep3 same-3 ep8 same-8; do
		ip netns add "$ns"
		t=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/$f"; } 2>&1 )
		ip netns delete "$ns"
		echo "$(date -u +%T) $r $f $t"
	done
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
