#!/bin/sh
# Records results/iptables-legacy-restore/chains-only.txt: iptables-legacy-
# restore of chain declarations only (the nat table of svclab's payload of
# N one-endpoint Services, seed 1: 2N + 10 chains, no rule), so its user
# time is libiptc creating chains: a walk of every chain each time 355 were
# added beyond its index's capacity (about C²/710 steps for C chains) and a
# walk of up to a bucket (40 chains and those inserted since) for each
# insert. Each into a fresh scratch namespace, ROUNDS times in turn. Run as
# root from the repository root, nothing else running (about a
# minute here):
#   sh results/iptables-legacy-restore/chains-only.sh [ROUNDS]
set -eu
svclab=${SVCLAB:-./bin/svclab}
rounds=${1:-3}
ns=svlexp-chains-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
sizes="12500 25000 50000 75000"
for n in $sizes; do
	$svclab render --mode iptables --services "$n" --endpoints 1 --seed 1 |
		awk '/^\*nat/{t=1} t&&(/^\*/||/^:/){print} t&&/^COMMIT/{print; exit}' >"$tmp/chains-$n"
done
iptables-legacy --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
	echo "# chains-$n: $(grep -c '^:' "$tmp/chains-$n") chains"
done
echo "# time, round, payload, wall s, user s, sys s"
for r in $(seq "$rounds"); do
	for n in $sizes; do
		ip netns add "$ns"
		t=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/chains-$n"; } 2>&1 )
		ip netns delete "$ns"
		echo "$(date -u +%T) $r chains-$n $t"
	done
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
